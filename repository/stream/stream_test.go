package stream

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/saas"
)

// fastStream polls and describes often, so that the tests that end a stream finish quickly.
var fastStream = StreamOptions{PollInterval: 20 * time.Millisecond, DescribeInterval: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}

// A change made through the repository arrives as a typed change, with the entity before and
// after the write.
func TestStreamDeliversWritesOfTheRepository(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	ctx := context.Background()

	org, err := r.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com") // also writes the email guard
	if err != nil {
		t.Fatal(err)
	}
	tk, err := r.CreateTicket(ctx, org.ID, u.ID, "Printer", "on fire")
	if err != nil {
		t.Fatal(err)
	}
	closed := saas.TicketClosed
	if _, err := r.UpdateTicket(ctx, tk.OrgID, tk.ID, saas.TicketPatch{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	// The changes of one item arrive in the order of its writes; items of one transaction arrive
	// in no set order. Read until the update's version item and the reporter's counter move.
	v2 := saas.TicketVersionKey(tk.OrgID, tk.ID, 2)
	byKey := map[repository.Key][]Change{}
	for len(byKey[v2]) == 0 || len(byKey[u.Key()]) < 3 {
		ch := c.Until(t, func(Change) bool { return true })[0]
		byKey[ch.Key] = append(byKey[ch.Key], ch)
	}
	orgs, users, tickets := byKey[org.Key()], byKey[u.Key()], byKey[tk.Key()]
	if len(orgs) != 2 || len(users) != 3 || len(tickets) != 2 || len(byKey[saas.TicketVersionKey(tk.OrgID, tk.ID, 1)]) != 1 || len(byKey) != 5 {
		t.Fatalf("changes %+v: want the organization created and counting its user, the user created and counting its ticket twice, the ticket created and updated, its two versions (the guard skipped)", byKey)
	}
	if o, ok := orgs[0].New.(*saas.Organization); orgs[0].Kind != ChangeCreated || !ok || o.Name != "Acme" || orgs[0].Old != nil || !o.Counted || o.UserCount != 0 {
		t.Errorf("organization change %+v", orgs[0])
	}
	if o, ok := orgs[1].New.(*saas.Organization); orgs[1].Kind != ChangeUpdated || !ok || o.UserCount != 1 {
		t.Errorf("organization counting its user %+v", orgs[1])
	}
	if nu, ok := users[0].New.(*saas.User); users[0].Kind != ChangeCreated || !ok || nu.Email != "ada@example.com" || nu.OrgID != org.ID {
		t.Errorf("user change %+v", users[0])
	}
	if nu, ok := users[2].New.(*saas.User); !ok || nu.OpenTickets != 0 || nu.ClosedTickets != 1 || !nu.Counted {
		t.Errorf("the user's counters after the ticket was closed %+v", users[2])
	}
	if nt, ok := tickets[0].New.(*saas.Ticket); tickets[0].Kind != ChangeCreated || !ok || nt.Status != saas.TicketOpen || nt.ReporterID != u.ID || nt.Version != 1 {
		t.Errorf("ticket created %+v", tickets[0])
	}
	nt, okNew := tickets[1].New.(*saas.Ticket)
	ot, okOld := tickets[1].Old.(*saas.Ticket)
	if tickets[1].Kind != ChangeUpdated || !okNew || !okOld || nt.Status != saas.TicketClosed || ot.Status != saas.TicketOpen || nt.Title != "Printer" || nt.Version != 2 {
		t.Errorf("ticket updated %+v", tickets[1])
	}
	if v, ok := byKey[v2][0].New.(*saas.TicketVersion); !ok || v.Version != 2 || v.Status != saas.TicketClosed || !v.EditedAt.Equal(nt.UpdatedAt) {
		t.Errorf("version 2 %+v", byKey[v2][0])
	}
	if tickets[1].Sequence == "" || !sequenceAfter(tickets[1].Sequence, tickets[0].Sequence) || tickets[1].At.IsZero() {
		t.Errorf("sequence %q after %q, at %v", tickets[1].Sequence, tickets[0].Sequence, tickets[1].At)
	}
}

// A change made by another writer (an organization item put, updated and deleted with the SDK,
// not the repository) arrives as typed changes too.
func TestStreamDeliversWritesOfOtherWriters(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	ctx := context.Background()
	k := saas.OrgKey("01J0000000000000000000RAW1")
	raw := map[string]types.AttributeValue{
		repository.AttrPK: repository.StringValue(k.PK), repository.AttrSK: repository.StringValue(k.SK), repository.AttrType: repository.StringValue(saas.TypeOrganization),
		"id": repository.StringValue("01J0000000000000000000RAW1"), "name": repository.StringValue("Raw"), "createdAt": repository.StringValue("2026-01-02T03:04:05Z"),
	}
	if _, err := r.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: raw}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(r.Table()), Key: k.Attributes(), UpdateExpression: aws.String("SET #n = :n"),
		ExpressionAttributeNames: map[string]string{"#n": "name"}, ExpressionAttributeValues: map[string]types.AttributeValue{":n": repository.StringValue("Renamed")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r.Table()), Key: k.Attributes()}); err != nil {
		t.Fatal(err)
	}
	var kinds []ChangeKind
	for _, ch := range c.Until(t, func(ch Change) bool { return ch.Kind == ChangeRemoved }) {
		kinds = append(kinds, ch.Kind)
		switch ch.Kind {
		case ChangeCreated:
			if o, ok := ch.New.(*saas.Organization); !ok || o.Name != "Raw" || !o.CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || ch.Old != nil {
				t.Errorf("raw put %+v", ch)
			}
		case ChangeUpdated:
			n, _ := ch.New.(*saas.Organization)
			o, _ := ch.Old.(*saas.Organization)
			if n == nil || o == nil || n.Name != "Renamed" || o.Name != "Raw" {
				t.Errorf("raw update %+v", ch)
			}
		case ChangeRemoved:
			if o, ok := ch.Old.(*saas.Organization); !ok || o.Name != "Renamed" || ch.New != nil || ch.Key != k || ch.Entity() != ch.Old {
				t.Errorf("raw delete %+v", ch)
			}
		}
	}
	if fmt.Sprint(kinds) != "[CREATED UPDATED REMOVED]" {
		t.Fatalf("raw writes arrived as %v", kinds)
	}
}

// Items that are not entities (uniqueness guards, the seed marker, an unknown type, an item
// without a type) are skipped, not errors.
func TestStreamSkipsItemsThatAreNotEntities(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	ctx := context.Background()
	u := &saas.User{ID: "01J00000000000000000000USR", OrgID: "01J00000000000000000000ORG", Email: "a@example.com"}
	others := []map[string]types.AttributeValue{
		saas.EmailGuardItem(u),
		{repository.AttrPK: repository.StringValue("SEED"), repository.AttrSK: repository.StringValue("VERSION#x"), repository.AttrType: repository.StringValue(repository.TypeSeedMarker)},
		{repository.AttrPK: repository.StringValue("AUDIT#1"), repository.AttrSK: repository.StringValue("AUDIT#1"), repository.AttrType: repository.StringValue("AuditEntry"), "what": repository.StringValue("x")},
		{repository.AttrPK: repository.StringValue("NOTYPE#1"), repository.AttrSK: repository.StringValue("NOTYPE#1")},
	}
	for _, item := range others {
		if _, err := r.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	org, err := r.CreateOrganization(ctx, "After")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Until(t, IsChangeOf(org.Key())); len(got) != 1 {
		t.Fatalf("got %d changes, want the organization alone: %+v", len(got), got)
	}
	if c.Gaps.Load() != 0 || c.Outages.Load() != 0 {
		t.Fatalf("gaps %d, outages %d", c.Gaps.Load(), c.Outages.Load())
	}
}

// Many updates of one item in a row arrive in the order they were written.
func TestStreamKeepsTheWriteOrderOfAnItem(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	tk := createTicketFor(t, r)
	const n = 60
	for i := range n {
		title := fmt.Sprintf("title %03d", i)
		if _, err := r.UpdateTicket(context.Background(), tk.OrgID, tk.ID, saas.TicketPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	last := fmt.Sprintf("title %03d", n-1)
	got := c.Until(t, func(ch Change) bool { nt, _ := ch.New.(*saas.Ticket); return nt != nil && nt.Title == last })
	var updates []Change
	for _, ch := range got {
		if ch.Key == tk.Key() && ch.Kind == ChangeUpdated {
			updates = append(updates, ch)
		}
	}
	if len(updates) != n {
		t.Fatalf("%d updates arrived, want %d", len(updates), n)
	}
	prev := tk.Title
	for i, ch := range updates {
		nt, ot := ch.New.(*saas.Ticket), ch.Old.(*saas.Ticket)
		if want := fmt.Sprintf("title %03d", i); nt.Title != want || ot.Title != prev {
			t.Fatalf("update %d: %q → %q, want %q → %q", i, ot.Title, nt.Title, prev, want)
		}
		prev = nt.Title
	}
}

// createTicketFor creates an organization, a user and a ticket of theirs.
func createTicketFor(t *testing.T, r *testRepo) *saas.Ticket {
	t.Helper()
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Org")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.CreateUser(ctx, org.ID, "User", "user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := r.CreateTicket(ctx, org.ID, u.ID, "title", "body")
	if err != nil {
		t.Fatal(err)
	}
	return tk
}
