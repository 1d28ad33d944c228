package repository

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// scanTable reads every item of the test's own table (tests only: the API never scans).
func scanTable(t *testing.T, r *Repo) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(r.db, &dynamodb.ScanInput{TableName: aws.String(r.table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
	}
	return out
}

// orphansOf lists the items whose keys (primary or index) still name one of ids.
func orphansOf(t *testing.T, r *Repo, ids ...string) []string {
	t.Helper()
	var found []string
	for _, item := range scanTable(t, r) {
		for _, a := range []string{attrPK, attrSK, "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK"} {
			v := stringAttr(item, a)
			for _, id := range ids {
				if id != "" && strings.Contains(v, id) {
					found = append(found, stringAttr(item, attrType)+" "+stringAttr(item, attrPK)+" "+stringAttr(item, attrSK))
				}
			}
		}
	}
	return found
}

// codeOf is err's code ("" for none).
func codeOf(err error) apperr.Code {
	var coded *apperr.Error
	if errors.As(err, &coded) {
		return coded.Code
	}
	return ""
}

// assertExact fails unless -recount finds every counter exact.
func assertExact(t *testing.T, r *Repo) {
	t.Helper()
	rep, err := r.Recount(context.Background(), RecountOptions{Settle: 1})
	if err != nil || len(rep.Repairs) != 0 {
		t.Fatalf("recount: %v, repairs %+v", err, rep.Repairs)
	}
}

func TestUserCorrectionsAndRemovals(t *testing.T) {
	r := newLocalRepo(t, Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	other, err := r.CreateUser(ctx, u.OrgID, "Bob", "bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	newEmail := "ada@new.example"
	if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, nil, &newEmail); err != nil {
		t.Fatal(err)
	}
	taken := "BOB@example.com"
	if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, nil, &taken); codeOf(err) != apperr.CodeConflict {
		t.Fatalf("a taken email: %v", err)
	}
	// The old email is free again, the new one is taken.
	if _, err := r.CreateUser(ctx, u.OrgID, "Ada 2", "ada@example.com"); err != nil {
		t.Fatalf("the freed email: %v", err)
	}
	if _, err := r.CreateUser(ctx, u.OrgID, "Ada 3", newEmail); codeOf(err) != apperr.CodeConflict {
		t.Fatalf("the new email: %v", err)
	}
	name := "Organization Renamed"
	if o, err := r.UpdateOrganization(ctx, u.OrgID, &name); err != nil || o.Name != name || o.UserCount != 3 {
		t.Fatalf("rename: %+v %v", o, err)
	}

	if err := r.DeleteUser(ctx, u.OrgID, u.ID, false); codeOf(err) != apperr.CodeConflict || *err.(*apperr.Error).Count != 1 {
		t.Fatalf("a user with a ticket: %v", err)
	}
	title := "second"
	if _, err := r.UpdateTicket(ctx, u.OrgID, tk.ID, TicketPatch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	stale := 1
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, &stale); codeOf(err) != apperr.CodeConflict {
		t.Fatalf("a stale expectedVersion: %v", err)
	}
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, nil); codeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if o := orphansOf(t, r, tk.ID); len(o) != 0 {
		t.Fatalf("left of the ticket: %v", o)
	}
	// cascade takes the tickets along.
	for range 3 {
		if _, err := r.CreateTicket(ctx, other.OrgID, other.ID, "t", "b"); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteUser(ctx, other.OrgID, other.ID, true); err != nil {
		t.Fatal(err)
	}
	if o := orphansOf(t, r, other.ID); len(o) != 0 {
		t.Fatalf("left of the user: %v", o)
	}
	if err := r.DeleteUser(ctx, other.OrgID, other.ID, true); codeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := r.CreateUser(ctx, u.OrgID, "Bob again", "bob@example.com"); err != nil {
		t.Fatalf("a deleted user's email: %v", err)
	}
	assertExact(t, r)
}

func TestDeleteOrganizationHidesAtOnceAndSweeps(t *testing.T) {
	r := newLocalRepo(t, Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	// A history longer than one transaction holds: swept after the ticket's own removal.
	long, err := r.CreateTicket(ctx, u.OrgID, u.ID, "long", "b")
	if err != nil {
		t.Fatal(err)
	}
	for i := range versionsInTx + 5 {
		title := "v" + strings.Repeat("x", i%7+1)
		if _, err := r.UpdateTicket(ctx, u.OrgID, long.ID, TicketPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteOrganization(ctx, u.OrgID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.OrganizationWithUsers(ctx, u.OrgID, 5); codeOf(err) != apperr.CodeNotFound {
		t.Fatalf("the organization after its delete: %v", err)
	}
	if found, err := r.BatchGet(ctx, []Key{orgKey(u.OrgID)}); err != nil || len(found) != 0 {
		t.Fatalf("a lookup after the delete: %v %v", found, err)
	}
	if _, err := r.CreateUser(ctx, u.OrgID, "Late", "late@example.com"); codeOf(err) != apperr.CodeNotFound {
		t.Fatalf("a create under the deleted organization: %v", err)
	}
	if err := r.DeleteOrganization(ctx, u.OrgID); codeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if n, err := r.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	if o := orphansOf(t, r, u.OrgID, u.ID, tk.ID, long.ID); len(o) != 0 {
		t.Fatalf("left of the organization: %v", o)
	}
	if o := orphansOf(t, r, sweepPK); len(o) != 0 {
		t.Fatalf("sweep records left: %v", o)
	}
	if n, err := r.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("a second sweep: %d, %v", n, err)
	}
	assertExact(t, r)
}
