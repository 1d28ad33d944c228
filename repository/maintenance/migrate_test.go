package maintenance

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// putOldTicket writes t as an earlier version did: under PK = SK = TICKET#<t>.
func putOldTicket(t *testing.T, r *Maintenance, tk *saas.Ticket) repository.Key {
	t.Helper()
	item, err := saas.TicketEntity.Encode(tk)
	if err != nil {
		t.Fatal(err)
	}
	old := repository.Key{PK: saas.TicketSKPrefix + tk.ID, SK: saas.TicketSKPrefix + tk.ID}
	item[repository.AttrPK], item[repository.AttrSK] = repository.StringValue(old.PK), repository.StringValue(old.SK)
	if _, err := r.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: item}); err != nil {
		t.Fatal(err)
	}
	return old
}

// Migrate moves the tickets an earlier version keyed by their id alone to their tenant's key, in
// one transaction each, leaves tickets already keyed so alone, and a second run changes nothing.
func TestMigrateKeysTicketsByTheirOrganization(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	today, err := r.CreateTicket(ctx, org.ID, u.ID, "written today", "b")
	if err != nil {
		t.Fatal(err)
	}
	id, at, err := r.NewEntityID()
	if err != nil {
		t.Fatal(err)
	}
	oldTicket := &saas.Ticket{ID: id, OrgID: org.ID, ReporterID: u.ID, Title: "written before", Body: "b", Status: saas.TicketOpen, CreatedAt: at, UpdatedAt: at}
	oldKey := putOldTicket(t, r, oldTicket)
	if before, err := r.ReadConsistent(ctx, saas.TicketKeyOf(org.ID, id)); err != nil || len(before) != 0 {
		t.Fatalf("before the migration the ticket has no item under its new key: %v, %v", before, err)
	}

	rep, err := r.Migrate(ctx)
	if err != nil || rep.TicketsRekeyed != 1 {
		t.Fatalf("first run: %+v, %v; want one ticket moved", rep, err)
	}
	found, err := r.ReadConsistent(ctx, oldKey, saas.TicketKeyOf(org.ID, id), saas.TicketKeyOf(org.ID, today.ID))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := found[oldKey]; ok {
		t.Error("the old item is still there")
	}
	if moved, ok := repository.FoundAs[*saas.Ticket](found, saas.TicketKeyOf(org.ID, id)); !ok || moved.Title != "written before" {
		t.Errorf("the moved ticket: %+v", moved)
	}
	if _, ok := found[saas.TicketKeyOf(org.ID, today.ID)]; !ok {
		t.Error("today's ticket is gone")
	}
	if rep, err := r.Migrate(ctx); err != nil || rep.TicketsRekeyed != 0 {
		t.Fatalf("second run: %+v, %v; want nothing to do", rep, err)
	}
	// The user's list holds each ticket once.
	p, err := r.TicketsOfUser(ctx, org.ID, u.ID, saas.TicketFilter{}, repository.PageArgs{First: 10})
	if err != nil || len(p.Items) != 2 {
		t.Fatalf("tickets after the migration: %d, %v", len(p.Items), err)
	}
}

// A ticket whose organization is not known is found by one Query of its partition; a ticket that
// does not exist is NOT_FOUND.
func TestTicketByIDFindsTheOrganization(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	org, _ := r.CreateOrganization(ctx, "Acme")
	u, _ := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com")
	tk, err := r.CreateTicket(ctx, org.ID, u.ID, "t", "b")
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.TicketByID(ctx, tk.ID)
	if err != nil || got.OrgID != org.ID || got.Title != "t" {
		t.Fatalf("TicketByID = %+v, %v", got, err)
	}
	missing, _, _ := r.NewEntityID()
	if _, err := r.TicketByID(ctx, missing); err == nil || err.Error() != "NOT_FOUND: ticket not found" {
		t.Fatalf("a missing ticket: %v", err)
	}
}

// newDepartment is a department, at a location of its own, to hire into.
func newDepartment(t *testing.T, r *Maintenance) *hr.Department {
	t.Helper()
	ctx := context.Background()
	loc, err := r.CreateLocation(ctx, hr.LocationInput{Country: "US", State: "CA", City: "SF", PostalCode: "94105", Address: "1 Main"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.CreateDepartment(ctx, "Eng", loc.Ref())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Migrate gives an employee written before employeesByName existed (no GSI3 key) its key on the
// name index, so employeesByName finds it; a second run changes nothing.
func TestMigrateIndexesEmployeesByName(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	d := newDepartment(t, r)
	e, _, err := r.HireEmployee(ctx, hr.HireInput{DepartmentID: d.ID, Name: "Old Timer", Email: "old@corp.example", JobTitle: "Engineer"})
	if err != nil {
		t.Fatal(err)
	}
	k := hr.EmpKey(e.ID)
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: k.Attributes(),
		UpdateExpression: aws.String("REMOVE GSI3PK, GSI3SK")}); err != nil {
		t.Fatal(err)
	}
	found := func() int {
		p, err := r.EmployeesByName(ctx, "old timer", repository.PageArgs{First: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Items)
	}
	if found() != 0 {
		t.Fatal("an employee without its name key was found by name")
	}
	for run, want := range []int{1, 0} {
		rep, err := r.Migrate(ctx)
		if err != nil || rep.EmployeesIndexedByName != want {
			t.Fatalf("run %d: %+v, %v; want %d indexed", run+1, rep, err, want)
		}
	}
	if found() != 1 {
		t.Fatal("employeesByName misses the migrated employee")
	}
}

// An employee written before names were stored in Unicode NFC ("José" typed with a combining
// accent kept as typed, its name and job-title keys made of that spelling) is not found by
// employeesByName or employeesByJobTitle, which look up the NFC spelling; Migrate brings its name,
// job title and keys to NFC so both find it, a run cut short is resumed by running again, and a
// second run changes nothing.
func TestMigrateNormalizesEmployeeNamesWrittenBeforeNFC(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	d := newDepartment(t, r)
	const nfdName, nfcName = "Jose\u0301 Pe\u0301rez", "Jos\u00e9 P\u00e9rez"
	const nfdTitle, nfcTitle = "Te\u0301cnico", "T\u00e9cnico"
	var ids []string
	for _, email := range []string{"jose@corp.example", "jose2@corp.example"} {
		e, _, err := r.HireEmployee(ctx, hr.HireInput{DepartmentID: d.ID, Name: nfcName, Email: email, JobTitle: nfcTitle})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
		// The item as the version before NFC wrote it: the name and title as typed, keys of them.
		if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: hr.EmpKey(e.ID).Attributes(),
			UpdateExpression:         aws.String("SET #name = :n, jobTitle = :t, GSI3PK = :npk, GSI1PK = :tpk"),
			ExpressionAttributeNames: map[string]string{"#name": "name"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":n": repository.StringValue(nfdName), ":t": repository.StringValue(nfdTitle),
				":npk": repository.StringValue("EMPNAME#" + repository.FoldKey(nfdName)), ":tpk": repository.StringValue("JOBTITLE#" + repository.FoldKey(nfdTitle))}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func() (byName, byTitle int) {
		p, err := r.EmployeesByName(ctx, nfcName, repository.PageArgs{First: 10})
		if err != nil {
			t.Fatal(err)
		}
		q, err := r.EmployeesByJobTitle(ctx, nfcTitle, repository.PageArgs{First: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Items {
			if e.Name != nfcName || e.JobTitle != nfcTitle {
				t.Errorf("found %q, %q; want the NFC spellings", e.Name, e.JobTitle)
			}
		}
		return len(p.Items), len(q.Items)
	}
	if n, m := found(); n != 0 || m != 0 {
		t.Fatalf("before the migration: %d by name, %d by title; want neither found (two keys for one name)", n, m)
	}
	// A run cut short after the first employee: the second run finishes, the third finds nothing.
	first := ids[0]
	if _, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.Table()), Key: hr.EmpKey(first).Attributes(),
		UpdateExpression:         aws.String("SET #name = :n, jobTitle = :t, GSI3PK = :npk, GSI1PK = :tpk"),
		ExpressionAttributeNames: map[string]string{"#name": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": repository.StringValue(nfcName), ":t": repository.StringValue(nfcTitle),
			":npk": repository.StringValue(hr.EmployeeNamePK(nfcName)), ":tpk": repository.StringValue(hr.JobTitlePK(nfcTitle))}}); err != nil {
		t.Fatal(err)
	}
	for run, want := range []int{1, 0} {
		rep, err := r.Migrate(ctx)
		if err != nil || rep.EmployeesNormalized != want || rep.EmployeesIndexedByName != 0 {
			t.Fatalf("run %d: %+v, %v; want %d normalized", run+1, rep, err, want)
		}
	}
	if n, m := found(); n != 2 || m != 2 {
		t.Fatalf("after the migration: %d by name, %d by title; want both employees by each", n, m)
	}
	if p, err := r.EmployeesByName(ctx, nfdName, repository.PageArgs{First: 10}); err != nil || len(p.Items) != 2 {
		t.Fatalf("the NFD spelling finds %d, %v", len(p.Items), err)
	}
}
