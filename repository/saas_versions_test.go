package repository

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// ticketFixture is an organization with one user and one ticket (version 1).
func ticketFixture(t *testing.T, r *Repo) (*User, *Ticket) {
	t.Helper()
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := r.CreateTicket(ctx, org.ID, u.ID, "first", "body")
	if err != nil {
		t.Fatal(err)
	}
	return u, tk
}

// versionsOf is the ticket's version numbers, newest first, as its history lists them.
func versionsOf(t *testing.T, r *Repo, tk *Ticket) []int {
	t.Helper()
	p, err := r.TicketHistory(context.Background(), tk.OrgID, tk.ID, PageArgs{First: 100})
	if err != nil {
		t.Fatal(err)
	}
	var vs []int
	for _, v := range p.Items {
		vs = append(vs, v.Version)
	}
	return vs
}

// Editors who all read version 1 and say so: exactly one of them writes version 2, every other
// gets CONFLICT, and nothing of theirs is written (no version item, the ticket as the winner left it).
func TestEditorsOfOneVersionConflict(t *testing.T) {
	r := newLocalRepo(t, Config{})
	_, tk := ticketFixture(t, r)
	const editors = 8
	var wg sync.WaitGroup
	results := make([]error, editors)
	for i := range editors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			title, one := "edit by editor "+string(rune('A'+i)), 1
			_, results[i] = r.UpdateTicket(context.Background(), tk.OrgID, tk.ID, TicketPatch{Title: &title, ExpectedVersion: &one})
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range results {
		switch {
		case err == nil:
			won++
		case apperr.CodeOf(err) != apperr.CodeConflict:
			t.Errorf("editor %d: %v, want CONFLICT", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d editors won, want exactly one", won)
	}
	if got := versionsOf(t, r, tk); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Fatalf("history %v, want [2 1]", got)
	}
	stale := 1
	if _, err := r.UpdateTicket(context.Background(), tk.OrgID, tk.ID, TicketPatch{Title: aws.String("late"), ExpectedVersion: &stale}); apperr.CodeOf(err) != apperr.CodeConflict {
		t.Fatalf("a stale expectedVersion after the race: %v, want CONFLICT", err)
	}
}

// A change whose counter update is refused (the reporter's item, which carries the ticket counts,
// is gone) is cancelled whole: no version item, the ticket unchanged, no counter created.
func TestACancelledCounterChangeLeavesNoVersion(t *testing.T) {
	r := newLocalRepo(t, Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	if _, err := r.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r.table), Key: userKey(u.OrgID, u.ID).Attributes()}); err != nil {
		t.Fatal(err)
	}
	closed := TicketClosed
	if _, err := r.UpdateTicket(ctx, tk.OrgID, tk.ID, TicketPatch{Status: &closed}); err == nil {
		t.Fatal("the change went through without the reporter's counters")
	}
	if got := versionsOf(t, r, tk); len(got) != 1 || got[0] != 1 {
		t.Fatalf("history %v after a cancelled change, want [1]", got)
	}
	found, err := r.readConsistent(ctx, ticketKey(tk.OrgID, tk.ID), userKey(u.OrgID, u.ID))
	if err != nil {
		t.Fatal(err)
	}
	if now, ok := foundAs[*Ticket](found, ticketKey(tk.OrgID, tk.ID)); !ok || now.Status != TicketOpen || now.Version != 1 {
		t.Fatalf("the ticket after a cancelled change: %+v", now)
	}
	if _, ok := found[userKey(u.OrgID, u.ID)]; ok {
		t.Fatal("the cancelled change created the reporter's item with its counters")
	}
	// A new ticket of a missing reporter: refused, and not one version item in the table.
	if _, err := r.CreateTicket(ctx, u.OrgID, u.ID, "orphan", "b"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("a ticket of a deleted user: %v, want NOT_FOUND", err)
	}
	out, err := r.DB.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(r.table), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("begins_with(SK, :v)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": StringValue("VERSION#")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 {
		t.Fatalf("%d version items in the table, want the first ticket's one", out.Count)
	}
}

// Recount repairs counters that drifted or were never kept, says what it repaired, and a second
// run repairs nothing; on fresh data (written by the API with its counters) it repairs nothing.
func TestRecountRepairsDriftAndIsIdempotent(t *testing.T) {
	r := newLocalRepo(t, Config{})
	ctx := context.Background()
	u, _ := ticketFixture(t, r)
	if rep, err := r.Recount(ctx, RecountOptions{Settle: 1}); err != nil || len(rep.Repairs) != 0 || rep.Parents == 0 {
		t.Fatalf("on data the API wrote: %+v, %v; want no repair", rep, err)
	}
	// Drift: a wrong user count on the organization, and the user's counters gone as on an item
	// written before counters existed.
	k := userKey(u.OrgID, u.ID)
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.table), Key: k.Attributes(),
		UpdateExpression: aws.String("REMOVE counted, openTickets, pendingTickets, closedTickets")}); err != nil {
		t.Fatal(err)
	}
	ok := OrgKey(u.OrgID)
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.table), Key: ok.Attributes(),
		UpdateExpression: aws.String("SET userCount = :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": NumberValue(7)}}); err != nil {
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
	found, err := r.readConsistent(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := foundAs[*User](found, k); !ok || !got.Counted || got.OpenTickets != 1 {
		t.Fatalf("the user after the recount: %+v", got)
	}
	if again, err := r.Recount(ctx, RecountOptions{Settle: 1}); err != nil || len(again.Repairs) != 0 {
		t.Fatalf("second run: %+v, %v; want no repair", again, err)
	}
}
