package commerce

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/catalog"
)

// Stock taken by orders. A line of an order that names a product and a warehouse takes its
// quantity from that stock in the order's own transaction: an Update of the Inventory item that
// subtracts it on condition that the item holds at least that much, and an Update of the product's
// totalInventory. The condition is checked by DynamoDB as part of the transaction, so however many
// orders race for the last units, exactly as many as the stock allows succeed and the others are
// cancelled whole (CONFLICT with reason "stock", nothing written). A cancelled order gives its
// stock back the same way, in the transaction that cancels it.

// errNoStock is the CONFLICT of an order a line of which lacks stock.
func errNoStock() *apperr.Error {
	return &apperr.Error{Code: apperr.CodeConflict, Reason: "stock", Field: "items", Message: "not enough stock for an item of the order"}
}

// stockMove is the stock an order's lines take (or give back), summed per Inventory item and per
// product: a transaction may touch an item only once, however many lines name it.
type stockMove struct {
	byStock   map[repository.Key]int
	byProduct map[string]int
}

// stockOf sums the quantities of the lines of items that name a product and a warehouse.
func stockOf(items []*OrderItem) stockMove {
	m := stockMove{byStock: map[repository.Key]int{}, byProduct: map[string]int{}}
	for _, it := range items {
		if it.ProductID == "" || it.WarehouseID == "" {
			continue
		}
		m.byStock[catalog.InventoryKeyOf(it.ProductID, it.WarehouseID)] += it.Quantity
		m.byProduct[it.ProductID] += it.Quantity
	}
	return m
}

// take is the transaction's actions that take the stock (sign -1) or give it back (sign +1):
// products first (a missing one is NOT_FOUND), then the stock items, in key order so that the
// same order always writes the same actions. Taking is conditioned on enough stock; giving back
// only on the items existing.
func (r *Commerce) take(m stockMove, sign int) []repository.TxItem {
	products := make([]string, 0, len(m.byProduct))
	for p := range m.byProduct {
		products = append(products, p)
	}
	slices.Sort(products)
	stocks := make([]repository.Key, 0, len(m.byStock))
	for k := range m.byStock {
		stocks = append(stocks, k)
	}
	slices.SortFunc(stocks, func(a, b repository.Key) int { return cmp.Or(strings.Compare(a.PK, b.PK), strings.Compare(a.SK, b.SK)) })
	tx := make([]repository.TxItem, 0, len(products)+len(stocks))
	for _, p := range products {
		tx = append(tx, r.TxCount(catalog.ProductKeyOf(p), []repository.Delta{{Attr: catalog.AttrTotalInventory, By: sign * m.byProduct[p]}}, repository.NotFoundField("items", "product"), nil))
	}
	for _, k := range stocks {
		q := m.byStock[k]
		var enough *repository.Condition
		onMissing := apperr.Internal("give back stock", errors.New("the stock item of an order line is missing"))
		if sign < 0 {
			onMissing = errNoStock()
			enough = &repository.Condition{Expr: "#stock >= :need", Names: map[string]string{"#stock": catalog.AttrQuantity},
				Values: map[string]types.AttributeValue{":need": repository.NumberValue(q)}, Err: errNoStock()}
		}
		tx = append(tx, r.TxCount(k, []repository.Delta{{Attr: catalog.AttrQuantity, By: sign * q}}, onMissing, enough))
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
	if err := repository.CheckID(field+".productId", l.ProductID); err != nil {
		return err
	}
	return repository.CheckID(field+".warehouseId", l.WarehouseID)
}
