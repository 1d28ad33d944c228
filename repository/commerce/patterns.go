package commerce

import "singletable/repository"

// The access patterns of the commerce domain (Customer → Orders → order items, account reps):
// how the API reads its items, declared once. The read functions of commerce_read*.go and
// reps_read.go build their requests from them.
var (
	CustomersByName = repository.ListPattern("CustomersByName", TypeCustomer, "`customers`")
	CustomerByKey   = repository.Declare(repository.AccessPattern{ID: "AP15", Name: "CustomerByKey", What: "customer by id, with mailing addresses",
		Fields:    "`customer(id)`, `node(s)`, `Order.customer`, `Customer.mailingAddresses`",
		Operation: repository.BatchGetItem, PartitionKey: "CUST#<c>", Sort: repository.SortKeyIs, SortKey: []string{customerProfileSK}, Calls: repository.PerLevel,
		Notes: "the addresses are a list attribute of the item"})
	OrdersOfCustomer = repository.Declare(repository.AccessPattern{ID: "AP16", Name: "OrdersOfCustomer", What: "a customer's orders, newest first, paged; optional placed range",
		Fields:    "`Customer.orders`",
		Operation: repository.Query, PartitionKey: "CUST#<c>", Sort: repository.SortKeyBetween, SortKey: []string{"ORDER#<lo>", "ORDER#<hi>~"},
		Backward: true, Calls: repository.PerParent,
		Notes: "the orders' items come in the same Query (each order's items sort just before it)"})
	OrdersOfCustomerStatus = repository.Declare(repository.AccessPattern{ID: "AP16", Name: "OrdersOfCustomerStatus", What: "a customer's orders with a status, newest first",
		Fields:    "`Customer.orders(status)`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "CUST#<c>#ORDERS", Sort: repository.SortKeyBetween, SortKey: []string{"<status>#<lo>", "<status>#<hi>"},
		Backward: true, Calls: repository.PerParent,
		Notes: "the index holds the orders alone: their items are read by key (OrderItemByKey)"})
	CustomerWithOrders = repository.Declare(repository.AccessPattern{ID: "AP16", Name: "CustomerWithOrders", What: "a customer with its newest orders and their items",
		Fields:    "`customer(id) { orders }`",
		Operation: repository.Query, PartitionKey: "CUST#<c>", Sort: repository.SortKeyBetween, SortKey: []string{"ORDER#<lo>", customerProfileSK},
		Backward: true, Calls: repository.PerParent,
		Notes: "ONE Query: the customer item (`PROFILE`) sorts after every `ORDER#` key, so it comes first backwards"})
	OrderWithItems = repository.Declare(repository.AccessPattern{ID: "AP17", Name: "OrderWithItems", What: "an order by id with its items",
		Fields:    "`order(id) { items }`",
		Operation: repository.Query, PartitionKey: "CUST#<c>", Sort: repository.SortKeyBetween, SortKey: []string{"ORDER#<o>", "ORDER#<o>~"}, Calls: repository.PerParent,
		Notes: "the order's record, then its items: one call where a lookup by key takes two"})
	OrderItemByKey = repository.Declare(repository.AccessPattern{ID: "AP17", Name: "OrderItemByKey", What: "an order's items",
		Fields:    "`Order.items`",
		Operation: repository.BatchGetItem, PartitionKey: "CUST#<c>", Sort: repository.SortKeyIs, SortKey: []string{"ORDER#<o>#ITEM#<nnn>"}, Calls: repository.PerLevel,
		Notes: "n = the order's `itemCount`; one BatchGetItem for every order of the level (orders read with AP16 without a status come with their items)"})
	OrderByKey = repository.Declare(repository.AccessPattern{ID: "AP18", Name: "OrderByKey", What: "order by id",
		Fields:    "`order(id)`, `node(s)`",
		Operation: repository.BatchGetItem, PartitionKey: "CUST#<c>", Sort: repository.SortKeyIs, SortKey: []string{"ORDER#<o>"}, Calls: repository.PerLevel})
	OrdersByStatus = repository.Declare(repository.AccessPattern{ID: "AP20", Name: "OrdersByStatus", What: "orders by status in a placed range, all customers, newest first",
		Fields:    "`ordersByStatus`",
		Operation: repository.Query, Index: repository.GSI3, PartitionKey: "ORDERSTATUS#<status>#<shard>", Sort: repository.SortKeyBetween, SortKey: []string{"<lo>", "<hi>"},
		Backward: true, Calls: repository.PerShard,
		Notes: "N Queries in parallel, one per shard, merged by order id behind one cursor; N = `ORDER_STATUS_SHARDS`"})
	AccountsOfRep = repository.Declare(repository.AccessPattern{ID: "AP26", Name: "AccountsOfRep", What: "customers by account rep, paged",
		Fields:    "`Employee.accounts`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "EMP#<e>#ACCOUNTS", Calls: repository.PerParent,
		Notes: "by name; a customer's rep (`Customer.accountRep`) is read by key, batched"})
	OrdersOfRep = repository.Declare(repository.AccessPattern{ID: "AP27", Name: "OrdersOfRep", What: "orders by account rep and date, newest first; optional status",
		Fields:    "`Employee.accountOrders`",
		Operation: repository.Query, Index: repository.GSI2, PartitionKey: "EMP#<e>#ORDERS", Sort: repository.SortKeyBetween, SortKey: []string{"<lo>", "<hi>"},
		Backward: true, Filter: "status = <status>", Calls: repository.PerParent,
		Notes: "the filter only with a status; pages stay full: the Query reads on"})
	RepSalesOfMonth = repository.Declare(repository.AccessPattern{ID: "AP28", Name: "RepSalesOfMonth", What: "account reps ranked by sales over a range of months",
		Fields:    "`topAccountReps(from, to, first)`",
		Operation: repository.Query, PartitionKey: "REPSALES#<yyyy-mm>", Calls: repository.PerMonth,
		Notes: "one Query per month of the range, in parallel (every rep's total of the month), summed and ranked; totals kept in the order's and the cancellation's transaction; the reps by key, batched"})
	// CountersOfParent is the access pattern of a connection's totalCount: the counters on the
	// item of the list's parent, which the operation has read already.
	CountersOfParent = repository.Declare(repository.AccessPattern{ID: "AP22", Name: "CountersOfParent", What: "the size of a counted list",
		Fields:    "`totalCount` of `Organization.users`, `User.tickets`, `Department.employees`, `Employee.directReports`, `Customer.orders`",
		Operation: repository.NoCall,
		Notes:     "counters on the list's parent item (`userCount`; `openTickets`, `pendingTickets`, `closedTickets`; `employeeCount`; `directReportCount`; `openOrders`, `shippedOrders`, `deliveredOrders`, `cancelledOrders`), changed in the same transaction as every write of the collection, which the list's read has at hand; `null` with a time range, on the lists no counter follows, and on items written before counters existed until `-recount`"})
	OrderItemsOfProduct = repository.Declare(repository.AccessPattern{ID: "AP25", Name: "OrderItemsOfProduct", What: "a product's order lines, newest first, paged",
		Fields:    "`Product.orderItems`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "PRODUCT#<p>#ORDERITEMS", Backward: true, Calls: repository.PerParent})
)
