package catalog

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The catalog's counters (see counters.go): a product's totalInventory.

// Counted: a product's stock over its warehouses.
var _ = repository.Counted(repository.Tally{
	// A product's totalInventory is the sum of its stock items' quantities, in its partition.
	Parent: typeProduct, Attrs: []string{AttrTotalInventory},
	Project: []string{repository.AttrType, "productId", AttrQuantity},
	Of: func(it map[string]types.AttributeValue) (repository.Key, string, bool) {
		return ProductKeyOf(repository.StringAttr(it, "productId")), AttrTotalInventory, repository.StringAttr(it, repository.AttrType) == typeInventory
	},
	Weight: func(it map[string]types.AttributeValue) int { return repository.IntAttr(it, AttrQuantity) },
	Each: func(ctx context.Context, repo *repository.Repo, fn func(repository.Entity) error) error {
		r := &Catalog{Repo: repo}
		return repository.EachPage(func(a repository.PageArgs) (repository.Page[*Product], error) { return r.ListProducts(ctx, a) }, repository.EntityFn[*Product](fn))
	},
	Collection: func(p repository.Entity) *dynamodb.QueryInput {
		return InventoryOfProduct.Input("", productPK(p.(*Product).ID), inventorySKPrefix)
	},
})
