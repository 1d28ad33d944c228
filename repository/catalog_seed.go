package repository

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The catalog part of the sample dataset: six products stocked in two warehouses. The sample
// orders' lines name these products and warehouses, so a product's order items list them.

// sampleCatalogAt is when the sample catalog was created.
var sampleCatalogAt = time.Date(2026, 1, 20, 8, 0, 0, 0, time.UTC)

var sampleProducts = []OrderLine{
	{SKU: "BK-0001", ProductName: "The DynamoDB Book", UnitPriceCents: 7900},
	{SKU: "MUG-042", ProductName: "Single-table mug", UnitPriceCents: 1450},
	{SKU: "TS-ORG-M", ProductName: "One-to-many T-shirt (M)", UnitPriceCents: 2200},
	{SKU: "STK-PACK", ProductName: "Sticker pack", UnitPriceCents: 399},
	{SKU: "KB-65", ProductName: "65% mechanical keyboard", UnitPriceCents: 12900},
	{SKU: "CBL-USBC", ProductName: "USB-C cable", UnitPriceCents: 990},
}

var sampleWarehouses = []Warehouse{{Name: "São Paulo DC", Region: "sa-east"}, {Name: "Rotterdam DC", Region: "eu-west"}}

func sampleProductID(sku string) string { return seedID(sampleCatalogAt, "product/"+sku) }

func sampleWarehouseID(i int) string {
	return seedID(sampleCatalogAt.Add(time.Hour), "warehouse/"+sampleWarehouses[i].Name)
}

// sampleLine is sample product i as an order line taking its stock from warehouse w.
func sampleLine(i, w int) OrderLine {
	l := sampleProducts[i]
	l.ProductID, l.WarehouseID = sampleProductID(l.SKU), sampleWarehouseID(w)
	return l
}

// catalogSampleItems are the warehouses, the products and their stock (every product in both
// warehouses, of fixed quantities), with each product's totalInventory the sum of its stock.
func CatalogSampleItems() ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for i := range sampleWarehouses {
		w := sampleWarehouses[i]
		w.ID, w.CreatedAt = sampleWarehouseID(i), sampleCatalogAt.Add(time.Hour)
		item, err := warehouseEntity.Encode(&w)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	for pi, l := range sampleProducts {
		p := &Product{ID: sampleProductID(l.SKU), Name: l.ProductName, SKU: l.SKU, CreatedAt: sampleCatalogAt}
		for wi := range sampleWarehouses {
			inv := &Inventory{ProductID: p.ID, WarehouseID: sampleWarehouseID(wi), Quantity: (pi*7+wi*5)%40 + 5}
			p.TotalInventory += inv.Quantity
			item, err := inventoryEntity.Encode(inv)
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		item, err := productEntity.Encode(p)
		if err != nil {
			return nil, err
		}
		items = append(items, item, productSKUGuardItem(p))
	}
	return items, nil
}

// sampleReps are the account reps of the sample customers, by name: HR's account executives.
var sampleReps = map[string]string{"Ana Souza": "Dale Carnegie", "Bruno Díaz": "Dale Carnegie", "Chen Wei": "Zig Ziglar"}

// assignSampleReps gives the sample customers their account reps: each customer and its orders
// carry the rep (re-encoded, so with their index keys), and the reps' sales per month are
// summed from the orders that are not cancelled, as placing them would have.
func AssignSampleReps(items []map[string]types.AttributeValue, shards int) ([]map[string]types.AttributeValue, error) {
	employees, reps := map[string]string{}, map[string]string{}
	for _, it := range items {
		if StringAttr(it, AttrType) == TypeEmployee {
			employees[StringAttr(it, "name")] = StringAttr(it, "id")
		}
	}
	sales := map[Key]*RepSales{}
	for i, it := range items {
		e, err := DecodeEntity(it)
		if err != nil || (StringAttr(it, AttrType) != TypeCustomer && StringAttr(it, AttrType) != TypeOrder) {
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
			if items[i], err = orderEntity.encodeSharded(v, shards); err != nil {
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
	keys := slices.SortedFunc(maps.Keys(sales), func(a, b Key) int { return cmp.Or(strings.Compare(a.PK, b.PK), strings.Compare(a.SK, b.SK)) })
	for _, k := range keys {
		item, err := RepSalesEntity.Encode(sales[k])
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}
