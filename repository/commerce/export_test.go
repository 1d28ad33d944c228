package commerce

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SetRepSales overwrites a rep's sales of a month, as a writer that did not follow the rule would.
func SetRepSales(ctx context.Context, r *Commerce, rep, month string, totalCents int64, orders int) error {
	item, err := RepSalesEntity.Encode(&RepSales{RepID: rep, Month: month, TotalCents: totalCents, Orders: orders})
	if err != nil {
		return err
	}
	return r.BatchWrite(ctx, []map[string]types.AttributeValue{item})
}
