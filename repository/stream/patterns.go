package stream

import "singletable/repository"

// The access pattern of the change log (delta sync), declared once: a page of a scope's changes.
var ChangesOfScope = repository.Declare(repository.AccessPattern{ID: "AP33", Name: "ChangesOfScope", What: "every change of a scope after a cursor, in the log's order, paged (delta sync)",
	Fields:    "`ticketChanges`, `orderChanges`, `employeeChanges`, `inventoryChanges`; the replay of a subscription opened with `after`",
	Operation: repository.Query, PartitionKey: "CHANGES#<scope>", Sort: repository.SortKeyAfter, SortKey: []string{"P#<position of the cursor>"},
	Filter: "expires > <now>", Calls: repository.PerParent,
	Notes: "ascending; the filter leaves out items past the retention that TTL has not deleted yet; one Query per page; `reporterId` narrows with the subscription's filter, at most pages + 1 Queries; the items are appended by the stream's reader at positions it assigns (see [The change log](#the-change-log-delta-sync))"})
