package hr

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// Writes of the HR domain. Every write that touches several items is one TransactWriteItems whose
// conditions re-check, at commit time, what the write read: a relationship is never half written,
// a duplicated department name is never stale when it is copied, and two concurrent changes of one
// relation cannot both win.

// Errors the HR writes return when a condition fails.
var (
	// errDepartmentChanged: the department was renamed between the read and the transaction.
	// Writes that copy the department's name retry on it (see MaxDepartmentAttempts).
	errDepartmentChanged = apperr.Errorf(apperr.CodeConflict, "the department was renamed while this change was made; retry")
	errTransferred       = apperr.Errorf(apperr.CodeConflict, "the employee was transferred by a concurrent change; read it again and retry")
	errChainChanged      = &apperr.Error{Code: apperr.CodeConflict, Field: "managerId", Message: "the management chain changed while the manager was assigned; retry"}
	// errManagerChanged: the employee's manager changed between the read and the transaction.
	// AssignManager reads again on it (see maxAssignAttempts).
	errManagerChanged = &apperr.Error{Code: apperr.CodeConflict, Field: "managerId", Message: "the employee's manager kept being changed by concurrent assignments; retry"}
)

// MaxDepartmentAttempts bounds how often a hire or transfer re-reads a department that was
// renamed under it before giving up with CONFLICT.
const MaxDepartmentAttempts = 3

// maxAssignAttempts bounds how often an assignment of a manager reads the employee's manager
// again after a concurrent assignment changed it, before giving up with CONFLICT.
const maxAssignAttempts = 3

// MaxManagementChain bounds the walk up a manager's chain when looking for a cycle, and so the
// size of the transaction that re-checks the chain (one ConditionCheck per link, 100 actions at
// most per transaction).
const MaxManagementChain = 50

// departmentAsRead is the condition that the department still has the name (and name version) a
// write read from it, so that the name the write copies onto an employee is current when it
// commits.
func departmentAsRead(d *Department) *repository.Condition {
	return &repository.Condition{
		Expr:   "#name = :name AND nameVersion = :v",
		Names:  map[string]string{"#name": "name"},
		Values: map[string]types.AttributeValue{":name": repository.StringValue(d.Name), ":v": repository.NumberValue(d.NameVersion)},
		Err:    errDepartmentChanged,
	}
}

// joinDepartment is a transaction's part for the department an employee joins: its count of
// employees grows by one (none when the employee is in it already), on condition that it still has
// the name the write copies (departmentAsRead).
func (r *HR) joinDepartment(d *Department, joins bool) repository.TxItem {
	var add []repository.Delta
	if joins {
		add = []repository.Delta{{Attr: attrEmployeeCount, By: 1}}
	}
	return r.TxCount(DeptKey(d.ID), add, repository.NotFoundField("departmentId", "department"), departmentAsRead(d))
}

// LocationInput is the input of CreateLocation.
type LocationInput struct {
	Country, State, City, PostalCode, Address string
}

// CreateLocationPlan is what CreateLocation does.
var CreateLocationPlan = repository.OneTransaction("Put COUNTRY#<c> <state>#<city>#<postal>#<l> if absent")

// CreateLocation stores a new location.
func (r *HR) CreateLocation(ctx context.Context, in LocationInput) (*Location, error) {
	ref, err := cleanLocationRef(LocationRef{Country: in.Country, State: in.State, City: in.City, PostalCode: in.PostalCode})
	if err != nil {
		return nil, err
	}
	address, err := repository.CleanText("address", in.Address, 1, repository.MaxAddressLen, false)
	if err != nil {
		return nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	l := &Location{ID: id, Country: ref.Country, State: ref.State, City: ref.City, PostalCode: ref.PostalCode, Address: address, CreatedAt: now}
	return repository.CreateNew(ctx, r.Repo, locationEntity, l, "location")
}

// CreateDepartmentPlan is what CreateDepartment does.
var CreateDepartmentPlan = repository.OneTransaction("Put DEPT#<d> if absent; check the location exists")

// CreateDepartment stores a new department at an existing location, checked in the same
// transaction.
func (r *HR) CreateDepartment(ctx context.Context, name string, loc LocationRef) (*Department, error) {
	name, err := repository.CleanName("name", name)
	if err != nil {
		return nil, err
	}
	// Store the reference as its key spells it (trimmed), not as the caller sent it.
	if loc, err = cleanLocationRef(loc); err != nil {
		return nil, apperr.InvalidInput("locationId", "locationId is not a valid location id")
	}
	locKey, err := LocationKey(loc)
	if err != nil {
		return nil, apperr.InvalidInput("locationId", "locationId is not a valid location id")
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	d := &Department{ID: id, Name: name, Location: loc, NameVersion: 1, PropagatedVersion: 1, CreatedAt: now, UpdatedAt: now, Counted: true}
	return repository.CreateNew(ctx, r.Repo, departmentEntity, d, "department", r.MustExist(locKey, repository.NotFoundField("locationId", "location")))
}

// TransferEmployeePlan is what TransferEmployee does, again when the department was renamed
// meanwhile.
var TransferEmployeePlan = repository.WritePlan{Attempts: MaxDepartmentAttempts, Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = EMP#<e>, PK = EMP#<e> SK = REL#DEPARTMENT, PK = SK = DEPT#<d>, consistent"},
	{Operation: "TransactWriteItems", Calls: 1, What: "Put REL#DEPARTMENT and update EMP#<e> if the membership and job title are as read; check the department's name; Put EMP#<e> JH#<id>, its old job, when it leaves a department"},
}}

// AssignManagerPlan is what AssignManager does, again when the employee's manager changed
// meanwhile.
var AssignManagerPlan = repository.WritePlan{Attempts: maxAssignAttempts, Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = EMP#<e> and EMP#<m>, PK = EMP#<m> SK = REL#MANAGER, consistent"},
	{Operation: "BatchGetItem", Calls: MaxManagementChain - 1, What: "PK = EMP#<m> SK = REL#MANAGER up the manager's chain, consistent, one per level"},
	{Operation: "TransactWriteItems", Calls: 1, What: "Put REL#MANAGER, set EMP#<e> relationsChangedAt; check the manager and every link of the chain as read"},
}}

// AssignManager makes managerId the employee's manager, replacing any previous one. It refuses
// the employee itself and any manager whose own chain of managers leads back to the employee
// (BAD_USER_INPUT: the request can never succeed on this data), found by walking up the chain
// one consistent read per level, at most MaxManagementChain levels. The transaction re-checks
// every link of the chain as read, so two concurrent assignments (A under B, B under A) cannot
// together build a cycle: the second one fails with CONFLICT. It also moves the employee from the
// previous manager's count of direct reports to the new one's, conditioned on the previous
// manager it read: an assignment that finds another one got in first reads again (at most
// maxAssignAttempts times), so that the last assignment wins and each is counted once.
func (r *HR) AssignManager(ctx context.Context, employee, manager string) (*Employee, *Relation, error) {
	if err := repository.CheckID("employeeId", employee); err != nil {
		return nil, nil, err
	}
	if err := repository.CheckID("managerId", manager); err != nil {
		return nil, nil, err
	}
	if employee == manager {
		return nil, nil, apperr.InvalidInput("managerId", "an employee cannot be their own manager")
	}
	for range AssignManagerPlan.Tries() {
		e, rel, err := r.assignManagerOnce(ctx, employee, manager)
		if err != errManagerChanged {
			return e, rel, err
		}
	}
	return nil, nil, errManagerChanged
}

// assignManagerOnce reads the employee, its manager relation, the manager and the manager's chain,
// and writes the assignment in one transaction conditioned on them: errManagerChanged if the
// employee's manager changed meanwhile.
func (r *HR) assignManagerOnce(ctx context.Context, employee, manager string) (*Employee, *Relation, error) {
	own := relationKey(employee, RelManager)
	found, err := r.ReadConsistent(ctx, EmpKey(employee), EmpKey(manager), relationKey(manager, RelManager), own)
	if err != nil {
		return nil, nil, err
	}
	e, ok := repository.FoundAs[*Employee](found, EmpKey(employee))
	if !ok {
		return nil, nil, repository.NotFoundField("employeeId", "employee")
	}
	if _, ok := repository.FoundAs[*Employee](found, EmpKey(manager)); !ok {
		return nil, nil, repository.NotFoundField("managerId", "manager")
	}
	up, hasUp := repository.FoundAs[*Relation](found, relationKey(manager, RelManager))
	links, err := r.managersAbove(ctx, employee, manager, up, hasUp)
	if err != nil {
		return nil, nil, err
	}
	prev, hasPrev := repository.FoundAs[*Relation](found, own)
	rel := &Relation{EmployeeID: employee, Type: RelManager, TargetID: manager, UpdatedAt: r.Stamp()}
	items, err := r.managerItems(rel, prev, hasPrev, links)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Transact(ctx, "assign manager", items); err != nil {
		return nil, nil, err
	}
	return e, rel, nil
}

// managerItems are the writes of an assignment: the relation's move (relationMove: the counts
// of direct reports of the new and the previous manager) and every link of the new manager's
// chain as read.
func (r *HR) managerItems(rel, prev *Relation, hasPrev bool, links []chainLink) ([]repository.TxItem, error) {
	items, err := r.relationMove(rel, prev, hasPrev, AttrDirectReportCount, repository.NotFoundField("managerId", "manager"), errManagerChanged)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		if l.target == "" {
			items = append(items, r.TxCheck(relationKey(l.holder, RelManager), "attribute_not_exists(PK)", nil, nil, errChainChanged))
			continue
		}
		items = append(items, r.TxCheck(relationKey(l.holder, RelManager), "targetId = :t", nil,
			map[string]types.AttributeValue{":t": repository.StringValue(l.target)}, errChainChanged))
	}
	return items, nil
}

// relationMove is the part every assignment of a manager or a mentor writes: the relation item,
// conditioned on the previous target as read (prev, if hasPrev; changed answers otherwise), the
// employee's own item (relationsChanged), and counter on the new target, which must exist
// (missing answers otherwise), and on the previous one, which move with the relation.
func (r *HR) relationMove(rel, prev *Relation, hasPrev bool, counter string, missing, changed error) ([]repository.TxItem, error) {
	relItem, err := relationEntity.Encode(rel)
	if err != nil {
		return nil, err
	}
	relCond, relVals := "attribute_not_exists(PK)", map[string]types.AttributeValue(nil)
	if hasPrev {
		relCond, relVals = "targetId = :old", map[string]types.AttributeValue{":old": repository.StringValue(prev.TargetID)}
	}
	changes := !hasPrev || prev.TargetID != rel.TargetID
	var add []repository.Delta
	if changes {
		add = []repository.Delta{{Attr: counter, By: 1}}
	}
	items := []repository.TxItem{
		r.TxPut(relItem, relCond, relVals, changed),
		r.relationsChanged(rel),
		repository.UnlessMarked(r.TxCount(EmpKey(rel.TargetID), add, missing, nil), missing),
	}
	if hasPrev && changes {
		items = append(items, r.TxCount(EmpKey(prev.TargetID), []repository.Delta{{Attr: counter, By: -1}}, changed, nil))
	}
	return items, nil
}

// chainLink is one step of a chain of managers: holder's manager is target ("" for none).
type chainLink struct{ holder, target string }

// managersAbove walks up the chain of managers above manager (whose own manager relation is up,
// if hasUp), refusing a chain that reaches the employee (a cycle) or runs deeper than
// MaxManagementChain. The links it returns are what the assignment's transaction checks.
func (r *HR) managersAbove(ctx context.Context, employee, manager string, up *Relation, hasUp bool) ([]chainLink, error) {
	var links []chainLink
	holder := manager
	for {
		if !hasUp {
			return append(links, chainLink{holder, ""}), nil
		}
		links = append(links, chainLink{holder, up.TargetID})
		if up.TargetID == employee {
			return nil, apperr.InvalidInput("managerId", "this would make a management cycle: the employee already manages this manager, directly or indirectly")
		}
		if len(links) >= MaxManagementChain {
			return nil, apperr.InvalidInput("managerId", "the chain of managers above this manager is deeper than %d levels", MaxManagementChain)
		}
		holder = up.TargetID
		next, err := r.ReadConsistent(ctx, relationKey(holder, RelManager))
		if err != nil {
			return nil, err
		}
		up, hasUp = repository.FoundAs[*Relation](next, relationKey(holder, RelManager))
	}
}

// AssignMentorPlan is what AssignMentor does.
var AssignMentorPlan = repository.WritePlan{Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = EMP#<e> and EMP#<m>, PK = EMP#<e> SK = REL#MENTOR, consistent"},
	{Operation: "TransactWriteItems", Calls: 1, What: "Put REL#MENTOR if it points at the mentor read, set EMP#<e> relationsChangedAt; count the mentee on the new mentor (which must exist), uncount it on the previous one"},
}}

// AssignMentor makes mentorId the employee's mentor, replacing any previous one. Only an employee
// as their own mentor is refused: mentoring is not a hierarchy, so A mentoring B while B mentors A
// (or a longer ring) is allowed.
func (r *HR) AssignMentor(ctx context.Context, employee, mentor string) (*Employee, *Relation, error) {
	if err := repository.CheckID("employeeId", employee); err != nil {
		return nil, nil, err
	}
	if err := repository.CheckID("mentorId", mentor); err != nil {
		return nil, nil, err
	}
	if employee == mentor {
		return nil, nil, apperr.InvalidInput("mentorId", "an employee cannot be their own mentor")
	}
	own := relationKey(employee, RelMentor)
	found, err := r.ReadConsistent(ctx, EmpKey(employee), EmpKey(mentor), own)
	if err != nil {
		return nil, nil, err
	}
	e, ok := repository.FoundAs[*Employee](found, EmpKey(employee))
	if !ok {
		return nil, nil, repository.NotFoundField("employeeId", "employee")
	}
	if _, ok := repository.FoundAs[*Employee](found, EmpKey(mentor)); !ok {
		return nil, nil, repository.NotFoundField("mentorId", "mentor")
	}
	rel := &Relation{EmployeeID: employee, Type: RelMentor, TargetID: mentor, UpdatedAt: r.Stamp()}
	prev, hasPrev := repository.FoundAs[*Relation](found, own)
	items, err := r.mentorItems(rel, prev, hasPrev)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Transact(ctx, "assign mentor", items); err != nil {
		return nil, nil, err
	}
	return e, rel, nil
}

// errMentorChanged: the employee's mentor changed between the read and the transaction.
var errMentorChanged = &apperr.Error{Code: apperr.CodeConflict, Field: "mentorId", Message: "the employee's mentor was changed by a concurrent assignment; retry"}

// mentorItems are the writes of a mentor assignment: the relation's move (relationMove: the
// counts of mentees of the new mentor and the previous one).
func (r *HR) mentorItems(rel, prev *Relation, hasPrev bool) ([]repository.TxItem, error) {
	return r.relationMove(rel, prev, hasPrev, attrMenteeCount, repository.NotFoundField("mentorId", "mentor"), errMentorChanged)
}

// relationsChanged is the write of an assignment to the employee's own item: it must exist, and
// its relationsChangedAt becomes the relation's time, so that the stream carries an UPDATED
// change of the employee whose manager or mentor changed.
func (r *HR) relationsChanged(rel *Relation) repository.TxItem {
	return repository.UnlessMarked(r.TxUpdate(EmpKey(rel.EmployeeID), "SET relationsChangedAt = :at", "attribute_exists(PK)", nil,
		map[string]types.AttributeValue{":at": repository.StringValue(rel.UpdatedAt.UTC().Format(time.RFC3339Nano))}, repository.NotFoundField("employeeId", "employee")),
		repository.NotFoundField("employeeId", "employee"))
}
