package repository

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// Corrections (updateOrganization, updateUser, updateCustomer, relocateDepartment) change a few
// attributes of an item that concurrent writes also change (its counters). They are therefore
// never a Put of the whole item, which would undo a concurrent counter change, but an Update that
// sets the attributes the correction gives and, when one of them makes an index key, every
// secondary index key of the item's next state: the index keys follow the attributes they are made
// of (a renamed organization moves in the by-name listing) in the same write. Attributes the
// correction does not give are not written at all, not even with the value read: that value may be
// stale already (an email-only correction must not undo a concurrent rename).

// AttrDeleting marks an item whose object is being removed by a sweep (sweep.go): reads answer as
// for a missing object, and writes under it are refused by their conditions.
const AttrDeleting = "deleting"

// NotDeleting is the condition that an item exists and is not being removed.
const NotDeleting = "attribute_exists(PK) AND attribute_not_exists(" + AttrDeleting + ")"

// TxSetFrom is an Update of the item at k that sets the attributes attrs of next (an encoded
// item, the object's next state) and, with indexes (attrs make an index key), every index key next
// has, on condition c (whose err is also the error of a missing item).
func (r *Repo) TxSetFrom(k Key, next map[string]types.AttributeValue, attrs []string, indexes bool, c Condition) TxItem {
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	for name, v := range c.Values {
		values[name] = v
	}
	for name, v := range c.Names {
		names[name] = v
	}
	for a := range next {
		if indexes && strings.HasPrefix(a, "GSI") {
			attrs = append(attrs, a)
		}
	}
	sort.Strings(attrs)
	parts := make([]string, len(attrs))
	for i, a := range attrs {
		name, value := "#s"+strconv.Itoa(i), ":s"+strconv.Itoa(i)
		names[name], values[value] = a, next[a]
		parts[i] = name + " = " + value
	}
	return r.TxUpdate(k, "SET "+strings.Join(parts, ", "), c.Expr, names, values, c.Err)
}

// NoChange is the BAD_USER_INPUT of a correction that names no field to change.
func NoChange(fields string) error {
	return apperr.InvalidInput("input", "give at least one of %s", fields)
}

// BeingRemoved is the condition, on a parent a write adds to, that the parent is not being
// removed: a create under it is refused with err, as under a missing parent.
func BeingRemoved(err error) *Condition {
	return &Condition{Expr: "attribute_not_exists(" + AttrDeleting + ")", Err: err}
}

// NotErased adds to c, a condition on a parent a write adds to, that the parent is not being
// removed (a marked parent then answers as a missing one: TxCount).
func NotErased(c *Condition) *Condition {
	out := *c
	out.Expr = "attribute_not_exists(" + AttrDeleting + ") AND (" + c.Expr + ")"
	return &out
}

// GuardedEmail is a correction of an object whose email a guard item keeps unique: its item at key
// gets the fields given (name, email; the name makes its listing's index key) from next (its
// encoded new state) on condition that its email is still readEmail; when
// the guard's key changes, the new guard (NewGuard) is put, taken if another object holds it, and
// the old one (OldGuard) deleted on condition that its owner attribute names the object (id).
type GuardedEmail struct {
	Key       Key
	Fields    []string
	Next      map[string]types.AttributeValue
	ReadEmail string
	OldGuard  Key
	NewGuard  map[string]types.AttributeValue
	Owner, ID string
	// Taken is the error of an email another object holds, changed that of a concurrent change.
	Taken, Changed error
}

// GuardedEmailItems is the correction's transaction.
func (r *Repo) GuardedEmailItems(g GuardedEmail) []TxItem {
	asRead := Condition{
		Expr:   NotDeleting + " AND email = :readEmail",
		Values: map[string]types.AttributeValue{":readEmail": StringValue(g.ReadEmail)},
		Err:    g.Changed,
	}
	items := []TxItem{r.TxSetFrom(g.Key, g.Next, g.Fields, slices.Contains(g.Fields, "name"), asRead)}
	if newKey := (Key{PK: StringAttr(g.NewGuard, AttrPK), SK: StringAttr(g.NewGuard, AttrSK)}); newKey != g.OldGuard {
		items = append(items,
			r.PutNew(g.NewGuard, g.Taken),
			r.DeleteIf(g.OldGuard, g.Owner+" = :owner", map[string]types.AttributeValue{":owner": StringValue(g.ID)}, g.Changed))
	}
	return items
}

// UnlessMarked refuses it (an Update or a ConditionCheck of an object's item) when the item carries
// the mark of a removal (AttrDeleting), with missing, as for a missing item: the object being
// removed takes no new writes, and none that point at it (an employee being removed gets no
// reports, mentees or accounts). A condition of it that fails on an unmarked item keeps its error.
func UnlessMarked(it TxItem, missing error) TxItem {
	guard := func(expr *string) *string {
		if expr == nil || *expr == "" {
			return aws.String(NotDeleting)
		}
		return aws.String("attribute_not_exists(" + AttrDeleting + ") AND (" + *expr + ")")
	}
	switch {
	case it.Item.Update != nil:
		it.Item.Update.ConditionExpression = guard(it.Item.Update.ConditionExpression)
		it.Item.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	case it.Item.ConditionCheck != nil:
		it.Item.ConditionCheck.ConditionExpression = guard(it.Item.ConditionCheck.ConditionExpression)
		it.Item.ConditionCheck.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	prev, prevOld := it.onCondition, it.OnConditionOld
	it.OnConditionOld = func(old map[string]types.AttributeValue) error {
		if _, marked := old[AttrDeleting]; len(old) == 0 || marked {
			return missing
		}
		if prevOld != nil {
			return prevOld(old)
		}
		return prev
	}
	return it
}

// UserPatch is what an update of a name and an email (a user's, a customer's) may change; nil
// leaves a field as it is.
type UserPatch struct{ Name, Email *string }

func (p UserPatch) Clean() (UserPatch, error) {
	if p.Name == nil && p.Email == nil {
		return p, NoChange("name, email")
	}
	if p.Name != nil {
		v, err := CleanName("name", *p.Name)
		if err != nil {
			return p, err
		}
		p.Name = &v
	}
	if p.Email != nil {
		v, err := CleanEmail("email", *p.Email)
		if err != nil {
			return p, err
		}
		p.Email = &v
	}
	return p, nil
}

// Fields names the attributes the patch gives: the only ones its Update sets.
func (p UserPatch) Fields() []string {
	var out []string
	if p.Name != nil {
		out = append(out, "name")
	}
	if p.Email != nil {
		out = append(out, "email")
	}
	return out
}
