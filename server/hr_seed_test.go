package server_test

import (
	"context"
	"slices"
	"testing"

	"singletable/server"
)

// The playground's sample data (-seed) holds a consistent HR dataset: every relation has an item
// and a target, every duplicated department name is current, and loading it twice is harmless.
func TestHRSampleData(t *testing.T) {
	a := newAPI(t, server.Config{})
	ctx := context.Background()
	if st, err := a.repo.Seed(ctx); err != nil || st.AlreadyLoaded {
		t.Fatalf("seed: %+v %v", st, err)
	}
	if st, err := a.repo.Seed(ctx); err != nil || !st.AlreadyLoaded {
		t.Fatalf("second seed: %+v %v", st, err)
	}
	var out struct {
		Departments struct {
			Edges []struct {
				Node struct {
					Name      string
					Location  struct{ City string }
					Employees struct {
						Edges []struct {
							Node struct {
								Name, DepartmentName string
								Department           struct{ Name string }
								Manager, Mentor      *struct{ Name string }
								DirectReports        employeeConn
							}
						}
					}
				}
			}
		}
	}
	a.ok(`{ departments { edges { node { name location { city } employees(first: 10) { edges { node {
	  name departmentName department { name } manager { name } mentor { name } directReports(first: 5) { edges { node { name } } } } } } } } } }`, nil, &out)
	var depts []string
	employees, managers, mentors := 0, 0, 0
	reports := map[string][]string{}
	for _, d := range out.Departments.Edges {
		depts = append(depts, d.Node.Name+" @ "+d.Node.Location.City)
		for _, e := range d.Node.Employees.Edges {
			employees++
			if e.Node.DepartmentName != d.Node.Name || e.Node.Department.Name != d.Node.Name {
				t.Errorf("%s: departmentName %q, department %q, listed in %q", e.Node.Name, e.Node.DepartmentName, e.Node.Department.Name, d.Node.Name)
			}
			if e.Node.Manager != nil {
				managers++
			}
			if e.Node.Mentor != nil {
				mentors++
			}
			reports[e.Node.Name] = e.Node.DirectReports.names()
		}
	}
	if !slices.Equal(depts, []string{"Engineering @ San Francisco", "People Operations @ Berlin", "Product @ San Jose", "Sales @ New York"}) {
		t.Fatalf("departments %v", depts)
	}
	if employees != 14 || managers != 12 || mentors != 7 {
		t.Fatalf("%d employees, %d with a manager, %d with a mentor", employees, managers, mentors)
	}
	if got := reports["Margaret Hamilton"]; !slices.Equal(got, []string{"Linus Torvalds", "Barbara Liskov", "Steve Wozniak"}) {
		t.Fatalf("Margaret's reports %v", got)
	}
	var locs struct{ Locations locationConn }
	a.ok(`{ locations(country: "united states", state: "california") { edges { node { city postalCode } } } }`, nil, &locs)
	if got := locs.Locations.cities(); !slices.Equal(got, []string{"San Francisco 94105", "San Jose 95113"}) {
		t.Fatalf("California locations %v", got)
	}
}
