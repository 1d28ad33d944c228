package benchfloor

import (
	"context"

	"singletable/repository"
	"singletable/repository/hr"
)

// StaffTree reads warehouses → employees(first employees) → department. Three dependent
// rounds, each as wide as it can be:
//
//  1. the warehouses (BatchGetItem) and, at the same time, each warehouse's staff relation items
//     on the inverted GSI1 (one Query per warehouse): both need only the ids;
//  2. the employees the relations name;
//  3. the employees' departments not read yet.
func StaffTree(ctx context.Context, c *Client, warehouses []string, employees int) (Result, error) {
	f := newFloorReader(c)
	x := f.raw
	keys := make([]repository.Key, len(warehouses))
	pks := make([]string, len(warehouses))
	for i, w := range warehouses {
		keys[i], pks[i] = x.WarehouseKey(w), x.WarehouseStaffPK(w)
	}
	rels, err := f.keysAndPartitions(ctx, keys, pks, employees, false)
	if err != nil {
		return Result{}, err
	}
	res := Result{Parents: len(warehouses)}
	var emps []repository.Key
	for _, list := range rels {
		for _, e := range list {
			if rel, ok := e.(*hr.Relation); ok {
				emps = append(emps, x.EmployeeKey(rel.EmployeeID))
			}
		}
	}
	if err := f.batchGet(ctx, f.missing(emps)); err != nil {
		return res, err
	}
	var depts []repository.Key
	for _, k := range emps {
		if e, ok := f.known(k); ok {
			res.Children++
			depts = append(depts, x.DepartmentKey(e.(*hr.Employee).DepartmentID))
		}
	}
	if err := f.batchGet(ctx, f.missing(depts)); err != nil {
		return res, err
	}
	for _, k := range depts {
		if _, ok := f.known(k); ok {
			res.Refs++
		}
	}
	return res, nil
}
