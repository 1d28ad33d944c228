package repository

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// Stock taken by orders. A line of an order that names a product and a warehouse takes its
// quantity from that stock in the order's own transaction: an Update of the Inventory item that
// subtracts it on condition that the item holds at least that much, and an Update of the product's
// totalInventory. The condition is checked by DynamoDB as part of the transaction, so however many
// orders race for the last units, exactly as many as the stock allows succeed and the others are
// cancelled whole (CONFLICT with reason "stock", nothing written). A cancelled order gives its
// stock back the same way, in the transaction that cancels it.

// attrTotalInventory is the product's aggregate of its stock; attrQuantity an Inventory's stock.
const (
	attrTotalInventory = "totalInventory"
	attrQuantity       = "quantity"
)

// errNoStock is the CONFLICT of an order a line of which lacks stock.
func errNoStock() *apperr.Error {
	return &apperr.Error{Code: apperr.CodeConflict, Reason: "stock", Field: "items", Message: "not enough stock for an item of the order"}
}

// stockMove is the stock an order's lines take (or give back), summed per Inventory item and per
// product: a transaction may touch an item only once, however many lines name it.
type stockMove struct {
	byStock   map[Key]int
	byProduct map[string]int
}

// stockOf sums the quantities of the lines of items that name a product and a warehouse.
func stockOf(items []*OrderItem) stockMove {
	m := stockMove{byStock: map[Key]int{}, byProduct: map[string]int{}}
	for _, it := range items {
		if it.ProductID == "" || it.WarehouseID == "" {
			continue
		}
		m.byStock[inventoryKey(it.ProductID, it.WarehouseID)] += it.Quantity
		m.byProduct[it.ProductID] += it.Quantity
	}
	return m
}

// take is the transaction's actions that take the stock (sign -1) or give it back (sign +1):
// products first (a missing one is NOT_FOUND), then the stock items, in key order so that the
// same order always writes the same actions. Taking is conditioned on enough stock; giving back
// only on the items existing.
func (r *Repo) take(m stockMove, sign int) []TxItem {
	products := make([]string, 0, len(m.byProduct))
	for p := range m.byProduct {
		products = append(products, p)
	}
	slices.Sort(products)
	stocks := make([]Key, 0, len(m.byStock))
	for k := range m.byStock {
		stocks = append(stocks, k)
	}
	slices.SortFunc(stocks, func(a, b Key) int { return cmp.Or(strings.Compare(a.PK, b.PK), strings.Compare(a.SK, b.SK)) })
	tx := make([]TxItem, 0, len(products)+len(stocks))
	for _, p := range products {
		tx = append(tx, r.txCount(productKey(p), []delta{{attrTotalInventory, sign * m.byProduct[p]}}, notFoundField("items", "product"), nil))
	}
	for _, k := range stocks {
		q := m.byStock[k]
		var enough *Condition
		onMissing := apperr.Internal("give back stock", errors.New("the stock item of an order line is missing"))
		if sign < 0 {
			onMissing = errNoStock()
			enough = &Condition{Expr: "#stock >= :need", names: map[string]string{"#stock": attrQuantity},
				values: map[string]types.AttributeValue{":need": NumberValue(q)}, err: errNoStock()}
		}
		tx = append(tx, r.txCount(k, []delta{{attrQuantity, sign * q}}, onMissing, enough))
	}
	return tx
}

// checkStockLine checks the stock a line of an order names: a product and a warehouse, both or
// neither.
func checkStockLine(field string, l OrderLine) error {
	if (l.ProductID == "") != (l.WarehouseID == "") {
		return apperr.InvalidInput(field, "a line names both a productId and a warehouseId, or neither")
	}
	if l.ProductID == "" {
		return nil
	}
	if err := checkID(field+".productId", l.ProductID); err != nil {
		return err
	}
	return checkID(field+".warehouseId", l.WarehouseID)
}
