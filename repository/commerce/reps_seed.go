package commerce

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/catalog"
)

// The account reps' history in the sample dataset: besides the orders of February 2026
// (seed.go), each customer with an account rep has one delivered order in each of the
// three months before, so that topAccountReps over a range sums several months and its ranking
// changes with the range. They are older than every other sample order, so the newest-first lists
// and the February examples read what they always did; the counters and the reps' monthly totals
// are summed from the items like those of every sample order (CountSample, AssignSampleReps).

// repHistoryMonths are the months of the history, oldest first: the orders' days within them.
var repHistoryMonths = []time.Time{
	time.Date(2025, 11, 12, 15, 0, 0, 0, time.UTC),
	time.Date(2025, 12, 9, 11, 0, 0, 0, time.UTC),
	time.Date(2026, 1, 14, 16, 0, 0, 0, time.UTC),
}

// RepHistorySampleItems are the history's orders of the sample customers in items that have an
// account rep (sampleReps), with their idempotency guards and lines.
func RepHistorySampleItems(items []map[string]types.AttributeValue, shards int) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	ci := 0
	for _, it := range items {
		if repository.StringAttr(it, repository.AttrType) != TypeCustomer || sampleReps[repository.StringAttr(it, "name")] == "" {
			continue
		}
		name, id := repository.StringAttr(it, "name"), repository.StringAttr(it, "id")
		first := strings.ToLower(strings.Fields(name)[0])
		for mi, month := range repHistoryMonths {
			placed := month.Add(time.Duration(ci) * 26 * time.Hour)
			// Sample products of every price, so that each month ranks the reps differently.
			l := sampleLine((mi*2+ci*3)%len(catalog.SampleProducts), (mi+ci)%2)
			l.Quantity = 1 + (mi+2*ci)%3
			o := &Order{
				ID: repository.SeedID(placed, fmt.Sprintf("order/%s/%s", name, placed.Format("2006-01"))), CustomerID: id, Status: OrderDelivered,
				PlacedAt: placed, UpdatedAt: placed.Add(48 * time.Hour), IdempotencyKey: "seed-" + first + "-" + placed.Format("2006-01"),
			}
			order, err := sampleOrderItems(o, []OrderLine{l}, shards)
			if err != nil {
				return nil, err
			}
			out = append(out, order...)
		}
		ci++
	}
	return out, nil
}
