package repository

// The access patterns of the commerce domain (Customer → Orders → order items, account reps):
// how the API reads its items, declared once. The read functions of commerce_read*.go and
// commerce_reps_read.go build their requests from them.
var (
	CustomersByName = listPattern("CustomersByName", TypeCustomer, "`customers`")
	CustomerByKey   = Declare(AccessPattern{ID: "AP15", Name: "CustomerByKey", What: "customer by id, with mailing addresses",
		Fields:    "`customer(id)`, `node(s)`, `Order.customer`, `Customer.mailingAddresses`",
		Operation: BatchGetItem, PartitionKey: "CUST#<c>", Sort: SortKeyIs, SortKey: []string{customerProfileSK}, Calls: PerLevel,
		Notes: "the addresses are a list attribute of the item"})
	OrdersOfCustomer = Declare(AccessPattern{ID: "AP16", Name: "OrdersOfCustomer", What: "a customer's orders, newest first, paged; optional placed range",
		Fields:    "`Customer.orders`",
		Operation: Query, PartitionKey: "CUST#<c>", Sort: SortKeyBetween, SortKey: []string{"ORDER#<lo>", "ORDER#<hi>~"},
		Backward: true, Calls: PerParent,
		Notes: "the orders' items come in the same Query (each order's items sort just before it)"})
	OrdersOfCustomerStatus = Declare(AccessPattern{ID: "AP16", Name: "OrdersOfCustomerStatus", What: "a customer's orders with a status, newest first",
		Fields:    "`Customer.orders(status)`",
		Operation: Query, Index: Gsi1, PartitionKey: "CUST#<c>#ORDERS", Sort: SortKeyBetween, SortKey: []string{"<status>#<lo>", "<status>#<hi>"},
		Backward: true, Calls: PerParent,
		Notes: "the index holds the orders alone: their items are read by key (OrderItemByKey)"})
	CustomerWithOrders = Declare(AccessPattern{ID: "AP16", Name: "CustomerWithOrders", What: "a customer with its newest orders and their items",
		Fields:    "`customer(id) { orders }`",
		Operation: Query, PartitionKey: "CUST#<c>", Sort: SortKeyBetween, SortKey: []string{"ORDER#<lo>", customerProfileSK},
		Backward: true, Calls: PerParent,
		Notes: "ONE Query: the customer item (`PROFILE`) sorts after every `ORDER#` key, so it comes first backwards"})
	OrderWithItems = Declare(AccessPattern{ID: "AP17", Name: "OrderWithItems", What: "an order by id with its items",
		Fields:    "`order(id) { items }`",
		Operation: Query, PartitionKey: "CUST#<c>", Sort: SortKeyBetween, SortKey: []string{"ORDER#<o>", "ORDER#<o>~"}, Calls: PerParent,
		Notes: "the order's record, then its items: one call where a lookup by key takes two"})
	OrderItemByKey = Declare(AccessPattern{ID: "AP17", Name: "OrderItemByKey", What: "an order's items",
		Fields:    "`Order.items`",
		Operation: BatchGetItem, PartitionKey: "CUST#<c>", Sort: SortKeyIs, SortKey: []string{"ORDER#<o>#ITEM#<nnn>"}, Calls: PerLevel,
		Notes: "n = the order's `itemCount`; one BatchGetItem for every order of the level (orders read with AP16 without a status come with their items)"})
	OrderByKey = Declare(AccessPattern{ID: "AP18", Name: "OrderByKey", What: "order by id",
		Fields:    "`order(id)`, `node(s)`",
		Operation: BatchGetItem, PartitionKey: "CUST#<c>", Sort: SortKeyIs, SortKey: []string{"ORDER#<o>"}, Calls: PerLevel})
	OrdersByStatus = Declare(AccessPattern{ID: "AP20", Name: "OrdersByStatus", What: "orders by status in a placed range, all customers, newest first",
		Fields:    "`ordersByStatus`",
		Operation: Query, Index: gsi3, PartitionKey: "ORDERSTATUS#<status>#<shard>", Sort: SortKeyBetween, SortKey: []string{"<lo>", "<hi>"},
		Backward: true, Calls: PerShard,
		Notes: "N Queries in parallel, one per shard, merged by order id behind one cursor; N = `ORDER_STATUS_SHARDS`"})
	AccountsOfRep = Declare(AccessPattern{ID: "AP26", Name: "AccountsOfRep", What: "customers by account rep, paged",
		Fields:    "`Employee.accounts`",
		Operation: Query, Index: Gsi1, PartitionKey: "EMP#<e>#ACCOUNTS", Calls: PerParent,
		Notes: "by name; a customer's rep (`Customer.accountRep`) is read by key, batched"})
	OrdersOfRep = Declare(AccessPattern{ID: "AP27", Name: "OrdersOfRep", What: "orders by account rep and date, newest first; optional status",
		Fields:    "`Employee.accountOrders`",
		Operation: Query, Index: Gsi2, PartitionKey: "EMP#<e>#ORDERS", Sort: SortKeyBetween, SortKey: []string{"<lo>", "<hi>"},
		Backward: true, Filter: "status = <status>", Calls: PerParent,
		Notes: "the filter only with a status; pages stay full: the Query reads on"})
	RepSalesOfMonth = Declare(AccessPattern{ID: "AP28", Name: "RepSalesOfMonth", What: "account reps ranked by sales over a range of months",
		Fields:    "`topAccountReps(from, to, first)`",
		Operation: Query, PartitionKey: "REPSALES#<yyyy-mm>", Calls: PerMonth,
		Notes: "one Query per month of the range, in parallel (every rep's total of the month), summed and ranked; totals kept in the order's and the cancellation's transaction; the reps by key, batched"})
	// CountersOfParent is the access pattern of a connection's totalCount: the counters on the
	// item of the list's parent, which the operation has read already.
	CountersOfParent = Declare(AccessPattern{ID: "AP22", Name: "CountersOfParent", What: "the size of a counted list",
		Fields:    "`totalCount` of `Organization.users`, `User.tickets`, `Department.employees`, `Employee.directReports`, `Customer.orders`",
		Operation: NoCall,
		Notes:     "counters on the list's parent item (`userCount`; `openTickets`, `pendingTickets`, `closedTickets`; `employeeCount`; `directReportCount`; `openOrders`, `shippedOrders`, `deliveredOrders`, `cancelledOrders`), changed in the same transaction as every write of the collection, which the list's read has at hand; `null` with a time range, on the lists no counter follows, and on items written before counters existed until `-recount`"})
)
