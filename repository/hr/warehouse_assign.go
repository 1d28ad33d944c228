package hr

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/catalog"
)

// AssignWarehousePlan is what AssignWarehouse does (explain plans the mutation from it).
var AssignWarehousePlan = repository.WritePlan{Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = SK = EMP#<e>, PK = SK = WAREHOUSE#<w>"),
	repository.TransactCall("Put EMP#<e> REL#WAREHOUSE (GSI1PK = WAREHOUSE#<w>#REL#WAREHOUSE), set EMP#<e> warehouseId; check the warehouse exists"),
}}

// AssignWarehouse makes warehouseId the warehouse the employee works at, replacing any previous
// one, with ONE TransactWriteItems: the relation item REL#WAREHOUSE (inverted on GSI1, so the
// warehouse's employees are one Query, AP31), the copy of its target on the employee item (so
// Employee.warehouse is a key lookup, AP32), and a check that the warehouse still exists. A
// missing employee or warehouse is NOT_FOUND and nothing is written.
func (r *HR) AssignWarehouse(ctx context.Context, employee, warehouse string) (*Employee, *Relation, error) {
	if err := repository.CheckID("employeeId", employee); err != nil {
		return nil, nil, err
	}
	if err := repository.CheckID("warehouseId", warehouse); err != nil {
		return nil, nil, err
	}
	ek, wk := EmpKey(employee), catalog.WarehouseKeyOf(warehouse)
	found, err := r.ReadConsistent(ctx, ek, wk)
	if err != nil {
		return nil, nil, err
	}
	e, ok := repository.FoundAs[*Employee](found, ek)
	if !ok {
		return nil, nil, repository.NotFoundField("employeeId", "employee")
	}
	if _, ok := repository.FoundAs[*catalog.Warehouse](found, wk); !ok {
		return nil, nil, repository.NotFoundField("warehouseId", "warehouse")
	}
	rel := &Relation{EmployeeID: employee, Type: RelWarehouse, TargetID: warehouse, UpdatedAt: r.Stamp()}
	relItem, err := relationEntity.Encode(rel)
	if err != nil {
		return nil, nil, err
	}
	err = r.Transact(ctx, "assign warehouse", []repository.TxItem{
		r.TxPut(relItem, "", nil, nil),
		repository.UnlessMarked(r.TxUpdate(ek, "SET warehouseId = :w", "attribute_exists(PK)", nil,
			map[string]types.AttributeValue{":w": repository.StringValue(warehouse)}, repository.NotFoundField("employeeId", "employee")), repository.NotFoundField("employeeId", "employee")),
		r.MustExist(wk, repository.NotFoundField("warehouseId", "warehouse")),
	})
	if err != nil {
		return nil, nil, err
	}
	upd := *e
	upd.WarehouseID = warehouse
	return &upd, rel, nil
}
