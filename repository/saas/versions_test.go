package saas

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// ticketFixture is an organization with one user and one ticket (version 1).
func ticketFixture(t *testing.T, r *SaaS) (*User, *Ticket) {
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
func versionsOf(t *testing.T, r *SaaS, tk *Ticket) []int {
	t.Helper()
	p, err := r.TicketHistory(context.Background(), tk.OrgID, tk.ID, repository.PageArgs{First: 100})
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
	r := newLocalRepo(t, repository.Config{})
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
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	if _, err := r.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r.Table()), Key: UserKeyOf(u.OrgID, u.ID).Attributes()}); err != nil {
		t.Fatal(err)
	}
	closed := TicketClosed
	if _, err := r.UpdateTicket(ctx, tk.OrgID, tk.ID, TicketPatch{Status: &closed}); err == nil {
		t.Fatal("the change went through without the reporter's counters")
	}
	if got := versionsOf(t, r, tk); len(got) != 1 || got[0] != 1 {
		t.Fatalf("history %v after a cancelled change, want [1]", got)
	}
	found, err := r.ReadConsistent(ctx, TicketKeyOf(tk.OrgID, tk.ID), UserKeyOf(u.OrgID, u.ID))
	if err != nil {
		t.Fatal(err)
	}
	if now, ok := repository.FoundAs[*Ticket](found, TicketKeyOf(tk.OrgID, tk.ID)); !ok || now.Status != TicketOpen || now.Version != 1 {
		t.Fatalf("the ticket after a cancelled change: %+v", now)
	}
	if _, ok := found[UserKeyOf(u.OrgID, u.ID)]; ok {
		t.Fatal("the cancelled change created the reporter's item with its counters")
	}
	// A new ticket of a missing reporter: refused, and not one version item in the table.
	if _, err := r.CreateTicket(ctx, u.OrgID, u.ID, "orphan", "b"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("a ticket of a deleted user: %v, want NOT_FOUND", err)
	}
	out, err := r.DB.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(r.Table()), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("begins_with(SK, :v)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": repository.StringValue("VERSION#")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 {
		t.Fatalf("%d version items in the table, want the first ticket's one", out.Count)
	}
}
