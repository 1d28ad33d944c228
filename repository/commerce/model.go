package commerce

import (
	"errors"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// The Commerce domain, Customer → Orders → order items. The entity definitions below say how each
// item is keyed (the key table in docs/data-model.md is generated from them); CustomerEmail and
// OrderIdempotency guard items make a customer's email and a placeOrder idempotency key unique.
//
// Mailing addresses are a list attribute of the customer item. Orders and their items share the
// customer's item collection: read newest first from the top, the collection yields the
// customer, then each order's items followed by the order itself, so one Query answers "a
// customer with its newest orders and their items". Order ids are time-sortable, which turns
// placedAfter/placedBefore into a sort key range.

// MailingAddress is one saved address of a customer. Line2, State and PostalCode are optional
// (empty when absent: not every country has states or postal codes).
type MailingAddress struct {
	Label      string `dynamodbav:"label"`
	Line1      string `dynamodbav:"line1"`
	Line2      string `dynamodbav:"line2,omitempty"`
	City       string `dynamodbav:"city"`
	State      string `dynamodbav:"state,omitempty"`
	PostalCode string `dynamodbav:"postalCode,omitempty"`
	Country    string `dynamodbav:"country"`
}

// Customer is a shopper's account.
//
// Its mailing addresses live inside the customer item as a list attribute, which is right when
// two questions both answer no:
//   - Is there an access pattern on the addresses' values? No: nothing looks a customer up by
//     address; addresses are only ever shown with their customer (a checkout page), so reading
//     them with the customer item costs nothing extra.
//   - Is the amount of data unbounded? No: a customer keeps at most MaxMailingAddresses (20)
//     addresses of bounded length, far below the 400 KB item limit; the bound is enforced by
//     the condition of every write that adds one, so it holds under concurrent writers too.
type Customer struct {
	ID        string           `dynamodbav:"id"`
	Name      string           `dynamodbav:"name"`
	Email     string           `dynamodbav:"email"`
	Addresses []MailingAddress `dynamodbav:"mailingAddresses"`
	CreatedAt time.Time        `dynamodbav:"createdAt"`
	// The counters of the customer's orders by status; Counted says they are exact
	// (counters.go).
	OpenOrders      int  `dynamodbav:"openOrders"`
	ShippedOrders   int  `dynamodbav:"shippedOrders"`
	DeliveredOrders int  `dynamodbav:"deliveredOrders"`
	CancelledOrders int  `dynamodbav:"cancelledOrders"`
	Counted         bool `dynamodbav:"counted"`
	// AccountRepID is the employee who looks after the account, if any (assignAccountRep).
	AccountRepID string `dynamodbav:"accountRepId,omitempty"`
}

// Key implements Entity.
func (c *Customer) Key() repository.Key { return customerEntity.Key(c) }

// customerEntity is the definition of the Customer item: the profile item of its collection, which
// sorts after the customer's orders and their items (AP15–AP17), listed by name on GSI2 (AP7).
// Its addresses are a list attribute of the item.
var customerEntity = repository.Define(repository.EntityDef[Customer, *Customer]{
	Name: TypeCustomer,
	Key:  func(c *Customer) repository.Key { return CustomerKeyOf(c.ID) },
	Indexes: func(c *Customer, _ int) []repository.IndexKey {
		ix := []repository.IndexKey{{Index: repository.GSI2, PK: repository.TypePK(TypeCustomer), SK: repository.NameSortKey(c.Name, c.ID)}}
		if c.AccountRepID != "" { // its rep's accounts (AP26)
			ix = append(ix, repository.IndexKey{Index: repository.GSI1, PK: repAccountsPK(c.AccountRepID), SK: repository.NameSortKey(c.Name, c.ID)})
		}
		return ix
	},
	// Always a list, never NULL or absent, so that list_append and size() apply to it.
	Fix: func(c *Customer, item map[string]types.AttributeValue) {
		if len(c.Addresses) == 0 {
			item["mailingAddresses"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
		}
	},
	Examples: func() []*Customer {
		return []*Customer{{ID: "<customerId>", Name: "<name>"}, {ID: "<customerId>", Name: "<name>", AccountRepID: "<employeeId>"}}
	},
})

// CustomerKey is the key of a customer looked up by id (AP15).
func CustomerKey(customer string) (repository.Key, error) {
	if err := repository.CheckID("id", customer); err != nil {
		return repository.Key{}, err
	}
	return CustomerKeyOf(customer), nil
}

func customerEmailGuardItem(c *Customer) map[string]types.AttributeValue {
	item := customerEmailGuardKey(c.Email).Attributes()
	item[repository.AttrType] = repository.StringValue(TypeCustomerEmail)
	item["customerId"] = repository.StringValue(c.ID)
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return customerEmailGuardItem(&Customer{ID: "<customerId>", Email: "<email>"})
}, nil)

// cleanAddress checks and trims one address; field prefixes the names of its fields in errors
// (for example "address" or "mailingAddresses[2]").
func cleanAddress(field string, a MailingAddress) (MailingAddress, error) {
	var err error
	clean := func(name string, v *string, minLen, maxLen int) {
		if err == nil {
			*v, err = repository.CleanText(field+"."+name, *v, minLen, maxLen, false)
		}
	}
	clean("label", &a.Label, 1, repository.MaxAddressLabelLen)
	clean("line1", &a.Line1, 1, repository.MaxAddressLineLen)
	clean("line2", &a.Line2, 0, repository.MaxAddressLineLen)
	clean("city", &a.City, 1, repository.MaxCityLen)
	clean("state", &a.State, 0, repository.MaxStateLen)
	clean("postalCode", &a.PostalCode, 0, repository.MaxPostalCodeLen)
	clean("country", &a.Country, 1, repository.MaxCountryLen)
	return a, err
}

// OrderStatus is the state of an order.
type OrderStatus string

func (s OrderStatus) valid() bool {
	return s == OrderOpen || s == OrderShipped || s == OrderDelivered || s == OrderCancelled
}

// orderStatusFrom is the one status each status may be reached from; OPEN is reached from none.
var orderStatusFrom = map[OrderStatus]OrderStatus{
	OrderShipped:   OrderOpen,
	OrderDelivered: OrderShipped,
	OrderCancelled: OrderOpen,
}

// Order is placed by a customer. Its id is time-sortable, so its sort key orders a customer's
// orders by placement time. TotalCents is computed from the lines when the order is placed.
type Order struct {
	ID             string      `dynamodbav:"id"`
	CustomerID     string      `dynamodbav:"customerId"`
	Status         OrderStatus `dynamodbav:"status"`
	PlacedAt       time.Time   `dynamodbav:"placedAt"`
	UpdatedAt      time.Time   `dynamodbav:"updatedAt"`
	TotalCents     int64       `dynamodbav:"totalCents"`
	ItemCount      int         `dynamodbav:"itemCount"`
	IdempotencyKey string      `dynamodbav:"idempotencyKey"`
	// Stocked says some line took stock (names a product), which cancelling gives back.
	Stocked bool `dynamodbav:"stocked,omitempty"`
	// AccountRepID is the customer's account rep when the order was placed: the rep it counts for.
	AccountRepID string `dynamodbav:"accountRepId,omitempty"`
}

// Key implements Entity.
func (o *Order) Key() repository.Key { return orderEntity.Key(o) }

// orderEntity is the definition of the Order item: in its customer's collection, newest first by its
// time-sortable id (AP16); by status on the customer's GSI1 partition; and on one of N
// write-sharded GSI3 partitions of its status (AP20).
var orderEntity = repository.Define(repository.EntityDef[Order, *Order]{
	Name:    TypeOrder,
	Key:     func(o *Order) repository.Key { return OrderKeyOf(o.CustomerID, o.ID) },
	Sharded: true,
	Indexes: func(o *Order, shards int) []repository.IndexKey {
		ix := []repository.IndexKey{
			{Index: repository.GSI1, PK: customerOrdersPK(o.CustomerID), SK: orderStatusGSI1SK(o.Status, o.ID)},
			{Index: repository.GSI3, PK: orderStatusShardPK(o.Status, orderStatusShard(o.ID, shards)), SK: o.ID},
		}
		if o.AccountRepID != "" { // the orders of its rep (AP27)
			ix = append(ix, repository.IndexKey{Index: repository.GSI2, PK: RepOrdersPK(o.AccountRepID), SK: o.ID})
		}
		return ix
	},
	Examples: func() []*Order {
		return []*Order{{ID: "<orderId>", CustomerID: "<customerId>", Status: "<status>"},
			{ID: "<orderId>", CustomerID: "<customerId>", Status: "<status>", AccountRepID: "<employeeId>"}}
	},
	// The examples are encoded with one shard.
	Placeholders: map[string]string{"#<status>#0": "#<status>#<shard>"},
})

// ItemKeys are the keys of the order's items, line 1 first: an order knows how many lines it
// has, so its items can be looked up by key (batched) when they were not read with the order.
func (o *Order) ItemKeys() []repository.Key {
	keys := make([]repository.Key, o.ItemCount)
	pk := customerPK(o.CustomerID) // the same for every line: built once
	for i := range keys {
		keys[i] = repository.Key{PK: pk, SK: orderItemSK(o.ID, i+1)}
	}
	return keys
}

// OrderItem is one line of an order.
type OrderItem struct {
	CustomerID     string `dynamodbav:"customerId"`
	OrderID        string `dynamodbav:"orderId"`
	Line           int    `dynamodbav:"line"`
	SKU            string `dynamodbav:"sku"`
	ProductName    string `dynamodbav:"productName"`
	Quantity       int    `dynamodbav:"quantity"`
	UnitPriceCents int64  `dynamodbav:"unitPriceCents"`
	// ProductID and WarehouseID name the stock the line took, when it names a product (both, or
	// neither: a free-text line).
	ProductID   string `dynamodbav:"productId,omitempty"`
	WarehouseID string `dynamodbav:"warehouseId,omitempty"`
}

// Key implements Entity.
func (i *OrderItem) Key() repository.Key { return orderItemEntity.Key(i) }

// orderItemEntity is the definition of an order's line item: right after its order in the customer's
// collection, so that a newest-first Query reads each order's items just before the order (AP17).
var orderItemEntity = repository.Define(repository.EntityDef[OrderItem, *OrderItem]{
	Name: TypeOrderItem,
	Key:  func(i *OrderItem) repository.Key { return orderItemKey(i.CustomerID, i.OrderID, i.Line) },
	// A line that names a product is also in the product's partition of GSI1, under the same sort
	// key, so a product's order items are one Query, newest first (AP25).
	Indexes: func(i *OrderItem, _ int) []repository.IndexKey {
		if i.ProductID == "" {
			return nil
		}
		return []repository.IndexKey{{Index: repository.GSI1, PK: productOrderItemsPK(i.ProductID), SK: orderItemSK(i.OrderID, i.Line)}}
	},
	Examples: func() []*OrderItem {
		return []*OrderItem{
			{CustomerID: "<customerId>", OrderID: "<orderId>", Line: 1},
			{CustomerID: "<customerId>", OrderID: "<orderId>", Line: 1, ProductID: "<productId>", WarehouseID: "<warehouseId>"},
		}
	},
	// Line numbers are written with three digits, so that lines sort in order.
	Placeholders: map[string]string{"#ITEM#001": "#ITEM#<line>"},
})

// OrderKey is the key of an order looked up by customer and order id (AP18).
func OrderKey(customer, order string) (repository.Key, error) {
	if err := errors.Join(repository.CheckID("id", customer), repository.CheckID("id", order)); err != nil {
		return repository.Key{}, apperr.InvalidInput("id", "not a valid order id")
	}
	return OrderKeyOf(customer, order), nil
}

// orderStatusShard is the shard of an order on the status index: a hash of its id, so it is fixed
// for the order's life (a status change only rewrites the status part of GSI3PK) and spreads
// orders evenly whatever their customers or times. A random shard would spread as well, but it
// would have to be read back before every status change; a hash is recomputed from the key.
func orderStatusShard(order string, shards int) int {
	h := fnv.New32a()
	h.Write([]byte(order))
	return int(h.Sum32() % uint32(shards))
}

// idempotencyGuard is the item that ties one idempotency key of a customer to the order it
// placed, with a hash of the request so that a reuse of the key for another request is told apart
// from a retry.
type idempotencyGuard struct {
	OrderID     string `dynamodbav:"orderId"`
	RequestHash string `dynamodbav:"requestHash"`
}

func idempotencyGuardItem(o *Order, requestHash string) map[string]types.AttributeValue {
	item := orderIdempotencyKey(o.CustomerID, o.IdempotencyKey).Attributes()
	item[repository.AttrType] = repository.StringValue(TypeOrderIdempotency)
	item["orderId"] = repository.StringValue(o.ID)
	item["requestHash"] = repository.StringValue(requestHash)
	item["createdAt"] = repository.StringValue(o.PlacedAt.Format(time.RFC3339Nano))
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return idempotencyGuardItem(&Order{ID: "<orderId>", CustomerID: "<customerId>", IdempotencyKey: "<key>"}, "<hash>")
}, nil)

// OrderLine is one line of a placeOrder request.
type OrderLine struct {
	SKU            string
	ProductName    string
	Quantity       int
	UnitPriceCents int64
	// ProductID and WarehouseID, both or neither, name the stock the line takes. Left out of the
	// request hash when empty, so that the hash of a free-text line is what it always was.
	ProductID   string `json:",omitempty"`
	WarehouseID string `json:",omitempty"`
}

// --- Keys: how the commerce domain's items are spelled in the table ---

// Item types of the commerce domain, stored in the `type` attribute.
const (
	TypeCustomer         = "Customer"
	TypeCustomerEmail    = "CustomerEmail"
	TypeOrder            = "Order"
	TypeOrderItem        = "OrderItem"
	TypeOrderIdempotency = "OrderIdempotency"
)

func customerPK(customer string) string { return repository.Join("CUST", customer) }

// customerProfileSK is the sort key of the customer's own item. It sorts after every order and
// order item of the collection ("PROFILE" > "ORDER#…"), so a newest-first Query from the top of
// the collection reads the customer first and then its newest orders with their items (like the
// user item of AP5, which sorts last on GSI1).
const customerProfileSK = "PROFILE"

func CustomerKeyOf(customer string) repository.Key {
	return repository.Key{PK: customerPK(customer), SK: customerProfileSK}
}

const orderSKPrefix = "ORDER#"

// orderSK is an order's sort key in its customer's collection. Order ids are time-sortable, so
// the sort key orders a customer's orders by placement time (AP16).
func orderSK(order string) string { return orderSKPrefix + order }

func OrderKeyOf(customer, order string) repository.Key {
	return repository.Key{PK: customerPK(customer), SK: orderSK(order)}
}

// orderItemKey is the key of line n (1-based) of an order: ORDER#<o>#ITEM#<nnn>. It sorts right
// after its order's own sort key and before the next newer order's, so read newest first an
// order's items come just before the order item itself (AP17 read together with AP16).
func orderItemKey(customer, order string, line int) repository.Key {
	return repository.Key{PK: customerPK(customer), SK: orderItemSK(order, line)}
}

// orderItemSK is the sort key of line n of an order, built with one concatenation.
func orderItemSK(order string, line int) string {
	pad, n := lineNumber(line)
	return orderSKPrefix + order + repository.Delim + "ITEM" + repository.Delim + pad + n
}

// lineNumber is n (a line number, 1 or more) with at least three digits ("007", as the zeros to
// put before n and n), so that lines sort in order up to 999. The caller builds the key with one
// concatenation, one allocation.
func lineNumber(n int) (pad, digits string) {
	digits = strconv.Itoa(n)
	return "00"[:max(0, 3-len(digits))], digits
}

// orderRangeEnd is the upper bound of the sort keys of order hi and its items: '~' sorts after
// '#' and after every character of an id.
func orderRangeEnd(hi string) string { return orderSK(hi) + "~" }

// customerOrdersPK is a customer's orders on GSI1, sorted by status and then id (so by date within
// a status), for a customer's orders with a status filter.
func customerOrdersPK(customer string) string { return repository.Join("CUST", customer, "ORDERS") }

func orderStatusGSI1SK(status OrderStatus, order string) string {
	return repository.Join(string(status), order)
}

// orderStatusShardPK is one of the N partitions of a status on the write-sharded GSI3 (AP20,
// see read_status.go for why it is sharded); GSI3SK is the order id.
func orderStatusShardPK(status OrderStatus, shard int) string {
	return repository.Join("ORDERSTATUS", string(status), strconv.Itoa(shard))
}

// customerEmailGuardKey is the item that makes a customer's email unique (compared without
// regard to case), in a partition of its own.
func customerEmailGuardKey(email string) repository.Key {
	return repository.Key{PK: repository.Join("CUSTEMAIL", repository.FoldKey(email)), SK: "CUSTEMAIL"}
}

// orderIdempotencyKey is the guard item of one idempotency key of one customer: it holds the
// order the key placed. The key is client text, compared exactly (escaped, not case-folded).
func orderIdempotencyKey(customer, key string) repository.Key {
	return repository.Key{PK: repository.Join("IDEMPOTENCY", customer, repository.Escape(key)), SK: "IDEMPOTENCY"}
}

// ProductOrderItemsPK is the GSI1 partition of a product's order lines (AP25), for readers that
// spell their own Query (the benchmark's direct floor) and must not drift from the API's key.
func ProductOrderItemsPK(product string) (string, error) {
	if err := repository.CheckID("id", product); err != nil {
		return "", err
	}
	return productOrderItemsPK(product), nil
}

// productOrderItemsPK is a product's order items on GSI1 (AP25): every order line that names the
// product, sorted by its sort key in the customer's collection (ORDER#<o>#ITEM#<nnn>), so by
// order time; read backwards, newest first.
func productOrderItemsPK(p string) string { return repository.Join("PRODUCT", p, "ORDERITEMS") }
