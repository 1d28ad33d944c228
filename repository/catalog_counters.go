package repository

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The catalog's counters (see counters.go): a product's totalInventory.

// Counted: a product's stock over its warehouses.
var _ = Counted(Tally{
	// A product's totalInventory is the sum of its stock items' quantities, in its partition.
	Parent: typeProduct, Attrs: []string{AttrTotalInventory},
	Project: []string{AttrType, "productId", AttrQuantity},
	Of: func(it map[string]types.AttributeValue) (Key, string, bool) {
		return ProductKeyOf(StringAttr(it, "productId")), AttrTotalInventory, StringAttr(it, AttrType) == typeInventory
	},
	weight: func(it map[string]types.AttributeValue) int { return IntAttr(it, AttrQuantity) },
	Each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return EachPage(func(a PageArgs) (Page[*Product], error) { return r.ListProducts(ctx, a) }, EntityFn[*Product](fn))
	},
	Collection: func(p Entity) *dynamodb.QueryInput {
		return InventoryOfProduct.Input("", productPK(p.(*Product).ID), inventorySKPrefix)
	},
})
