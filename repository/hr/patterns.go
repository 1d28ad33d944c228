package hr

import "singletable/repository"

// The access patterns of the HR domain (Department → Employees on relationship items, locations,
// job history, warehouse staff): how the API reads its items, declared once. The read functions
// of read.go and jobhistory_read.go build their requests from them.
var (
	DepartmentsByName = repository.ListPattern("DepartmentsByName", typeDepartment, "`departments`")
	DepartmentByKey   = repository.Declare(repository.AccessPattern{ID: "AP8", Name: "DepartmentByKey", What: "department by id",
		Fields:    "`department(id)`, `node(s)`, `Employee.department`",
		Operation: repository.BatchGetItem, PartitionKey: "DEPT#<d>", Sort: repository.SortKeyIs, SortKey: []string{"DEPT#<d>"}, Calls: repository.PerLevel})
	MembersOfDepartment = repository.Declare(repository.AccessPattern{ID: "AP9", Name: "MembersOfDepartment", What: "employees of a department, paged",
		Fields:    "`Department.employees`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "DEPT#<d>#REL#DEPARTMENT", Calls: repository.PerParent,
		Notes: "the relationship items pointing at the department, inverted; then the employees by key (MemberByKey)"})
	MemberByKey = repository.Declare(repository.AccessPattern{ID: "AP9", Name: "MemberByKey", What: "the employees a department's relationship items name",
		Fields:    "`Department.employees`",
		Operation: repository.BatchGetItem, PartitionKey: "EMP#<e>", Sort: repository.SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: repository.PerLevel,
		Notes: "ONE BatchGetItem for the employees of every department of the level"})
	RelationByKey = repository.Declare(repository.AccessPattern{ID: "AP10", Name: "RelationByKey", What: "an employee's department, manager, mentor",
		Fields:    "`Employee.department`, `.manager`, `.mentor`",
		Operation: repository.BatchGetItem, PartitionKey: "EMP#<e>", Sort: repository.SortKeyIs, SortKey: []string{"REL#DEPARTMENT / REL#MANAGER / REL#MENTOR"},
		Calls: repository.PerLevel, Notes: "all types in one batch, then their targets (RelationTargetByKey)"})
	RelationTargetByKey = repository.Declare(repository.AccessPattern{ID: "AP10", Name: "RelationTargetByKey", What: "the targets of an employee's relationship items",
		Fields:    "`Employee.department`, `.manager`, `.mentor`",
		Operation: repository.BatchGetItem, PartitionKey: "DEPT#<d> / EMP#<e>", Sort: repository.SortKeyIs, SortKey: []string{"DEPT#<d> / EMP#<e>"}, Calls: repository.PerLevel})
	ReportsOfManager = repository.Declare(repository.AccessPattern{ID: "AP11", Name: "ReportsOfManager", What: "direct reports, paged",
		Fields:    "`Employee.directReports`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "EMP#<m>#REL#MANAGER", Calls: repository.PerParent,
		Notes: "then the employees by key (ReportByKey), as AP9"})
	MenteesOfMentor = repository.Declare(repository.AccessPattern{ID: "AP11", Name: "MenteesOfMentor", What: "mentees, paged",
		Fields:    "`Employee.mentees`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "EMP#<t>#REL#MENTOR", Calls: repository.PerParent,
		Notes: "then the employees by key (ReportByKey), as AP9"})
	ReportByKey = repository.Declare(repository.AccessPattern{ID: "AP11", Name: "ReportByKey", What: "the employees of direct reports' and mentees' relationship items",
		Fields:    "`Employee.directReports`, `.mentees`",
		Operation: repository.BatchGetItem, PartitionKey: "EMP#<e>", Sort: repository.SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: repository.PerLevel})
	EmployeesByJobTitle = repository.Declare(repository.AccessPattern{ID: "AP12", Name: "EmployeesByJobTitle", What: "employees by job title, longest-serving first",
		Fields:    "`employeesByJobTitle`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "JOBTITLE#<title>", Calls: repository.PerParent,
		Notes: "ascending by `<hiredAt>#<e>`; the key moves with the title in the transaction that changes it"})
	EmployeesHiredSince = repository.Declare(repository.AccessPattern{ID: "AP13", Name: "EmployeesHiredSince", What: "employees hired at or after a date, newest first",
		Fields:    "`employeesHiredSince`",
		Operation: repository.Query, Index: repository.GSI2, PartitionKey: repository.TypePK(TypeEmployee), Sort: repository.SortKeyAtLeast, SortKey: []string{"<since>"},
		Backward: true, Calls: repository.PerParent})
	LocationsOfCountry = repository.Declare(repository.AccessPattern{ID: "AP14", Name: "LocationsOfCountry", What: "locations of a country",
		Fields:    "`locations(country)`",
		Operation: repository.Query, PartitionKey: "COUNTRY#<country>", Calls: repository.PerParent,
		Notes: "in key order: by case-folded state, city, postal code, then creation"})
	LocationsUnder = repository.Declare(repository.AccessPattern{ID: "AP14", Name: "LocationsUnder", What: "locations of a state / city / postal code",
		Fields:    "`locations(country, state, city, postalCode)`",
		Operation: repository.Query, PartitionKey: "COUNTRY#<country>", Sort: repository.SortKeyBeginsWith, SortKey: []string{"<state>#<city>#<postal>#"},
		Calls: repository.PerParent, Notes: "as many leading segments as the arguments name, each ending in the delimiter"})
	LocationByKey = repository.Declare(repository.AccessPattern{ID: "AP14", Name: "LocationByKey", What: "one location",
		Fields:    "`node(s)`, `Department.location`",
		Operation: repository.BatchGetItem, PartitionKey: "COUNTRY#<c>", Sort: repository.SortKeyIs, SortKey: []string{"<state>#<city>#<postal>#<l>"}, Calls: repository.PerLevel})
	EmployeeByKey = repository.Declare(repository.AccessPattern{ID: "AP19", Name: "EmployeeByKey", What: "an employee, with its department's name without a second read",
		Fields:    "`employee(id)`, `node(s)`, `Employee.departmentName`",
		Operation: repository.BatchGetItem, PartitionKey: "EMP#<e>", Sort: repository.SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: repository.PerLevel,
		Notes: "the `departmentName` copy on the employee item, kept in step by `renameDepartment`"})
	JobHistoryOf = repository.Declare(repository.AccessPattern{ID: "AP29", Name: "JobHistoryOf", What: "an employee's earlier jobs, latest first, paged",
		Fields:    "`Employee.jobHistory(first, after)`",
		Operation: repository.Query, PartitionKey: "EMP#<e>", Sort: repository.SortKeyBeginsWith, SortKey: []string{jobHistorySKPrefix},
		Backward: true, Calls: repository.PerParent,
		Notes: "one `JobHistory` item written in the transaction that changes the job title or the department"})
	EmployeesByName = repository.Declare(repository.AccessPattern{ID: "AP30", Name: "EmployeesByName", What: "employees with a name (compared without case), longest-serving first",
		Fields:    "`employeesByName(name, first, after)`",
		Operation: repository.Query, Index: repository.GSI3, PartitionKey: "EMPNAME#<name>", Calls: repository.PerParent,
		Notes: "GSI3, the order-status index, overloaded with a partition per name (no order key starts with `EMPNAME#`); `hireEmployee` writes the key with the employee, `updateEmployee` moves it in the transaction that changes the name; employees written before this index existed get their key from `-migrate`"})
	EmployeesOfWarehouse = repository.Declare(repository.AccessPattern{ID: "AP31", Name: "EmployeesOfWarehouse", What: "a warehouse's employees, paged",
		Fields:    "`Warehouse.employees(first, after)`",
		Operation: repository.Query, Index: repository.GSI1, PartitionKey: "WAREHOUSE#<w>#REL#WAREHOUSE", Calls: repository.PerParent,
		Notes: "the employees' `REL#WAREHOUSE` relation items inverted, like AP9; then the employees by key (WarehouseEmployeeByKey)"})
	WarehouseEmployeeByKey = repository.Declare(repository.AccessPattern{ID: "AP31", Name: "WarehouseEmployeeByKey", What: "the employees a warehouse's relation items name",
		Fields:    "`Warehouse.employees`",
		Operation: repository.BatchGetItem, PartitionKey: "EMP#<e>", Sort: repository.SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: repository.PerLevel})
	WarehouseOfEmployee = repository.Declare(repository.AccessPattern{ID: "AP32", Name: "WarehouseOfEmployee", What: "an employee's warehouse",
		Fields:    "`Employee.warehouse`",
		Operation: repository.BatchGetItem, PartitionKey: "WAREHOUSE#<w>", Sort: repository.SortKeyIs, SortKey: []string{"WAREHOUSE#<w>"}, Calls: repository.PerLevel,
		Notes: "from the `warehouseId` copied onto the employee item (AP19's technique): no read of the relation items first"})
)

// inverseRelations is the pattern of each relation type's inverted list.
var inverseRelations = map[RelationType]repository.AccessPattern{
	RelDepartment: MembersOfDepartment,
	RelManager:    ReportsOfManager,
	RelMentor:     MenteesOfMentor,
	RelWarehouse:  EmployeesOfWarehouse,
}
