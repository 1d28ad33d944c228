package server_test

import (
	"context"
	"fmt"
	"time"

	"singletable/graph/model"
	"singletable/repository/hr"
)

func departmentID(d *hr.Department) string {
	return model.Departments.IDOf(d.ID)
}
func employeeID(e *hr.Employee) string { return model.Employees.IDOf(e.ID) }
func locationID(l *hr.Location) string { return model.Locations.ID(l) }

// hrFixture creates HR data through the repository.
type hrFixture struct {
	a   *api
	ctx context.Context
	loc *hr.Location
	n   int
}

func (a *api) hr() *hrFixture {
	a.t.Helper()
	f := &hrFixture{a: a, ctx: context.Background()}
	f.loc = f.location("United States", "California", "San Jose", "95113", "1 Market St")
	return f
}

func (f *hrFixture) location(country, state, city, postal, address string) *hr.Location {
	f.a.t.Helper()
	l, err := f.a.repo.CreateLocation(f.ctx, hr.LocationInput{Country: country, State: state, City: city, PostalCode: postal, Address: address})
	if err != nil {
		f.a.t.Fatal(err)
	}
	return l
}

func (f *hrFixture) department(name string) *hr.Department {
	f.a.t.Helper()
	d, err := f.a.repo.CreateDepartment(f.ctx, name, f.loc.Ref())
	if err != nil {
		f.a.t.Fatal(err)
	}
	return d
}

// hireOpts are the optional parts of a hire.
type hireOpts struct {
	title           string
	hiredAt         time.Time
	manager, mentor *hr.Employee
}

func (f *hrFixture) hire(d *hr.Department, name string, o hireOpts) *hr.Employee {
	f.a.t.Helper()
	f.n++
	in := hr.HireInput{DepartmentID: d.ID, Name: name, Email: fmt.Sprintf("e%d@corp.example", f.n), JobTitle: o.title}
	if in.JobTitle == "" {
		in.JobTitle = "Engineer"
	}
	if !o.hiredAt.IsZero() {
		in.HiredAt = &o.hiredAt
	}
	if o.manager != nil {
		in.ManagerID = &o.manager.ID
	}
	if o.mentor != nil {
		in.MentorID = &o.mentor.ID
	}
	e, _, err := f.a.repo.HireEmployee(f.ctx, in)
	if err != nil {
		f.a.t.Fatal(err)
	}
	return e
}

type employeeConn struct {
	Edges []struct {
		Cursor string
		Node   struct {
			ID, Name, DepartmentName string
		}
	}
	PageInfo pageInfo
}

func (c employeeConn) names() []string {
	out := make([]string, len(c.Edges))
	for i, e := range c.Edges {
		out[i] = e.Node.Name
	}
	return out
}
