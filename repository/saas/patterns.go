package saas

import "singletable/repository"

// The access patterns of the SaaS domain (Organization → Users → Tickets): how the API reads
// its items, declared once. The read functions of read.go build their requests from them.

var (
	OrganizationByKey = repository.Declare(repository.AccessPattern{ID: "AP1", Name: "OrganizationByKey", What: "organization by id",
		Fields:    "`organization(id)`, `node(s)`, `User.organization`, `Ticket.organization`",
		Operation: repository.BatchGetItem, PartitionKey: "ORG#<o>", Sort: repository.SortKeyIs, SortKey: []string{"METADATA#<o>"}, Calls: repository.PerLevel})
	OrganizationWithUsers = repository.Declare(repository.AccessPattern{ID: "AP2", Name: "OrganizationWithUsers", What: "organization and its users",
		Fields:    "`organization(id) { users }`",
		Operation: repository.Query, PartitionKey: "ORG#<o>", Calls: repository.PerParent,
		Notes: "ONE Query, Limit first+2: the organization item sorts first (`METADATA#` < `USER#`), then its users"})
	UsersOfOrganization = repository.Declare(repository.AccessPattern{ID: "AP3", Name: "UsersOfOrganization", What: "users of an organization, paged",
		Fields:    "`Organization.users(first, after)`",
		Operation: repository.Query, PartitionKey: "ORG#<o>", Sort: repository.SortKeyBeginsWith, SortKey: []string{userSKPrefix}, Calls: repository.PerParent})
	UserByKey = repository.Declare(repository.AccessPattern{ID: "AP4", Name: "UserByKey", What: "user by id",
		Fields:    "`user(id)`, `node(s)`, `Ticket.reporter`",
		Operation: repository.BatchGetItem, PartitionKey: "ORG#<o>", Sort: repository.SortKeyIs, SortKey: []string{"USER#<u>"}, Calls: repository.PerLevel})
	TicketsOfUser = repository.Declare(repository.AccessPattern{ID: "AP5", Name: "TicketsOfUser", What: "a user's tickets, newest first, paged; optional status",
		Fields:    "`User.tickets`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "ORG#<o>#USER#<u>", Sort: repository.SortKeyBeginsWith, SortKey: []string{TicketSKPrefix},
		Backward: true, Filter: "status = <status>", Calls: repository.PerParent, Notes: "the status filter only with a status"})
	TicketsOfUserCreated = repository.Declare(repository.AccessPattern{ID: "AP5", Name: "TicketsOfUserCreated", What: "a user's tickets created in a range, newest first",
		Fields:    "`User.tickets(createdAfter, createdBefore)`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "ORG#<o>#USER#<u>", Sort: repository.SortKeyBetween, SortKey: []string{"TICKET#<lo>", "TICKET#<hi>"},
		Backward: true, Filter: "status = <status>", Calls: repository.PerParent, Notes: "ticket ids sort by creation time; the status filter only with a status"})
	UserWithTickets = repository.Declare(repository.AccessPattern{ID: "AP5", Name: "UserWithTickets", What: "a user and its newest tickets",
		Fields:    "`user(id) { tickets }`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "ORG#<o>#USER#<u>", Sort: repository.SortKeyAtMost, SortKey: []string{"USER#<u>"},
		Backward: true, Calls: repository.PerParent,
		Notes: "ONE Query: the user item sorts last on GSI1 (`USER#` > `TICKET#`), so it comes first backwards"})
	TicketByKey = repository.Declare(repository.AccessPattern{ID: "AP6", Name: "TicketByKey", What: "ticket by id",
		Fields:    "`ticket(id)`, `node(s)`",
		Operation: repository.BatchGetItem, PartitionKey: "TICKET#<t>", Sort: repository.SortKeyIs, SortKey: []string{"ORG#<o>"}, Calls: repository.PerLevel,
		Notes: "the ticket's global ID carries its organization: a key spelled with another organization finds nothing"})
	TicketByID = repository.Declare(repository.AccessPattern{ID: "AP6", Name: "TicketByID", What: "ticket by an id that lacks its organization",
		Fields:    "`ticket(id)`, `node(s)` with an ID handed out before IDs carried the organization",
		Operation: repository.Query, PartitionKey: "TICKET#<t>", Sort: repository.SortKeyBeginsWith, SortKey: []string{ticketOrgSKPrefix}, Calls: repository.PerParent,
		Notes: "only for a caller who sees every organization; an organization's role completes the ID with its own organization"})
	OrganizationsByName = repository.ListPattern("OrganizationsByName", TypeOrganization, "`organizations`")
	VersionsOfTicket    = repository.Declare(repository.AccessPattern{ID: "AP21", Name: "VersionsOfTicket", What: "a ticket's history, newest first, paged",
		Fields:    "`Ticket.history(first, after)`",
		Operation: repository.Query, PartitionKey: "TICKET#<t>", Sort: repository.SortKeyBeginsWith, SortKey: []string{"VERSION#<o>#"},
		Backward: true, Calls: repository.PerParent,
		Notes: "the version items of the ticket's own partition; one Query per ticket, the tickets of a level asking together"})
)
