package repository

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// hrSampleItems is the HR part of the sample dataset: four locations, four departments and
// fourteen employees with managers, mentors and warehouses (the two sample warehouses in turn),
// every relation as its own item. Ids are fixed (seedID), so loading it twice writes the same items.
func hrSampleItems() ([]map[string]types.AttributeValue, error) {
	base := time.Date(2026, 1, 6, 9, 0, 0, 0, time.UTC)
	locations := []struct{ key, country, state, city, postal, address string }{
		{"sf", "United States", "California", "San Francisco", "94105", "415 Mission St"},
		{"sj", "United States", "California", "San Jose", "95113", "1 Market St"},
		{"ny", "United States", "New York", "New York", "10001", "350 5th Ave"},
		{"be", "Germany", "Berlin", "Berlin", "10115", "Invalidenstraße 117"},
	}
	departments := []struct{ key, name, location string }{
		{"eng", "Engineering", "sf"},
		{"product", "Product", "sj"},
		{"sales", "Sales", "ny"},
		{"people", "People Operations", "be"},
	}
	// Managers and mentors are listed before the employees they manage or mentor.
	employees := []struct {
		name, title, dept, manager, mentor string
		hired                              string
	}{
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

	var items []map[string]types.AttributeValue
	add := func(item map[string]types.AttributeValue, err error) error {
		if err != nil {
			return err
		}
		items = append(items, item)
		return nil
	}
	locs := map[string]*Location{}
	for i, l := range locations {
		at := base.Add(time.Duration(i) * time.Minute)
		loc := &Location{ID: seedID(at, "location/"+l.key), Country: l.country, State: l.state, City: l.city, PostalCode: l.postal, Address: l.address, CreatedAt: at}
		locs[l.key] = loc
		if err := add(locationEntity.encode(loc)); err != nil {
			return nil, err
		}
	}
	depts := map[string]*Department{}
	for i, d := range departments {
		at := base.Add(time.Hour + time.Duration(i)*time.Minute)
		dept := &Department{ID: seedID(at, "department/"+d.key), Name: d.name, Location: locs[d.location].Ref(), NameVersion: 1, PropagatedVersion: 1, CreatedAt: at, UpdatedAt: at}
		depts[d.key] = dept
		if err := add(departmentEntity.encode(dept)); err != nil {
			return nil, err
		}
	}
	ids := map[string]string{}
	for i, e := range employees {
		at := base.Add(2*time.Hour + time.Duration(i)*time.Minute)
		hired, err := time.Parse(time.DateOnly, e.hired)
		if err != nil {
			return nil, err
		}
		dept := depts[e.dept]
		emp := &Employee{
			ID: seedID(at, "employee/"+e.name), Name: e.name,
			Email:    strings.ToLower(strings.ReplaceAll(e.name, " ", ".")) + "@corp.example",
			JobTitle: e.title, HiredAt: hired.Add(9 * time.Hour),
			DepartmentID: dept.ID, DepartmentName: dept.Name, DepartmentNameVersion: dept.NameVersion,
			CreatedAt: at, WarehouseID: sampleWarehouseID(i % len(sampleWarehouses)),
		}
		ids[e.name] = emp.ID
		if err := add(employeeEntity.encode(emp)); err != nil {
			return nil, err
		}
		rels := []*Relation{{EmployeeID: emp.ID, Type: RelDepartment, TargetID: dept.ID, UpdatedAt: at}, {EmployeeID: emp.ID, Type: RelWarehouse, TargetID: emp.WarehouseID, UpdatedAt: at}}
		if e.manager != "" {
			rels = append(rels, &Relation{EmployeeID: emp.ID, Type: RelManager, TargetID: ids[e.manager], UpdatedAt: at})
		}
		if e.mentor != "" {
			rels = append(rels, &Relation{EmployeeID: emp.ID, Type: RelMentor, TargetID: ids[e.mentor], UpdatedAt: at})
		}
		for _, rel := range rels {
			if err := add(relationEntity.encode(rel)); err != nil {
				return nil, err
			}
		}
	}
	return items, nil
}
