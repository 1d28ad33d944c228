package planner

// Operation is the DynamoDB operation a read makes.
type Operation string

// The operations the API reads with (it never scans).
const (
	Query        Operation = "Query"
	BatchGetItem Operation = "BatchGetItem"
	GetItem      Operation = "GetItem"
)

// Scaling says how a read's calls grow with an operation.
type Scaling int

const (
	// PerParent is one call per parent object and page: a list's Query. A root list has one
	// parent, the operation.
	PerParent Scaling = iota + 1
	// PerShard is one Query per shard of the order-status index and page: N = ORDER_STATUS_SHARDS
	// (ordersByStatus, AP20).
	PerShard
	// PerMonth is one Query per month of a ranking's range, at most repository.MaxRankingMonths
	// (topAccountReps, AP28): counted at that bound.
	PerMonth
	// PerLevel is ⌈keys / 100⌉ BatchGetItem calls for the unique keys that every object of one
	// level asks for together, keys the operation has read already excluded (they are primed).
	PerLevel
)

// A Read is one access pattern as the API runs it: a row of the access-pattern table of the README
// and docs/data-model.md (Pattern "AP1" … "AP33"; AP22 makes no call: see CountersOfParent), with the DynamoDB operation, the index (""
// for the table) and the key condition it uses, and how its calls scale. A read's calls are
// counted for pages that fit one call; a Query whose page needs more (a status filter that skips
// items, a customer's orders with more items than the first call assumes, 1 MB of items) makes
// more, page by page.
type Read struct {
	Pattern      string
	Operation    Operation
	Index        string
	KeyCondition string
	Calls        Scaling
}

// The reads of the API, by access pattern. Lookups by key are BatchGetItem, batched per level.
var (
	OrganizationByKey = Read{"AP1", BatchGetItem, "", "PK = ORG#<o>, SK = METADATA#<o>", PerLevel}
	// OrganizationWithUsers is an organization by ID read with its first page of users.
	OrganizationWithUsers = Read{"AP2", Query, "", "PK = ORG#<o>", PerParent}
	UsersOfOrganization   = Read{"AP3", Query, "", `PK = ORG#<o> AND begins_with(SK, "USER#")`, PerParent}
	UserByKey             = Read{"AP4", BatchGetItem, "", "PK = ORG#<o>, SK = USER#<u>", PerLevel}
	TicketsOfUser         = Read{"AP5", Query, "GSI1", `GSI1PK = ORG#<o>#USER#<u> AND begins_with(GSI1SK, "TICKET#")`, PerParent}
	// UserWithTickets is a user by ID read with its first page of tickets: the user item sorts
	// last on GSI1, so it comes first backwards.
	UserWithTickets        = Read{"AP5", Query, "GSI1", "GSI1PK = ORG#<o>#USER#<u> AND GSI1SK <= USER#<u>", PerParent}
	TicketByKey            = Read{"AP6", BatchGetItem, "", "PK = TICKET#<t>, SK = ORG#<o>", PerLevel}
	OrganizationsByName    = Read{"AP7", Query, "GSI2", "GSI2PK = TYPE#Organization", PerParent}
	DepartmentsByName      = Read{"AP7", Query, "GSI2", "GSI2PK = TYPE#Department", PerParent}
	CustomersByName        = Read{"AP7", Query, "GSI2", "GSI2PK = TYPE#Customer", PerParent}
	DepartmentByKey        = Read{"AP8", BatchGetItem, "", "PK = SK = DEPT#<d>", PerLevel}
	MembersOfDepartment    = Read{"AP9", Query, "GSI1", "GSI1PK = DEPT#<d>#REL#DEPARTMENT", PerParent}
	MemberByKey            = Read{"AP9", BatchGetItem, "", "PK = SK = EMP#<e>", PerLevel}
	RelationByKey          = Read{"AP10", BatchGetItem, "", "PK = EMP#<e>, SK = REL#DEPARTMENT / REL#MANAGER / REL#MENTOR", PerLevel}
	RelationTargetByKey    = Read{"AP10", BatchGetItem, "", "PK = SK = DEPT#<d> / EMP#<e>", PerLevel}
	ReportsOfManager       = Read{"AP11", Query, "GSI1", "GSI1PK = EMP#<m>#REL#MANAGER", PerParent}
	MenteesOfMentor        = Read{"AP11", Query, "GSI1", "GSI1PK = EMP#<t>#REL#MENTOR", PerParent}
	ReportByKey            = Read{"AP11", BatchGetItem, "", "PK = SK = EMP#<e>", PerLevel}
	EmployeesByJobTitle    = Read{"AP12", Query, "GSI1", "GSI1PK = JOBTITLE#<title>", PerParent}
	EmployeesHiredSince    = Read{"AP13", Query, "GSI2", "GSI2PK = TYPE#Employee AND GSI2SK >= <since>", PerParent}
	LocationsUnder         = Read{"AP14", Query, "", `PK = COUNTRY#<c> AND begins_with(SK, "<state>#<city>#…")`, PerParent}
	LocationByKey          = Read{"AP14", BatchGetItem, "", "PK = COUNTRY#<c>, SK = <state>#<city>#<postal>#<l>", PerLevel}
	CustomerByKey          = Read{"AP15", BatchGetItem, "", "PK = CUST#<c>, SK = PROFILE", PerLevel}
	OrdersOfCustomer       = Read{"AP16", Query, "", "PK = CUST#<c> AND SK BETWEEN ORDER#<lo> AND ORDER#<hi>~", PerParent}
	OrdersOfCustomerStatus = Read{"AP16", Query, "GSI1", "GSI1PK = CUST#<c>#ORDERS AND GSI1SK BETWEEN <status>#<lo> AND <status>#<hi>", PerParent}
	// CustomerWithOrders is a customer by ID read with its newest orders and their items.
	CustomerWithOrders = Read{"AP16", Query, "", "PK = CUST#<c> AND SK BETWEEN ORDER#<lo> AND PROFILE", PerParent}
	// OrderWithItems is an order by ID read with its items.
	OrderWithItems = Read{"AP17", Query, "", "PK = CUST#<c> AND SK BETWEEN ORDER#<o> AND ORDER#<o>~", PerParent}
	OrderItemByKey = Read{"AP17", BatchGetItem, "", "PK = CUST#<c>, SK = ORDER#<o>#ITEM#<nnn>", PerLevel}
	OrderByKey     = Read{"AP18", BatchGetItem, "", "PK = CUST#<c>, SK = ORDER#<o>", PerLevel}
	// EmployeeByKey reads the employee item, which carries its department's name (AP19).
	EmployeeByKey  = Read{"AP19", BatchGetItem, "", "PK = SK = EMP#<e>", PerLevel}
	OrdersByStatus = Read{"AP20", Query, "GSI3", "GSI3PK = ORDERSTATUS#<status>#<shard> AND GSI3SK BETWEEN <lo> AND <hi>", PerShard}
	// TicketByIDRead finds a ticket's organization from its id alone, for a ticket ID handed out
	// before IDs carried it, asked by a caller who sees every organization (AP6).
	TicketByIDRead = Read{"AP6", Query, "", `PK = TICKET#<t> AND begins_with(SK, "ORG#")`, PerParent}
	// VersionsOfTicket is a ticket's history, newest first (read backwards).
	VersionsOfTicket = Read{"AP21", Query, "", `PK = TICKET#<t> AND begins_with(SK, "VERSION#<o>#")`, PerParent}
)

// The catalog's reads.
var (
	ProductByKey           = Read{"AP23", BatchGetItem, "", "PK = SK = PRODUCT#<p>", PerLevel}
	WarehouseByKey         = Read{"AP23", BatchGetItem, "", "PK = SK = WAREHOUSE#<w>", PerLevel}
	ProductsByName         = Read{"AP7", Query, "GSI2", "GSI2PK = TYPE#Product", PerParent}
	WarehousesByName       = Read{"AP7", Query, "GSI2", "GSI2PK = TYPE#Warehouse", PerParent}
	InventoryOfProduct     = Read{"AP24", Query, "", `PK = PRODUCT#<p> AND begins_with(SK, "INV#")`, PerParent}
	OrderItemsOfProduct    = Read{"AP25", Query, "GSI1", "GSI1PK = PRODUCT#<p>#ORDERITEMS", PerParent}
	AccountsOfRep          = Read{"AP26", Query, "GSI1", "GSI1PK = EMP#<e>#ACCOUNTS", PerParent}
	OrdersOfRep            = Read{"AP27", Query, "GSI2", "GSI2PK = EMP#<e>#ORDERS AND GSI2SK BETWEEN <lo> AND <hi> (status: a filter)", PerParent}
	JobHistoryOf           = Read{"AP29", Query, "", `PK = EMP#<e> AND begins_with(SK, "JH#")`, PerParent}
	RepSalesOfMonth        = Read{"AP28", Query, "", "PK = REPSALES#<yyyy-mm>, one Query per month of the range", PerMonth}
	EmployeesByName        = Read{"AP30", Query, "GSI3", "GSI3PK = EMPNAME#<name>", PerParent}
	EmployeesOfWarehouse   = Read{"AP31", Query, "GSI1", "GSI1PK = WAREHOUSE#<w>#REL#WAREHOUSE", PerParent}
	WarehouseEmployeeByKey = Read{"AP31", BatchGetItem, "", "PK = SK = EMP#<e>", PerLevel}
	// WarehouseOfEmployee is an employee's warehouse, by the warehouseId its item carries.
	WarehouseOfEmployee = Read{"AP32", BatchGetItem, "", "PK = SK = WAREHOUSE#<w> (the employee's warehouseId)", PerLevel}
	// ChangesOfScope is a page of a scope's change log (delta sync): a pull's page, and each page
	// of a subscription's replay. A narrowing argument (reporterId) may read more pages.
	ChangesOfScope = Read{"AP33", Query, "", "PK = CHANGES#<scope> AND SK > P#<position of the cursor>", PerParent}
)

// CountersOfParent is the access pattern of a connection's totalCount (a Free field): the
// counters on the item of the list's parent, which the operation has read already (AP22).
const CountersOfParent = "AP22"

// ByKey is the read of an object of each node type by its global ID (node, nodes, the typed
// lookups).
var ByKey = map[string]Read{
	"Organization": OrganizationByKey,
	"User":         UserByKey,
	"Ticket":       TicketByKey,
	"Customer":     CustomerByKey,
	"Order":        OrderByKey,
	"Department":   DepartmentByKey,
	"Employee":     EmployeeByKey,
	"Location":     LocationByKey,
	"Product":      ProductByKey,
	"Warehouse":    WarehouseByKey,
}
