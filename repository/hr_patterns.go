package repository

// The access patterns of the HR domain (Department → Employees on relationship items, locations,
// job history, warehouse staff): how the API reads its items, declared once. The read functions
// of hr_read.go and hr_jobhistory_read.go build their requests from them.
var (
	DepartmentsByName = ListPattern("DepartmentsByName", typeDepartment, "`departments`")
	DepartmentByKey   = Declare(AccessPattern{ID: "AP8", Name: "DepartmentByKey", What: "department by id",
		Fields:    "`department(id)`, `node(s)`, `Employee.department`",
		Operation: BatchGetItem, PartitionKey: "DEPT#<d>", Sort: SortKeyIs, SortKey: []string{"DEPT#<d>"}, Calls: PerLevel})
	MembersOfDepartment = Declare(AccessPattern{ID: "AP9", Name: "MembersOfDepartment", What: "employees of a department, paged",
		Fields:    "`Department.employees`",
		Operation: Query, Index: Gsi1, PartitionKey: "DEPT#<d>#REL#DEPARTMENT", Calls: PerParent,
		Notes: "the relationship items pointing at the department, inverted; then the employees by key (MemberByKey)"})
	MemberByKey = Declare(AccessPattern{ID: "AP9", Name: "MemberByKey", What: "the employees a department's relationship items name",
		Fields:    "`Department.employees`",
		Operation: BatchGetItem, PartitionKey: "EMP#<e>", Sort: SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: PerLevel,
		Notes: "ONE BatchGetItem for the employees of every department of the level"})
	RelationByKey = Declare(AccessPattern{ID: "AP10", Name: "RelationByKey", What: "an employee's department, manager, mentor",
		Fields:    "`Employee.department`, `.manager`, `.mentor`",
		Operation: BatchGetItem, PartitionKey: "EMP#<e>", Sort: SortKeyIs, SortKey: []string{"REL#DEPARTMENT / REL#MANAGER / REL#MENTOR"},
		Calls: PerLevel, Notes: "all types in one batch, then their targets (RelationTargetByKey)"})
	RelationTargetByKey = Declare(AccessPattern{ID: "AP10", Name: "RelationTargetByKey", What: "the targets of an employee's relationship items",
		Fields:    "`Employee.department`, `.manager`, `.mentor`",
		Operation: BatchGetItem, PartitionKey: "DEPT#<d> / EMP#<e>", Sort: SortKeyIs, SortKey: []string{"DEPT#<d> / EMP#<e>"}, Calls: PerLevel})
	ReportsOfManager = Declare(AccessPattern{ID: "AP11", Name: "ReportsOfManager", What: "direct reports, paged",
		Fields:    "`Employee.directReports`",
		Operation: Query, Index: Gsi1, PartitionKey: "EMP#<m>#REL#MANAGER", Calls: PerParent,
		Notes: "then the employees by key (ReportByKey), as AP9"})
	MenteesOfMentor = Declare(AccessPattern{ID: "AP11", Name: "MenteesOfMentor", What: "mentees, paged",
		Fields:    "`Employee.mentees`",
		Operation: Query, Index: Gsi1, PartitionKey: "EMP#<t>#REL#MENTOR", Calls: PerParent,
		Notes: "then the employees by key (ReportByKey), as AP9"})
	ReportByKey = Declare(AccessPattern{ID: "AP11", Name: "ReportByKey", What: "the employees of direct reports' and mentees' relationship items",
		Fields:    "`Employee.directReports`, `.mentees`",
		Operation: BatchGetItem, PartitionKey: "EMP#<e>", Sort: SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: PerLevel})
	EmployeesByJobTitle = Declare(AccessPattern{ID: "AP12", Name: "EmployeesByJobTitle", What: "employees by job title, longest-serving first",
		Fields:    "`employeesByJobTitle`",
		Operation: Query, Index: Gsi1, PartitionKey: "JOBTITLE#<title>", Calls: PerParent,
		Notes: "ascending by `<hiredAt>#<e>`; the key moves with the title in the transaction that changes it"})
	EmployeesHiredSince = Declare(AccessPattern{ID: "AP13", Name: "EmployeesHiredSince", What: "employees hired at or after a date, newest first",
		Fields:    "`employeesHiredSince`",
		Operation: Query, Index: Gsi2, PartitionKey: TypePK(TypeEmployee), Sort: SortKeyAtLeast, SortKey: []string{"<since>"},
		Backward: true, Calls: PerParent})
	LocationsOfCountry = Declare(AccessPattern{ID: "AP14", Name: "LocationsOfCountry", What: "locations of a country",
		Fields:    "`locations(country)`",
		Operation: Query, PartitionKey: "COUNTRY#<country>", Calls: PerParent,
		Notes: "in key order: by case-folded state, city, postal code, then creation"})
	LocationsUnder = Declare(AccessPattern{ID: "AP14", Name: "LocationsUnder", What: "locations of a state / city / postal code",
		Fields:    "`locations(country, state, city, postalCode)`",
		Operation: Query, PartitionKey: "COUNTRY#<country>", Sort: SortKeyBeginsWith, SortKey: []string{"<state>#<city>#<postal>#"},
		Calls: PerParent, Notes: "as many leading segments as the arguments name, each ending in the delimiter"})
	LocationByKey = Declare(AccessPattern{ID: "AP14", Name: "LocationByKey", What: "one location",
		Fields:    "`node(s)`, `Department.location`",
		Operation: BatchGetItem, PartitionKey: "COUNTRY#<c>", Sort: SortKeyIs, SortKey: []string{"<state>#<city>#<postal>#<l>"}, Calls: PerLevel})
	EmployeeByKey = Declare(AccessPattern{ID: "AP19", Name: "EmployeeByKey", What: "an employee, with its department's name without a second read",
		Fields:    "`employee(id)`, `node(s)`, `Employee.departmentName`",
		Operation: BatchGetItem, PartitionKey: "EMP#<e>", Sort: SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: PerLevel,
		Notes: "the `departmentName` copy on the employee item, kept in step by `renameDepartment`"})
	JobHistoryOf = Declare(AccessPattern{ID: "AP29", Name: "JobHistoryOf", What: "an employee's earlier jobs, latest first, paged",
		Fields:    "`Employee.jobHistory(first, after)`",
		Operation: Query, PartitionKey: "EMP#<e>", Sort: SortKeyBeginsWith, SortKey: []string{jobHistorySKPrefix},
		Backward: true, Calls: PerParent,
		Notes: "one `JobHistory` item written in the transaction that changes the job title or the department"})
	EmployeesByName = Declare(AccessPattern{ID: "AP30", Name: "EmployeesByName", What: "employees with a name (compared without case), longest-serving first",
		Fields:    "`employeesByName(name, first, after)`",
		Operation: Query, Index: GSI3, PartitionKey: "EMPNAME#<name>", Calls: PerParent,
		Notes: "GSI3, the order-status index, overloaded with a partition per name (no order key starts with `EMPNAME#`); `hireEmployee` writes the key with the employee, `updateEmployee` moves it in the transaction that changes the name; employees written before this index existed get their key from `-migrate`"})
	EmployeesOfWarehouse = Declare(AccessPattern{ID: "AP31", Name: "EmployeesOfWarehouse", What: "a warehouse's employees, paged",
		Fields:    "`Warehouse.employees(first, after)`",
		Operation: Query, Index: Gsi1, PartitionKey: "WAREHOUSE#<w>#REL#WAREHOUSE", Calls: PerParent,
		Notes: "the employees' `REL#WAREHOUSE` relation items inverted, like AP9; then the employees by key (WarehouseEmployeeByKey)"})
	WarehouseEmployeeByKey = Declare(AccessPattern{ID: "AP31", Name: "WarehouseEmployeeByKey", What: "the employees a warehouse's relation items name",
		Fields:    "`Warehouse.employees`",
		Operation: BatchGetItem, PartitionKey: "EMP#<e>", Sort: SortKeyIs, SortKey: []string{"EMP#<e>"}, Calls: PerLevel})
	WarehouseOfEmployee = Declare(AccessPattern{ID: "AP32", Name: "WarehouseOfEmployee", What: "an employee's warehouse",
		Fields:    "`Employee.warehouse`",
		Operation: BatchGetItem, PartitionKey: "WAREHOUSE#<w>", Sort: SortKeyIs, SortKey: []string{"WAREHOUSE#<w>"}, Calls: PerLevel,
		Notes: "from the `warehouseId` copied onto the employee item (AP19's technique): no read of the relation items first"})
)

// inverseRelations is the pattern of each relation type's inverted list.
var inverseRelations = map[RelationType]AccessPattern{
	RelDepartment: MembersOfDepartment,
	RelManager:    ReportsOfManager,
	RelMentor:     MenteesOfMentor,
	RelWarehouse:  EmployeesOfWarehouse,
}
