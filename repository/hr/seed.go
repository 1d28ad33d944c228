package hr

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/catalog"
)

// The HR sample: where each department sits, and managers and mentors listed before the
// employees they manage or mentor (an employee's relations name IDs made before it).
var (
	hrSampleBase      = time.Date(2026, 1, 6, 9, 0, 0, 0, time.UTC)
	hrSampleLocations = []struct{ key, country, state, city, postal, address string }{
		{"sf", "United States", "California", "San Francisco", "94105", "415 Mission St"},
		{"sj", "United States", "California", "San Jose", "95113", "1 Market St"},
		{"ny", "United States", "New York", "New York", "10001", "350 5th Ave"},
		{"be", "Germany", "Berlin", "Berlin", "10115", "Invalidenstraße 117"},
	}
	hrSampleDepartments = []struct{ key, name, location string }{
		{"eng", "Engineering", "sf"},
		{"product", "Product", "sj"},
		{"sales", "Sales", "ny"},
		{"people", "People Operations", "be"},
	}
	hrSampleEmployees = []struct{ name, title, dept, manager, mentor, hired string }{
		{"Margaret Hamilton", "VP Engineering", "eng", "", "", "2019-03-04"},
		{"Linus Torvalds", "Staff Engineer", "eng", "Margaret Hamilton", "", "2020-06-01"},
		{"Barbara Liskov", "Principal Engineer", "eng", "Margaret Hamilton", "", "2020-09-14"},
		{"Ken Thompson", "Software Engineer", "eng", "Linus Torvalds", "Barbara Liskov", "2022-01-10"},
		{"Frances Allen", "Software Engineer", "eng", "Linus Torvalds", "Margaret Hamilton", "2023-04-03"},
		{"Radia Perlman", "Software Engineer", "eng", "Barbara Liskov", "Linus Torvalds", "2025-02-17"},
		{"Steve Wozniak", "Head of Product", "product", "Margaret Hamilton", "", "2019-11-18"},
		{"Susan Kare", "Product Designer", "product", "Steve Wozniak", "Steve Wozniak", "2021-05-24"},
		{"Jef Raskin", "Product Manager", "product", "Steve Wozniak", "Susan Kare", "2024-08-05"},
		{"Mary Barra", "VP Sales", "sales", "", "", "2018-07-09"},
		{"Dale Carnegie", "Account Executive", "sales", "Mary Barra", "", "2021-10-04"},
		{"Zig Ziglar", "Account Executive", "sales", "Mary Barra", "Dale Carnegie", "2025-06-30"},
		{"Peter Drucker", "Head of People", "people", "Mary Barra", "", "2019-01-07"},
		{"Mary Parker Follett", "People Partner", "people", "Peter Drucker", "Peter Drucker", "2023-09-11"},
	}
)

// itemCollector collects encoded items; the first encoding error stops it.
type itemCollector struct {
	items []map[string]types.AttributeValue
	err   error
}

func (s *itemCollector) add(item map[string]types.AttributeValue, err error) {
	if s.err == nil && err != nil {
		s.err = err
	}
	if err == nil {
		s.items = append(s.items, item)
	}
}

// HrSampleItems is the HR part of the sample dataset: four locations, four departments and
// fourteen employees with managers, mentors and warehouses (the two sample warehouses in turn),
// every relation as its own item. Ids are fixed (SeedID), so loading it twice writes the same items.
func HrSampleItems() ([]map[string]types.AttributeValue, error) {
	var out itemCollector
	depts := sampleDepartments(&out, sampleLocations(&out))
	if err := sampleEmployees(&out, depts); err != nil {
		return nil, err
	}
	if out.err != nil {
		return nil, out.err
	}
	return out.items, nil
}

func sampleLocations(out *itemCollector) map[string]*Location {
	locs := map[string]*Location{}
	for i, l := range hrSampleLocations {
		at := hrSampleBase.Add(time.Duration(i) * time.Minute)
		loc := &Location{ID: repository.SeedID(at, "location/"+l.key), Country: l.country, State: l.state, City: l.city, PostalCode: l.postal, Address: l.address, CreatedAt: at}
		locs[l.key] = loc
		out.add(locationEntity.Encode(loc))
	}
	return locs
}

func sampleDepartments(out *itemCollector, locs map[string]*Location) map[string]*Department {
	depts := map[string]*Department{}
	for i, d := range hrSampleDepartments {
		at := hrSampleBase.Add(time.Hour + time.Duration(i)*time.Minute)
		dept := &Department{ID: repository.SeedID(at, "department/"+d.key), Name: d.name, Location: locs[d.location].Ref(), NameVersion: 1, PropagatedVersion: 1, CreatedAt: at, UpdatedAt: at}
		depts[d.key] = dept
		out.add(departmentEntity.Encode(dept))
	}
	return depts
}

// sampleEmployees adds each employee with its relation items: its department, its warehouse and,
// where it has them, its manager and mentor.
func sampleEmployees(out *itemCollector, depts map[string]*Department) error {
	ids := map[string]string{}
	for i, e := range hrSampleEmployees {
		at := hrSampleBase.Add(2*time.Hour + time.Duration(i)*time.Minute)
		hired, err := time.Parse(time.DateOnly, e.hired)
		if err != nil {
			return err
		}
		dept := depts[e.dept]
		emp := &Employee{
			ID: repository.SeedID(at, "employee/"+e.name), Name: e.name,
			Email:    strings.ToLower(strings.ReplaceAll(e.name, " ", ".")) + "@corp.example",
			JobTitle: e.title, HiredAt: hired.Add(9 * time.Hour),
			DepartmentID: dept.ID, DepartmentName: dept.Name, DepartmentNameVersion: dept.NameVersion,
			CreatedAt: at, WarehouseID: catalog.SampleWarehouseID(i % len(catalog.SampleWarehouses)),
		}
		ids[e.name] = emp.ID
		out.add(employeeEntity.Encode(emp))
		rels := []*Relation{{EmployeeID: emp.ID, Type: RelDepartment, TargetID: dept.ID, UpdatedAt: at}, {EmployeeID: emp.ID, Type: RelWarehouse, TargetID: emp.WarehouseID, UpdatedAt: at}}
		if e.manager != "" {
			rels = append(rels, &Relation{EmployeeID: emp.ID, Type: RelManager, TargetID: ids[e.manager], UpdatedAt: at})
		}
		if e.mentor != "" {
			rels = append(rels, &Relation{EmployeeID: emp.ID, Type: RelMentor, TargetID: ids[e.mentor], UpdatedAt: at})
		}
		for _, rel := range rels {
			out.add(relationEntity.Encode(rel))
		}
	}
	return nil
}
