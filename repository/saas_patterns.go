package repository

// The access patterns of the SaaS domain (Organization → Users → Tickets): how the API reads
// its items, declared once. The read functions of saas_read.go build their requests from them.

var (
	OrganizationByKey = Declare(AccessPattern{ID: "AP1", Name: "OrganizationByKey", What: "organization by id",
		Fields:    "`organization(id)`, `node(s)`, `User.organization`, `Ticket.organization`",
		Operation: BatchGetItem, PartitionKey: "ORG#<o>", Sort: SortKeyIs, SortKey: []string{"METADATA#<o>"}, Calls: PerLevel})
	OrganizationWithUsers = Declare(AccessPattern{ID: "AP2", Name: "OrganizationWithUsers", What: "organization and its users",
		Fields:    "`organization(id) { users }`",
		Operation: Query, PartitionKey: "ORG#<o>", Calls: PerParent,
		Notes: "ONE Query, Limit first+2: the organization item sorts first (`METADATA#` < `USER#`), then its users"})
	UsersOfOrganization = Declare(AccessPattern{ID: "AP3", Name: "UsersOfOrganization", What: "users of an organization, paged",
		Fields:    "`Organization.users(first, after)`",
		Operation: Query, PartitionKey: "ORG#<o>", Sort: SortKeyBeginsWith, SortKey: []string{userSKPrefix}, Calls: PerParent})
	UserByKey = Declare(AccessPattern{ID: "AP4", Name: "UserByKey", What: "user by id",
		Fields:    "`user(id)`, `node(s)`, `Ticket.reporter`",
		Operation: BatchGetItem, PartitionKey: "ORG#<o>", Sort: SortKeyIs, SortKey: []string{"USER#<u>"}, Calls: PerLevel})
	TicketsOfUser = Declare(AccessPattern{ID: "AP5", Name: "TicketsOfUser", What: "a user's tickets, newest first, paged; optional status",
		Fields:    "`User.tickets`",
		Operation: Query, Index: Gsi1, PartitionKey: "ORG#<o>#USER#<u>", Sort: SortKeyBeginsWith, SortKey: []string{TicketSKPrefix},
		Backward: true, Filter: "status = <status>", Calls: PerParent, Notes: "the status filter only with a status"})
	TicketsOfUserCreated = Declare(AccessPattern{ID: "AP5", Name: "TicketsOfUserCreated", What: "a user's tickets created in a range, newest first",
		Fields:    "`User.tickets(createdAfter, createdBefore)`",
		Operation: Query, Index: Gsi1, PartitionKey: "ORG#<o>#USER#<u>", Sort: SortKeyBetween, SortKey: []string{"TICKET#<lo>", "TICKET#<hi>"},
		Backward: true, Filter: "status = <status>", Calls: PerParent, Notes: "ticket ids sort by creation time; the status filter only with a status"})
	UserWithTickets = Declare(AccessPattern{ID: "AP5", Name: "UserWithTickets", What: "a user and its newest tickets",
		Fields:    "`user(id) { tickets }`",
		Operation: Query, Index: Gsi1, PartitionKey: "ORG#<o>#USER#<u>", Sort: SortKeyAtMost, SortKey: []string{"USER#<u>"},
		Backward: true, Calls: PerParent,
		Notes: "ONE Query: the user item sorts last on GSI1 (`USER#` > `TICKET#`), so it comes first backwards"})
	TicketByKey = Declare(AccessPattern{ID: "AP6", Name: "TicketByKey", What: "ticket by id",
		Fields:    "`ticket(id)`, `node(s)`",
		Operation: BatchGetItem, PartitionKey: "TICKET#<t>", Sort: SortKeyIs, SortKey: []string{"ORG#<o>"}, Calls: PerLevel,
		Notes: "the ticket's global ID carries its organization: a key spelled with another organization finds nothing"})
	TicketByID = Declare(AccessPattern{ID: "AP6", Name: "TicketByID", What: "ticket by an id that lacks its organization",
		Fields:    "`ticket(id)`, `node(s)` with an ID handed out before IDs carried the organization",
		Operation: Query, PartitionKey: "TICKET#<t>", Sort: SortKeyBeginsWith, SortKey: []string{ticketOrgSKPrefix}, Calls: PerParent,
		Notes: "only for a caller who sees every organization; an organization's role completes the ID with its own organization"})
	OrganizationsByName = ListPattern("OrganizationsByName", TypeOrganization, "`organizations`")
	VersionsOfTicket    = Declare(AccessPattern{ID: "AP21", Name: "VersionsOfTicket", What: "a ticket's history, newest first, paged",
		Fields:    "`Ticket.history(first, after)`",
		Operation: Query, PartitionKey: "TICKET#<t>", Sort: SortKeyBeginsWith, SortKey: []string{"VERSION#<o>#"},
		Backward: true, Calls: PerParent,
		Notes: "the version items of the ticket's own partition; one Query per ticket, the tickets of a level asking together"})
)
