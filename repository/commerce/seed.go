package commerce

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/hr"
)

// CommerceSampleItems is the commerce part of the sample dataset: three customers with their
// mailing addresses, each with four orders in every status, of one to three lines (the account
// reps' history, reps_seed.go, adds older ones). Orders are placed on their GSI3 shards for
// N = shards, the ORDER_STATUS_SHARDS of the seeding server.
func CommerceSampleItems(shards int) ([]map[string]types.AttributeValue, error) {
	base := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	customers := []struct {
		name      string
		addresses []MailingAddress
	}{
		{"Ana Souza", []MailingAddress{
			{Label: "Home", Line1: "Rua Augusta, 1500", Line2: "Apto 42", City: "São Paulo", State: "SP", PostalCode: "01304-001", Country: "BR"},
			{Label: "Work", Line1: "Avenida Paulista, 1000", City: "São Paulo", State: "SP", PostalCode: "01310-100", Country: "BR"},
		}},
		{"Bruno Díaz", []MailingAddress{
			{Label: "Casa", Line1: "Calle de Alcalá, 45", City: "Madrid", PostalCode: "28014", Country: "ES"},
		}},
		{"Chen Wei", []MailingAddress{
			{Label: "Home", Line1: "88 Century Avenue", Line2: "Floor 12", City: "Shanghai", PostalCode: "200120", Country: "CN"},
			{Label: "Parents", Line1: "16 Wenhua Road", City: "Hangzhou", State: "Zhejiang", PostalCode: "310012", Country: "CN"},
			{Label: "Office", Line1: "1 Harbour Road", City: "Hong Kong", Country: "HK"},
		}},
	}
	statuses := []OrderStatus{OrderDelivered, OrderCancelled, OrderShipped, OrderOpen}
	var items []map[string]types.AttributeValue
	for ci, c := range customers {
		at := base.Add(time.Duration(ci) * time.Hour)
		first := strings.ToLower(strings.Fields(c.name)[0])
		cust := &Customer{ID: repository.SeedID(at, "customer/"+c.name), Name: c.name, Email: first + "@shop.example", Addresses: c.addresses, CreatedAt: at}
		item, err := customerEntity.Encode(cust)
		if err != nil {
			return nil, err
		}
		items = append(items, item, customerEmailGuardItem(cust))
		for oi, status := range statuses {
			placed := at.Add(time.Duration(oi*5+ci+1) * 24 * time.Hour)
			var lines []OrderLine
			for li := range 1 + (oi+ci)%3 {
				// The first five sample products, from one of the two warehouses.
				l := sampleLine((oi+ci+li*2)%5, (oi+ci)%2)
				l.Quantity = 1 + (li+oi)%3
				lines = append(lines, l)
			}
			o := &Order{
				ID: repository.SeedID(placed, fmt.Sprintf("order/%s/%d", c.name, oi)), CustomerID: cust.ID, Status: status,
				PlacedAt: placed, UpdatedAt: placed.Add(time.Duration(oi) * time.Hour),
				IdempotencyKey: fmt.Sprintf("seed-%s-%d", first, oi),
			}
			order, err := sampleOrderItems(o, lines, shards)
			if err != nil {
				return nil, err
			}
			items = append(items, order...)
		}
	}
	return items, nil
}

// sampleOrderItems are the items placing order o with lines writes: the order on its status shard
// (N = shards), its idempotency guard and its lines. It sets o's total and item count from the
// lines, as placing it would.
func sampleOrderItems(o *Order, lines []OrderLine, shards int) ([]map[string]types.AttributeValue, error) {
	lines, total, err := cleanOrderLines(lines)
	if err != nil {
		return nil, err
	}
	o.TotalCents, o.ItemCount = total, len(lines)
	item, err := orderEntity.EncodeSharded(o, shards)
	if err != nil {
		return nil, err
	}
	items := []map[string]types.AttributeValue{item, idempotencyGuardItem(o, orderRequestHash(o.CustomerID, lines))}
	for li, l := range lines {
		it := &OrderItem{CustomerID: o.CustomerID, OrderID: o.ID, Line: li + 1, SKU: l.SKU, ProductName: l.ProductName, Quantity: l.Quantity, UnitPriceCents: l.UnitPriceCents,
			ProductID: l.ProductID, WarehouseID: l.WarehouseID}
		item, err := orderItemEntity.Encode(it)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// sampleLine is sample product i as an order line taking its stock from warehouse w.
func sampleLine(i, w int) OrderLine {
	p := catalog.SampleProducts[i]
	return OrderLine{SKU: p.SKU, ProductName: p.Name, UnitPriceCents: p.PriceCents, ProductID: catalog.SampleProductID(p.SKU), WarehouseID: catalog.SampleWarehouseID(w)}
}

// sampleReps are the account reps of the sample customers, by name: HR's account executives.
var sampleReps = map[string]string{"Ana Souza": "Dale Carnegie", "Bruno Díaz": "Dale Carnegie", "Chen Wei": "Zig Ziglar"}

// AssignSampleReps gives the sample customers their account reps: each customer and its orders
// carry the rep (re-encoded, so with their index keys), and the reps' sales per month are
// summed from the orders that are not cancelled, as placing them would have.
func AssignSampleReps(items []map[string]types.AttributeValue, shards int) ([]map[string]types.AttributeValue, error) {
	employees, reps := map[string]string{}, map[string]string{}
	for _, it := range items {
		if repository.StringAttr(it, repository.AttrType) == hr.TypeEmployee {
			employees[repository.StringAttr(it, "name")] = repository.StringAttr(it, "id")
		}
	}
	sales := map[repository.Key]*RepSales{}
	for i, it := range items {
		e, err := repository.DecodeEntity(it)
		if err != nil || (repository.StringAttr(it, repository.AttrType) != TypeCustomer && repository.StringAttr(it, repository.AttrType) != TypeOrder) {
			continue
		}
		switch v := e.(type) {
		case *Customer:
			v.AccountRepID = employees[sampleReps[v.Name]]
			reps[v.ID] = v.AccountRepID
			if items[i], err = customerEntity.Encode(v); err != nil { // its counters with it
				return nil, err
			}
		case *Order:
			v.AccountRepID = reps[v.CustomerID]
			if items[i], err = orderEntity.EncodeSharded(v, shards); err != nil {
				return nil, err
			}
			if v.Status == OrderCancelled || v.AccountRepID == "" {
				continue
			}
			k := repSalesKey(SalesMonth(v.PlacedAt), v.AccountRepID)
			if sales[k] == nil {
				sales[k] = &RepSales{RepID: v.AccountRepID, Month: SalesMonth(v.PlacedAt)}
			}
			sales[k].TotalCents += v.TotalCents
			sales[k].Orders++
		}
	}
	// In key order, so that the sample data (and the workbench model generated from it) is the
	// same on every run.
	keys := slices.SortedFunc(maps.Keys(sales), func(a, b repository.Key) int { return cmp.Or(strings.Compare(a.PK, b.PK), strings.Compare(a.SK, b.SK)) })
	for _, k := range keys {
		item, err := RepSalesEntity.Encode(sales[k])
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}
