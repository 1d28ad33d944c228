package maintenance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// scanTable reads every item of the test's own table (tests only: the API never scans).
func scanTable(t *testing.T, r *Maintenance) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(r.DB, &dynamodb.ScanInput{TableName: aws.String(r.Table()), ConsistentRead: aws.Bool(true)})
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
func orphansOf(t *testing.T, r *Maintenance, ids ...string) []string {
	t.Helper()
	var found []string
	for _, item := range scanTable(t, r) {
		for _, a := range []string{repository.AttrPK, repository.AttrSK, "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK"} {
			v := repository.StringAttr(item, a)
			for _, id := range ids {
				if id != "" && strings.Contains(v, id) {
					found = append(found, repository.StringAttr(item, repository.AttrType)+" "+repository.StringAttr(item, repository.AttrPK)+" "+repository.StringAttr(item, repository.AttrSK))
				}
			}
		}
	}
	return found
}

// assertExact fails unless -recount finds every counter exact.
func assertExact(t *testing.T, r *Maintenance) {
	t.Helper()
	rep, err := r.Recount(context.Background(), RecountOptions{Settle: 1})
	if err != nil || len(rep.Repairs) != 0 {
		t.Fatalf("recount: %v, repairs %+v", err, rep.Repairs)
	}
}

func TestUserAndOrganizationCorrections(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, _ := ticketFixture(t, r)
	if _, err := r.CreateUser(ctx, u.OrgID, "Bob", "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	newEmail := "ada@new.example"
	if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, nil, &newEmail); err != nil {
		t.Fatal(err)
	}
	taken := "BOB@example.com"
	if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, nil, &taken); apperr.CodeOf(err) != apperr.CodeConflict {
		t.Fatalf("a taken email: %v", err)
	}
	// The old email is free again, the new one is taken.
	if _, err := r.CreateUser(ctx, u.OrgID, "Ada 2", "ada@example.com"); err != nil {
		t.Fatalf("the freed email: %v", err)
	}
	if _, err := r.CreateUser(ctx, u.OrgID, "Ada 3", newEmail); apperr.CodeOf(err) != apperr.CodeConflict {
		t.Fatalf("the new email: %v", err)
	}
	name := "Organization Renamed"
	if o, err := r.UpdateOrganization(ctx, u.OrgID, &name); err != nil || o.Name != name || o.UserCount != 3 {
		t.Fatalf("rename: %+v %v", o, err)
	}
	assertExact(t, r)
}

func TestUserAndTicketRemovals(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	other, err := r.CreateUser(ctx, u.OrgID, "Bob", "bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteUser(ctx, u.OrgID, u.ID, false); apperr.CodeOf(err) != apperr.CodeConflict || *err.(*apperr.Error).Count != 1 {
		t.Fatalf("a user with a ticket: %v", err)
	}
	title := "second"
	if _, err := r.UpdateTicket(ctx, u.OrgID, tk.ID, saas.TicketPatch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	stale := 1
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, &stale); apperr.CodeOf(err) != apperr.CodeConflict {
		t.Fatalf("a stale expectedVersion: %v", err)
	}
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, nil); apperr.CodeOf(err) != apperr.CodeNotFound {
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
	if err := r.DeleteUser(ctx, other.OrgID, other.ID, true); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := r.CreateUser(ctx, u.OrgID, "Bob again", "bob@example.com"); err != nil {
		t.Fatalf("a deleted user's email: %v", err)
	}
	assertExact(t, r)
}

func TestDeleteOrganizationHidesAtOnceAndSweeps(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	// A history longer than one transaction holds: swept after the ticket's own removal.
	long, err := r.CreateTicket(ctx, u.OrgID, u.ID, "long", "b")
	if err != nil {
		t.Fatal(err)
	}
	for i := range saas.VersionsInTx + 5 {
		title := "v" + strings.Repeat("x", i%7+1)
		if _, err := r.UpdateTicket(ctx, u.OrgID, long.ID, saas.TicketPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteOrganization(ctx, u.OrgID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.OrganizationWithUsers(ctx, u.OrgID, 5); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("the organization after its delete: %v", err)
	}
	if found, err := r.BatchGet(ctx, []repository.Key{saas.OrgKey(u.OrgID)}); err != nil || len(found) != 0 {
		t.Fatalf("a lookup after the delete: %v %v", found, err)
	}
	if _, err := r.CreateUser(ctx, u.OrgID, "Late", "late@example.com"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("a create under the deleted organization: %v", err)
	}
	if err := r.DeleteOrganization(ctx, u.OrgID); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if before := orphansOf(t, r, long.ID); len(before) < saas.VersionsInTx {
		t.Fatalf("the scan finds %d items of the long ticket before the sweep", len(before))
	}
	if n, err := r.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	if o := orphansOf(t, r, u.OrgID, u.ID, tk.ID, long.ID); len(o) != 0 {
		t.Fatalf("left of the organization: %v", o)
	}
	if o := orphansOf(t, r, repository.SweepPK); len(o) != 0 {
		t.Fatalf("sweep records left: %v", o)
	}
	if n, err := r.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("a second sweep: %d, %v", n, err)
	}
	assertExact(t, r)
}

// hrFixture hires an employee into d with a manager and a mentor (empty: none).
func hire(t *testing.T, r *Maintenance, d *hr.Department, name, manager, mentor string) *hr.Employee {
	t.Helper()
	in := hr.HireInput{DepartmentID: d.ID, Name: name, Email: strings.ToLower(name) + "@corp.example", JobTitle: "Engineer"}
	if manager != "" {
		in.ManagerID = &manager
	}
	if mentor != "" {
		in.MentorID = &mentor
	}
	e, _, err := r.HireEmployee(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hrStaff is a department at loc of four: Boss manages Mid, Mid manages and mentors LowOne and
// manages LowTwo; loc2 is another location.
type hrStaff struct {
	r                     *Maintenance
	loc, loc2             *hr.Location
	d                     *hr.Department
	boss, mid, low1, low2 *hr.Employee
}

func newHRStaff(t *testing.T) hrStaff {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	f := hrStaff{r: r}
	var err error
	if f.loc, err = r.CreateLocation(ctx, hr.LocationInput{Country: "Norway", State: "Oslo", City: "Oslo", PostalCode: "0150", Address: "1 Gate"}); err != nil {
		t.Fatal(err)
	}
	if f.loc2, err = r.CreateLocation(ctx, hr.LocationInput{Country: "Norway", State: "Vestland", City: "Bergen", PostalCode: "5003", Address: "2 Gate"}); err != nil {
		t.Fatal(err)
	}
	if f.d, err = r.CreateDepartment(ctx, "Eng", f.loc.Ref()); err != nil {
		t.Fatal(err)
	}
	f.boss = hire(t, r, f.d, "Boss", "", "")
	f.mid = hire(t, r, f.d, "Mid", f.boss.ID, "")
	f.low1 = hire(t, r, f.d, "LowOne", f.mid.ID, f.mid.ID)
	f.low2 = hire(t, r, f.d, "LowTwo", f.mid.ID, "")
	return f
}

func TestDepartmentAndLocationRefusedWhileReferred(t *testing.T) {
	f := newHRStaff(t)
	r, ctx, loc, loc2, d := f.r, context.Background(), f.loc, f.loc2, f.d
	if err := r.DeleteLocation(ctx, loc.Ref()); apperr.CodeOf(err) != apperr.CodeConflict || *err.(*apperr.Error).Count != 1 {
		t.Fatalf("a location with a department: %v", err)
	}
	if err := r.DeleteDepartment(ctx, d.ID); apperr.CodeOf(err) != apperr.CodeConflict || *err.(*apperr.Error).Count != 4 {
		t.Fatalf("a department with employees: %v", err)
	}
	if moved, err := r.RelocateDepartment(ctx, d.ID, loc2.Ref()); err != nil || moved.Location.ID != loc2.ID {
		t.Fatalf("relocate: %+v %v", moved, err)
	}
	if err := r.DeleteLocation(ctx, loc.Ref()); err != nil {
		t.Fatalf("the location left behind: %v", err)
	}
	if err := r.DeleteLocation(ctx, loc.Ref()); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestRemoveEmployeeMovesItsRelations(t *testing.T) {
	f := newHRStaff(t)
	r, ctx, d, boss, mid, low1, low2 := f.r, context.Background(), f.d, f.boss, f.mid, f.low1, f.low2
	// Mid goes: its reports move to Boss, its mentee loses its mentor.
	if err := r.RemoveEmployee(ctx, mid.ID); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*hr.Employee{low1, low2} {
		rel, ok, err := ReadRelation(ctx, r, e.ID, hr.RelManager)
		if err != nil || !ok || rel.TargetID != boss.ID {
			t.Fatalf("%s's manager: %+v %v %v", e.Name, rel, ok, err)
		}
	}
	if _, ok, _ := ReadRelation(ctx, r, low1.ID, hr.RelMentor); ok {
		t.Fatal("the mentee kept its removed mentor")
	}
	if o := orphansOf(t, r, mid.ID); len(o) != 0 {
		t.Fatalf("left of the employee: %v", o)
	}
	if err := r.RemoveEmployee(ctx, mid.ID); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("removing twice: %v", err)
	}
	assertExact(t, r)

	if _, err := r.UnassignManager(ctx, low2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.UnassignManager(ctx, low2.ID); err != nil {
		t.Fatalf("unassigning again: %v", err)
	}
	if _, ok, _ := ReadRelation(ctx, r, low2.ID, hr.RelManager); ok {
		t.Fatal("still managed")
	}
	assertExact(t, r)
	// Boss goes without a manager of its own: LowOne is left without one.
	for _, e := range []*hr.Employee{boss, low1, low2} {
		if err := r.RemoveEmployee(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteDepartment(ctx, d.ID); err != nil {
		t.Fatalf("an empty department: %v", err)
	}
	if o := orphansOf(t, r, d.ID, boss.ID, low1.ID, low2.ID); len(o) != 0 {
		t.Fatalf("left: %v", o)
	}
	assertExact(t, r)
}

func TestMailingAddressCorrections(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	home := commerce.MailingAddress{Label: "Home", Line1: "1 Road", City: "Oslo", Country: "Norway"}
	work := commerce.MailingAddress{Label: "Work", Line1: "2 Road", City: "Oslo", Country: "Norway"}
	c, err := r.CreateCustomer(ctx, "Ann", "ann@shop.example", []commerce.MailingAddress{home, work})
	if err != nil {
		t.Fatal(err)
	}
	fixed := home
	fixed.Line1 = "1b Road"
	if got, err := r.UpdateMailingAddress(ctx, c.ID, "home", fixed); err != nil || got.Addresses[0].Line1 != "1b Road" || len(got.Addresses) != 2 {
		t.Fatalf("update address: %+v %v", got, err)
	}
	clash := work
	clash.Label = "HOME"
	if _, err := r.UpdateMailingAddress(ctx, c.ID, "work", clash); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Fatalf("a label of another address: %v", err)
	}
	if got, err := r.RemoveMailingAddress(ctx, c.ID, "Home"); err != nil || len(got.Addresses) != 1 || got.Addresses[0].Label != "Work" {
		t.Fatalf("remove address: %+v %v", got, err)
	}
	if _, err := r.RemoveMailingAddress(ctx, c.ID, "Home"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("removing twice: %v", err)
	}
	stored, _ := repository.ReadLive[*commerce.Customer](ctx, r.Repo, commerce.CustomerKeyOf(c.ID), nil)
	if len(stored.Addresses) != 1 || stored.Addresses[0].Label != "Work" {
		t.Fatalf("stored addresses %+v", stored.Addresses)
	}
}

func TestCustomerErasure(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	c, err := r.CreateCustomer(ctx, "Ann", "ann@shop.example", []commerce.MailingAddress{{Label: "Home", Line1: "1 Road", City: "Oslo", Country: "Norway"}})
	if err != nil {
		t.Fatal(err)
	}
	email := "ann@new.example"
	if _, err := r.UpdateCustomer(ctx, c.ID, nil, &email); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateCustomer(ctx, "Other Ann", "ann@shop.example", nil); err != nil {
		t.Fatalf("the freed email: %v", err)
	}
	lines := []commerce.OrderLine{{SKU: "A", ProductName: "A", Quantity: 1, UnitPriceCents: 100}}
	var orders []string
	for i := range 40 { // 40 orders × 3 items: more than one transaction
		o, _, err := r.PlaceOrder(ctx, c.ID, append(lines, lines[0], lines[0]), "key-"+strings.Repeat("k", i+1))
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o.ID)
		if i%3 == 0 {
			if _, err := r.UpdateOrderStatus(ctx, c.ID, o.ID, commerce.OrderShipped); err != nil {
				t.Fatal(err)
			}
		}
	}
	if before := orphansOf(t, r, append(orders, c.ID)...); len(before) < 40*4 {
		t.Fatalf("the scan finds %d items of the customer before its erasure", len(before))
	}
	if err := r.DeleteCustomer(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if o := orphansOf(t, r, append(orders, c.ID)...); len(o) != 0 {
		t.Fatalf("left of the customer: %v", o)
	}
	if err := r.DeleteCustomer(ctx, c.ID); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := r.CreateCustomer(ctx, "Ann again", email, nil); err != nil {
		t.Fatalf("an erased customer's email: %v", err)
	}
	assertExact(t, r)
}

// A sweep stopped part way (a crash, a restart) is finished by the next one, run by another Repo
// on the same table as a restarted server would; nothing is left and the counters are exact.
func TestSweepResumesAfterAStop(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Big")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 4 {
		u, err := r.CreateUser(ctx, org.ID, "U", strings.Repeat("u", i+1)+"@big.example")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
		for range 30 {
			tk, err := r.CreateTicket(ctx, org.ID, u.ID, "t", "b")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tk.ID)
		}
	}
	if err := r.DeleteOrganization(ctx, org.ID); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stopped")
	r.Hooks.SweptUser = func() error { return stop }
	if n, err := r.Sweep(ctx); !errors.Is(err, stop) || n != 0 {
		t.Fatalf("the stopped sweep: %d, %v", n, err)
	}
	if left := orphansOf(t, r, org.ID); len(left) == 0 {
		t.Fatal("the stop came after the end: the test proves nothing")
	}
	restarted, err := repository.New(ctx, repository.Config{Table: r.Table(), Region: "us-east-1", Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), LocalDatabase: r.Table()})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := New(restarted).Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("the resumed sweep: %d, %v", n, err)
	}
	if left := orphansOf(t, r, append(ids, org.ID, repository.SweepPK)...); len(left) != 0 {
		t.Fatalf("left: %v", left)
	}
	assertExact(t, r)
}

// A user written before counters existed (no counters, not counted) is removed with its tickets
// all the same, and its counters are never driven below zero on the way.
func TestDeleteUserWrittenBeforeCounters(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: saas.UserKeyOf(u.OrgID, u.ID).Attributes(),
		UpdateExpression: aws.String("REMOVE counted, openTickets, pendingTickets, closedTickets")}); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteUser(ctx, u.OrgID, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if o := orphansOf(t, r, u.ID, tk.ID); len(o) != 0 {
		t.Fatalf("left of the user: %v", o)
	}
}

// An organization's users and tickets disappear with its mark, before the sweep reaches them:
// lookups by key answer as for missing objects (in the same BatchGetItem calls), writes under it
// are NOT_FOUND, and the sweep, which reads past the mark, still removes everything.
func TestDeletedOrganizationHidesItsUsersAndTickets(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	other, _ := ticketFixture(t, r)
	if err := r.DeleteOrganization(ctx, u.OrgID); err != nil {
		t.Fatal(err)
	}
	keys := []repository.Key{saas.UserKeyOf(u.OrgID, u.ID), saas.TicketKeyOf(u.OrgID, tk.ID), saas.UserKeyOf(other.OrgID, other.ID), saas.UserKeyOf(u.OrgID, u.ID)}
	found, err := r.BatchGet(ctx, keys)
	if err != nil || len(found) != 1 || found[saas.UserKeyOf(other.OrgID, other.ID)] == nil {
		t.Fatalf("lookups after the delete: %v %v", found, err)
	}
	if _, err := r.CreateTicket(ctx, u.OrgID, u.ID, "late", "b"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("createTicket: %v", err)
	}
	title, name := "late", "Late"
	if _, err := r.UpdateTicket(ctx, u.OrgID, tk.ID, saas.TicketPatch{Title: &title}); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("updateTicket: %v", err)
	}
	if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, &name, nil); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("updateUser: %v", err)
	}
	if n, err := r.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	if o := orphansOf(t, r, u.OrgID); len(o) != 0 {
		t.Fatalf("left of the organization: %v", o)
	}
	assertExact(t, r)
}

// A write that read its object before the organization's mark and commits after it is refused by
// its condition on the organization, not only by the read.
func TestWritesUnderAMarkedOrganizationAreRefused(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	if err := r.DeleteOrganization(ctx, u.OrgID); err != nil {
		t.Fatal(err)
	}
	next := *tk
	next.Title, next.Version = "late", tk.Version+1
	items, err := r.TicketChange(saas.TicketKeyOf(u.OrgID, tk.ID), tk, &next)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Transact(ctx, "test", items); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("a ticket change read before the mark: %v", err)
	}
	item, err := saas.UserEntity.Encode(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Transact(ctx, "test", []repository.TxItem{r.TxSetFrom(u.Key(), item, []string{"name"}, false, repository.Condition{Expr: repository.NotDeleting}), r.OrgLive(u.OrgID, apperr.NotFound("user"))}); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("a user change read before the mark: %v", err)
	}
}

// The largest order (MaxOrderLines lines and an idempotency guard) fits one transaction with the
// customer's counter: a customer who placed one can be erased.
func TestCustomerWithTheLargestOrderIsErased(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	c, err := r.CreateCustomer(ctx, "Bea", "bea@shop.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]commerce.OrderLine, repository.MaxOrderLines)
	for i := range lines {
		sku := fmt.Sprintf("SKU-%03d", i)
		lines[i] = commerce.OrderLine{SKU: sku, ProductName: sku, Quantity: 1, UnitPriceCents: 100}
	}
	o, _, err := r.PlaceOrder(ctx, c.ID, lines, "largest")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteCustomer(ctx, c.ID); err != nil {
		t.Fatalf("erasing a customer with a %d-line order: %v", repository.MaxOrderLines, err)
	}
	if o := orphansOf(t, r, o.ID, c.ID); len(o) != 0 {
		t.Fatalf("left of the customer: %v", o)
	}
	assertExact(t, r)
}

// A removal of an employee with more reports than one transaction moves stops after its first
// round: the employee's count of direct reports still equals its real reports, also when it has no
// manager (its reports are unlinked, not moved).
func TestRemoveEmployeeStoppedBetweenRoundsKeepsCountsExact(t *testing.T) {
	f := newHRStaff(t)
	r, ctx := f.r, context.Background()
	boss := hire(t, r, f.d, "BigBoss", "", "")
	for i := range hr.RelationsPerTx + 3 {
		hire(t, r, f.d, fmt.Sprintf("Report%03d", i), boss.ID, "")
	}
	if err := r.Transact(ctx, "remove employee", []repository.TxItem{r.MarkEmployee(boss.ID), r.PutSweep(&repository.SweepRecord{Kind: hr.SweepEmployee, Employee: boss.ID})}); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveEmployeeOnce(ctx, boss.ID); !errors.Is(err, hr.ErrEmployeeMoved) {
		t.Fatalf("the first round: %v", err)
	}
	// Marked, the boss reads as missing: its item as stored.
	if got := rawItem(t, r, hr.EmpKey(boss.ID)); repository.IntAttr(got, hr.AttrDirectReportCount) != 3 {
		t.Fatalf("the boss after one round: %v", got)
	}
	assertExact(t, r)
	if _, err := r.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rawItem(t, r, hr.EmpKey(boss.ID)); got != nil {
		t.Fatalf("the boss after the sweep: %v", got)
	}
	assertExact(t, r)
}

// rawItem reads the item at k as it is stored (its index keys included).
func rawItem(t *testing.T, r *Maintenance, k repository.Key) map[string]types.AttributeValue {
	t.Helper()
	out, err := r.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(r.Table()), Key: k.Attributes(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// A correction writes only what it gives: an email-only correction that read before a concurrent
// rename leaves the new name (and, for a customer, its place in the by-name listing), and a
// relocation that read before a rename leaves the department listed under its new name.
func TestCorrectionsKeepConcurrentChanges(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, _ := ticketFixture(t, r)
	renamed, email := "Ada Renamed", "ada@new.example"
	r.Hooks.CorrectionRead = func() {
		r.Hooks.CorrectionRead = nil
		if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, &renamed, nil); err != nil {
			t.Error(err)
		}
	}
	if _, err := r.UpdateUser(ctx, u.OrgID, u.ID, nil, &email); err != nil {
		t.Fatal(err)
	}
	if got := rawItem(t, r, u.Key()); repository.StringAttr(got, "name") != renamed || repository.StringAttr(got, "email") != email {
		t.Errorf("the user after a concurrent rename: %v", got)
	}

	c, err := r.CreateCustomer(ctx, "Cid", "cid@shop.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Hooks.CorrectionRead = func() {
		r.Hooks.CorrectionRead = nil
		if _, err := r.UpdateCustomer(ctx, c.ID, &renamed, nil); err != nil {
			t.Error(err)
		}
	}
	if _, err := r.UpdateCustomer(ctx, c.ID, nil, &email); err != nil {
		t.Fatal(err)
	}
	if got := rawItem(t, r, commerce.CustomerKeyOf(c.ID)); repository.StringAttr(got, "name") != renamed || repository.StringAttr(got, "GSI2SK") != repository.NameSortKey(renamed, c.ID) {
		t.Errorf("the customer after a concurrent rename: %v", got)
	}

	f := newHRStaff(t)
	f.r.Hooks.CorrectionRead = func() {
		f.r.Hooks.CorrectionRead = nil
		if _, err := f.r.RenameDepartment(ctx, f.d.ID, "Platform"); err != nil {
			t.Error(err)
		}
	}
	if _, err := f.r.RelocateDepartment(ctx, f.d.ID, f.loc2.Ref()); err != nil && apperr.CodeOf(err) != apperr.CodeConflict {
		t.Fatal(err)
	}
	if got := rawItem(t, f.r, hr.DeptKey(f.d.ID)); repository.StringAttr(got, "GSI2SK") != repository.NameSortKey("Platform", f.d.ID) {
		t.Errorf("the department's listing key after a concurrent rename: %v", got)
	}
}

// setOrgAttr writes the organization's item as no API write would (a drifted counter, a mark
// gone): the states the sweep must survive.
func setOrgAttr(t *testing.T, r *Maintenance, org, update string, values map[string]types.AttributeValue) {
	t.Helper()
	_, err := r.DB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()),
		Key: saas.OrgKey(org).Attributes(), UpdateExpression: aws.String(update), ExpressionAttributeValues: values})
	if err != nil {
		t.Fatal(err)
	}
}

// A sweep that cannot finish (a count of users that no user brings to zero) gives up after its
// rounds, leaves its record for the next run, and finishes once the count is right.
func TestSweepOfADriftedOrganizationIsBounded(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	r.BackoffFn = func(int) time.Duration { return time.Millisecond }
	ctx := context.Background()
	u, _ := ticketFixture(t, r)
	setOrgAttr(t, r, u.OrgID, "SET userCount = :c", map[string]types.AttributeValue{":c": repository.NumberValue(5)})
	if err := r.DeleteOrganization(ctx, u.OrgID); err != nil {
		t.Fatal(err)
	}
	bounded, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if n, err := r.Sweep(bounded); n != 0 || err == nil || bounded.Err() != nil {
		t.Fatalf("a sweep that cannot finish: %d, %v", n, err)
	}
	if o := orphansOf(t, r, repository.SweepPK); len(o) != 1 {
		t.Fatalf("the record after an unfinished sweep: %v", o)
	}
	setOrgAttr(t, r, u.OrgID, "SET userCount = :c", map[string]types.AttributeValue{":c": repository.NumberValue(0)})
	if n, err := r.Sweep(ctx); n != 1 || err != nil {
		t.Fatalf("the next run: %d, %v", n, err)
	}
	if o := orphansOf(t, r, u.OrgID); len(o) != 0 {
		t.Fatalf("left of the organization: %v", o)
	}
}

// A record whose organization is there without the mark (written anew under the same key) removes
// nothing of it: only the record goes.
func TestSweepLeavesAnUnmarkedOrganization(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	if err := r.DeleteOrganization(ctx, u.OrgID); err != nil {
		t.Fatal(err)
	}
	setOrgAttr(t, r, u.OrgID, "REMOVE "+repository.AttrDeleting, nil)
	if n, err := r.Sweep(ctx); n != 1 || err != nil {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	found, err := r.BatchGet(ctx, []repository.Key{saas.OrgKey(u.OrgID), u.Key(), saas.TicketKeyOf(u.OrgID, tk.ID)})
	if err != nil || len(found) != 3 {
		t.Fatalf("the unmarked organization after the sweep: %v %v", found, err)
	}
	if o := orphansOf(t, r, repository.SweepPK); len(o) != 0 {
		t.Fatalf("the record: %v", o)
	}
}

// A ticket whose history outgrows its own transaction is removed even when the sweep of the rest
// fails right after: the removal succeeds, and the sweeper finishes the history.
func TestDeleteTicketSucceedsWhenItsHistorySweepFails(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	u, tk := ticketFixture(t, r)
	for i := range saas.VersionsInTx + 2 {
		title := fmt.Sprintf("v%d", i)
		if _, err := r.UpdateTicket(ctx, u.OrgID, tk.ID, saas.TicketPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	r.Hooks.SweepVersions = func() error { return errors.New("the sweep stops here") }
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, nil); err != nil {
		t.Fatalf("a removal whose history sweep failed: %v", err)
	}
	if err := r.DeleteTicket(ctx, u.OrgID, tk.ID, nil); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("the ticket after its removal: %v", err)
	}
	r.Hooks.SweepVersions = nil
	if n, err := r.Sweep(ctx); n != 1 || err != nil {
		t.Fatalf("the sweeper: %d, %v", n, err)
	}
	if o := orphansOf(t, r, tk.ID); len(o) != 0 {
		t.Fatalf("left of the ticket: %v", o)
	}
	assertExact(t, r)
}

// A department delete that loses the race to hires reports how many employees the department
// really has.
func TestDeleteDepartmentReportsTheRealCount(t *testing.T) {
	f := newHRStaff(t)
	r, ctx := f.r, context.Background()
	d, err := r.CreateDepartment(ctx, "Ops", f.loc.Ref())
	if err != nil {
		t.Fatal(err)
	}
	r.Hooks.CorrectionRead = func() {
		r.Hooks.CorrectionRead = nil
		for _, name := range []string{"OpsOne", "OpsTwo", "OpsThree"} {
			hire(t, r, d, name, "", "")
		}
	}
	err = r.DeleteDepartment(ctx, d.ID)
	var coded *apperr.Error
	if !errors.As(err, &coded) || coded.Code != apperr.CodeConflict || coded.Count == nil || *coded.Count != 3 {
		t.Fatalf("a delete that lost the race to three hires: %v", err)
	}
}

// A mentor counts its mentees through every write of a mentor relation, -recount agrees, and a
// removal of the mentor that has not seen all its mentees (the index behind: here a count above
// what the index shows) is refused rather than leave a mentor relation to a removed employee.
func TestMentorCountsItsMenteesAndHoldsItsRemoval(t *testing.T) {
	f := newHRStaff(t)
	r, ctx := f.r, context.Background()
	mentee := hire(t, r, f.d, "Mentee", f.boss.ID, f.boss.ID) // manager and mentor at once
	if _, _, err := r.AssignMentor(ctx, f.low2.ID, f.boss.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.AssignMentor(ctx, f.low1.ID, f.boss.ID); err != nil { // from Mid to Boss
		t.Fatal(err)
	}
	if _, err := r.UnassignMentor(ctx, f.low2.ID); err != nil {
		t.Fatal(err)
	}
	menteesOf := func(id string) int {
		t.Helper()
		out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.Table()), Key: hr.EmpKey(id).Attributes(), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return repository.IntAttr(out.Item, "menteeCount")
	}
	if b, m := menteesOf(f.boss.ID), menteesOf(f.mid.ID); b != 2 || m != 0 {
		t.Fatalf("mentees: Boss %d (want 2), Mid %d (want 0)", b, m)
	}
	assertExact(t, r)
	if err := r.RemoveEmployee(ctx, mentee.ID); err != nil {
		t.Fatal(err)
	}
	if b := menteesOf(f.boss.ID); b != 1 {
		t.Fatalf("Boss's mentees after its mentee's removal: %d", b)
	}
	assertExact(t, r)
	_, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: hr.EmpKey(f.boss.ID).Attributes(),
		UpdateExpression: aws.String("ADD menteeCount :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": repository.NumberValue(1)}})
	if err != nil {
		t.Fatal(err)
	}
	// The removal marks the mentor (it reads as missing from then on), but its sweep does not
	// delete it while its count is off: the record stays for the sweeper.
	if err := r.RemoveEmployee(ctx, f.boss.ID); err != nil {
		t.Fatalf("removing a mentor with a mentee its removal did not see: %v", err)
	}
	if rawItem(t, r, hr.EmpKey(f.boss.ID)) == nil {
		t.Fatal("the mentor was removed")
	}
	// The marked mentor has left the listings -recount walks: its count is repaired by hand.
	_, err = r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: hr.EmpKey(f.boss.ID).Attributes(),
		UpdateExpression: aws.String("ADD menteeCount :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": repository.NumberValue(-1)}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("the sweep of the mentor once its count is right: %d, %v", n, err)
	}
	if rawItem(t, r, hr.EmpKey(f.boss.ID)) != nil {
		t.Fatal("the mentor outlived its sweep")
	}
	if _, ok, _ := ReadRelation(ctx, r, f.low1.ID, hr.RelMentor); ok {
		t.Fatal("a mentor relation outlived its mentor")
	}
	assertExact(t, r)
}

// Removing an employee undoes what its writes left elsewhere: its earlier jobs (written by each
// change of its job title) go, and the customers it was the account rep of are left without one
// (their rep's list, AP26, is empty; a later order counts for no rep); the sales it made stay in
// its monthly totals, and nothing else outlives it.
func TestRemoveEmployeeTakesItsEarlierJobsAndLeavesItsAccounts(t *testing.T) {
	f := newHRStaff(t)
	r, ctx := f.r, context.Background()
	lead := "Lead"
	if _, err := r.UpdateEmployee(ctx, f.low2.ID, hr.EmployeeChanges{JobTitle: &lead}); err != nil {
		t.Fatal(err)
	}
	head := "Head"
	if _, err := r.UpdateEmployee(ctx, f.low2.ID, hr.EmployeeChanges{JobTitle: &head}); err != nil {
		t.Fatal(err)
	}
	var customers []*commerce.Customer
	for _, name := range []string{"Acme", "Globex"} {
		c, err := r.CreateCustomer(ctx, name, strings.ToLower(name)+"@shop.example", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.AssignAccountRep(ctx, c.ID, f.low2.ID); err != nil {
			t.Fatal(err)
		}
		customers = append(customers, c)
	}
	if p, err := r.AccountsOfRep(ctx, f.low2.ID, repository.PageArgs{First: 10}); err != nil || len(p.Items) != 2 {
		t.Fatalf("accounts before: %d, %v", len(p.Items), err)
	}
	if err := r.RemoveEmployee(ctx, f.low2.ID); err != nil {
		t.Fatal(err)
	}
	if o := orphansOf(t, r, f.low2.ID); len(o) != 0 {
		t.Errorf("left of the employee: %v", o)
	}
	for _, c := range customers {
		got, err := r.CustomerOf(ctx, c.ID)
		if err != nil || got.AccountRepID != "" {
			t.Errorf("customer %s after its rep's removal: %+v, %v", c.Name, got, err)
		}
	}
	if p, err := r.AccountsOfRep(ctx, f.low2.ID, repository.PageArgs{First: 10}); err != nil || len(p.Items) != 0 {
		t.Errorf("accounts after: %d, %v", len(p.Items), err)
	}
	if problems := integrityProblems(t, r); len(problems) != 0 {
		t.Errorf("integrity: %v", problems)
	}
	assertExact(t, r)
}
