package planner

import (
	"maps"

	"singletable/repository"
)

// The corrections and removals (repository/*_update.go, *_delete.go), described as Mutations
// describes the other writes, and added to it.
func init() { maps.Copy(Mutations, lifecycleMutations) }

// read is the strongly consistent BatchGetItem a correction or removal conditions its transaction on.
func read(what string) Write {
	return Write{Operation: BatchGetItem, Calls: 1, What: what + ", consistent"}
}

// perData is a call made once per chunk of the data (a page of a Query, a transaction's worth of
// items).
func perData(op Operation, what string) Write { return Write{Operation: op, PerData: true, What: what} }

var lifecycleMutations = map[string]Mutation{
	"updateOrganization": {Writes: []Write{read("PK = ORG#<o>, SK = METADATA#<o>"), put("Update ORG#<o> METADATA#<o> and its GSI2 keys if it exists")}},
	"updateUser": {Writes: []Write{read("PK = ORG#<o>, SK = USER#<u>"),
		put("Update USER#<u> if its email is as read; Put the new email guard if absent, Delete the old one")}},
	"deleteTicket": {Attempts: repository.MaxRemovalRounds, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = TICKET#<t>, for a caller whose scope the ticket's ID does not tell"},
		read("PK = TICKET#<t>, SK = ORG#<o>"),
		put("Delete TICKET#<t> if at the version read, its VERSION# items; update the reporter's counters"),
		perData(TransactWriteItems, "the versions of a history longer than one transaction, swept after it"),
	}},
	"deleteUser": {Attempts: repository.MaxRemovalRounds, Writes: []Write{
		read("PK = ORG#<o>, SK = USER#<u>"),
		{Operation: Query, Calls: 1, PerData: true, What: "GSI1PK = ORG#<o>#USER#<u> AND begins_with(GSI1SK, TICKET#), one per 1 MB"},
		perData(TransactWriteItems, "with cascade: Delete TICKET#<t> and its versions, as many as fit one transaction"),
		put("Delete USER#<u> if it has no tickets, its email guard; update ORG#<o>'s count"),
	}},
	"deleteOrganization": {Writes: []Write{put("Update ORG#<o> (mark, leave GSI2) if it exists and is not being removed; Put SWEEP ORGANIZATION#<o>")}},
	"relocateDepartment": {Writes: []Write{read("PK = SK = DEPT#<d>"), put("Update DEPT#<d> if at the location read; check the new location exists")}},
	"unassignManager": {Attempts: repository.MaxRemovalRounds, Writes: []Write{
		read("PK = SK = EMP#<e>, PK = EMP#<e> SK = REL#MANAGER"), put("Delete REL#MANAGER if it points at the manager read; update the manager's count")}},
	"unassignMentor": {Attempts: repository.MaxRemovalRounds, Writes: []Write{
		read("PK = SK = EMP#<e>, PK = EMP#<e> SK = REL#MENTOR"), put("Delete REL#MENTOR if it points at the mentor read")}},
	"removeEmployee": {Attempts: repository.MaxRemovalRounds, Writes: []Write{
		read("PK = SK = EMP#<e> and its REL# items"),
		{Operation: Query, Calls: 2, PerData: true, What: "GSI1PK = EMP#<e>#REL#MANAGER and EMP#<e>#REL#MENTOR: direct reports, mentees"},
		put("Delete EMP#<e> and its REL# items; move its reports' REL#MANAGER to its manager, Delete its mentees' REL#MENTOR; update the counts"),
		{Operation: Query, Calls: 1, What: "GSI1PK = EMP#<e>#REL#MENTOR: mentees assigned during the removal"},
	}},
	"deleteDepartment": {Writes: []Write{read("PK = SK = DEPT#<d>"), put("Delete DEPT#<d> if it has no employees")}},
	"deleteLocation": {Writes: []Write{read("PK = COUNTRY#<c>, SK = <state>#<city>#<postal>#<l>"),
		{Operation: Query, Calls: 1, PerData: true, What: "GSI2PK = TYPE#Department, filtered by location, one per 1 MB"},
		put("Delete the location if it exists")}},
	"updateCustomer": {Writes: []Write{read("PK = CUST#<c>, SK = PROFILE"),
		put("Update CUST#<c> PROFILE if its email is as read; Put the new email guard if absent, Delete the old one")}},
	"updateMailingAddress": {Writes: []Write{read("PK = CUST#<c>, SK = PROFILE"), put("Update mailingAddresses[i] of CUST#<c> PROFILE if it still has the label")}},
	"removeMailingAddress": {Writes: []Write{read("PK = CUST#<c>, SK = PROFILE"), put("Remove mailingAddresses[i] of CUST#<c> PROFILE if it still has the label")}},
	"deleteCustomer": {Attempts: repository.MaxRemovalRounds, Writes: []Write{
		read("PK = CUST#<c>, SK = PROFILE"),
		{Operation: Query, Calls: 1, PerData: true, What: "PK = CUST#<c> AND begins_with(SK, ORDER#), consistent, one per 1 MB"},
		perData(TransactWriteItems, "Delete ORDER# items, their lines and idempotency guards, as many orders as fit one transaction; update the counters"),
		put("Delete CUST#<c> PROFILE if its counters and email are as read, its email guard (with the orders, when all fit)"),
	}},
}
