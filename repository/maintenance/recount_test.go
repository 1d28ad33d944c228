package maintenance

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/saas"
)

// Recount repairs counters that drifted or were never kept, says what it repaired, and a second
// run repairs nothing; on fresh data (written by the API with its counters) it repairs nothing.
func TestRecountRepairsDriftAndIsIdempotent(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, _ := ticketFixture(t, r)
	if rep, err := r.Recount(ctx, RecountOptions{Settle: 1}); err != nil || len(rep.Repairs) != 0 || rep.Parents == 0 {
		t.Fatalf("on data the API wrote: %+v, %v; want no repair", rep, err)
	}
	// Drift: a wrong user count on the organization, and the user's counters gone as on an item
	// written before counters existed.
	k := saas.UserKeyOf(u.OrgID, u.ID)
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: k.Attributes(),
		UpdateExpression: aws.String("REMOVE counted, openTickets, pendingTickets, closedTickets")}); err != nil {
		t.Fatal(err)
	}
	ok := saas.OrgKey(u.OrgID)
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: ok.Attributes(),
		UpdateExpression: aws.String("SET userCount = :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": repository.NumberValue(7)}}); err != nil {
		t.Fatal(err)
	}
	var told []Repair
	rep, err := r.Recount(ctx, RecountOptions{Settle: 1, Repaired: func(x Repair) { told = append(told, x) }})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"userCount": 1, "openTickets": 1, "pendingTickets": 0, "closedTickets": 0}
	if len(rep.Repairs) != len(want) || len(told) != len(rep.Repairs) {
		t.Fatalf("repairs %v (told %v), want %v", rep.Repairs, told, want)
	}
	for _, x := range rep.Repairs {
		if n, ok := want[x.Counter]; !ok || x.Now != n {
			t.Errorf("repair %v, want %s -> %d", x, x.Counter, n)
		}
	}
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := repository.FoundAs[*saas.User](found, k); !ok || !got.Counted || got.OpenTickets != 1 {
		t.Fatalf("the user after the recount: %+v", got)
	}
	if again, err := r.Recount(ctx, RecountOptions{Settle: 1}); err != nil || len(again.Repairs) != 0 {
		t.Fatalf("second run: %+v, %v; want no repair", again, err)
	}
}
