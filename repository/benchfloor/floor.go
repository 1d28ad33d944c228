// Package benchfloor is the benchmark's "direct floor": the deep reads of the API written
// by hand against the SDK, without GraphQL, dataloaders or resolvers. Each issues the minimal set
// of calls — one Query per item collection, ⌈unique keys / 100⌉ BatchGetItem per dependent level,
// nothing read twice — each call as early as its inputs are known, all independent calls at once,
// and decodes every item it reads into the same entities the API returns. Whatever the API spends
// beyond this is the cost of GraphQL and of batching by time window.
//
// It sits under repository/ because it imports the SDK, which only the storage layer may; it is
// a package of its own so that the server binary does not link it (a test in cmd/server checks).
// It reads with the client the repository would (repository.NewClient), decodes with the
// repository's decoder (repository.DecodeEntity), and spells keys from the repository's exported key
// functions (spell.go), so that they cannot drift from the API's.
package benchfloor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// Result counts what a floor read decoded, so the benchmark can check that it read the same
// data as the GraphQL operation it stands beside.
type Result struct {
	// Parents, Children and Leaves count the entities of the tree's three levels (organizations,
	// users, tickets; departments, employees, managers; customers, orders, order items;
	// products, order lines, orders; warehouses, employees, none).
	Parents, Children, Leaves int
	// Refs counts the to-one references resolved (reporters; the managers' departments; the
	// orders' customers, in the commerce and the catalog trees; the staff's departments).
	Refs int
}

// floorReader collects what one floor read has decoded, keyed by item key, so that nothing is
// read twice.
type floorReader struct {
	c    *Client
	raw  spell
	mu   sync.Mutex
	seen map[repository.Key]repository.Entity
}

func newFloorReader(c *Client) *floorReader {
	return &floorReader{c: c, seen: map[repository.Key]repository.Entity{}}
}

func (f *floorReader) remember(es ...repository.Entity) {
	f.mu.Lock()
	for _, e := range es {
		f.seen[e.Key()] = e
	}
	f.mu.Unlock()
}

func (f *floorReader) known(k repository.Key) (repository.Entity, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.seen[k]
	return e, ok
}

// missing returns the keys, duplicates removed, that have not been read yet.
func (f *floorReader) missing(keys []repository.Key) []repository.Key {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]repository.Key, 0, len(keys))
	dup := map[repository.Key]bool{}
	for _, k := range keys {
		if _, ok := f.seen[k]; !ok && !dup[k] {
			dup[k] = true
			out = append(out, k)
		}
	}
	return out
}

// query runs one Query (one call: the benchmark's pages fit in one response) and decodes its items.
func (f *floorReader) query(ctx context.Context, in *dynamodb.QueryInput) ([]repository.Entity, error) {
	in.TableName = aws.String(f.c.table)
	out, err := f.c.db.Query(ctx, in)
	if err != nil {
		return nil, apperr.Classify("floor query", err)
	}
	es := make([]repository.Entity, len(out.Items))
	for i, item := range out.Items {
		if es[i], err = repository.DecodeEntity(item); err != nil {
			return nil, err
		}
	}
	f.remember(es...)
	return es, nil
}

// batchGet reads keys with ⌈len/100⌉ concurrent BatchGetItem calls, retrying UnprocessedKeys.
func (f *floorReader) batchGet(ctx context.Context, keys []repository.Key) error {
	var wg sync.WaitGroup
	errs := make([]error, (len(keys)+maxBatchGetKeys-1)/maxBatchGetKeys)
	for i := range errs {
		chunk := keys[i*maxBatchGetKeys : min((i+1)*maxBatchGetKeys, len(keys))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := make([]map[string]types.AttributeValue, len(chunk))
			for j, k := range chunk {
				req[j] = item(k)
			}
			for attempt := 0; len(req) > 0; attempt++ {
				if attempt >= batchAttempts {
					errs[i] = errors.New("floor batch get: unprocessed keys left")
					return
				}
				out, err := f.c.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
					RequestItems: map[string]types.KeysAndAttributes{f.c.table: {Keys: req}},
				})
				if err != nil {
					errs[i] = apperr.Classify("floor batch get", err)
					return
				}
				for _, it := range out.Responses[f.c.table] {
					e, err := repository.DecodeEntity(it)
					if err != nil {
						errs[i] = err
						return
					}
					f.remember(e)
				}
				req = out.UnprocessedKeys[f.c.table].Keys
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SaaSTree reads organizations → users(first users) → tickets(first tickets) → reporter:
// one Query per organization's item collection (the organization and its users, AP2), and as
// soon as an organization's users are back, one Query per user on GSI1, newest first.
// Reporters are users already read; any that are not are batched at the end.
func SaaSTree(ctx context.Context, c *Client, orgs []string, users, tickets int) (Result, error) {
	f := newFloorReader(c)
	t := &saasTree{f: f, users: users, tickets: tickets, errs: make(chan error, 1)}
	for _, org := range orgs {
		t.wg.Add(1)
		go t.organization(ctx, org)
	}
	t.wg.Wait()
	select {
	case err := <-t.errs:
		return t.res, err
	default:
	}
	t.res.Leaves = len(t.all)
	reporters := make([]repository.Key, len(t.all))
	for i, tk := range t.all {
		reporters[i] = f.raw.UserKey(tk.OrgID, tk.ReporterID)
	}
	if err := f.batchGet(ctx, f.missing(reporters)); err != nil {
		return t.res, err
	}
	for _, k := range reporters {
		if _, ok := f.known(k); ok {
			t.res.Refs++
		}
	}
	return t.res, nil
}

// saasTree is one SaaSTree read under way: its Queries run on goroutines of their own.
type saasTree struct {
	f              *floorReader
	users, tickets int
	wg             sync.WaitGroup
	mu             sync.Mutex
	res            Result
	all            []*saas.Ticket
	errs           chan error
}

func (t *saasTree) fail(err error) {
	select {
	case t.errs <- err:
	default:
	}
}

// organization reads an organization with its first users (one Query of its collection), then
// starts each user's tickets as soon as they are back.
func (t *saasTree) organization(ctx context.Context, org string) {
	defer t.wg.Done()
	x := t.f.raw
	es, err := t.f.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": x.S(x.OrgPK(org))},
		Limit:                     aws.Int32(int32(t.users + 1)),
	})
	if err != nil || len(es) == 0 {
		t.fail(errors.Join(err, fmt.Errorf("floor: organization %s not found", org)))
		return
	}
	t.mu.Lock()
	t.res.Parents++
	t.mu.Unlock()
	for _, e := range es[1:] {
		if u, ok := e.(*saas.User); ok {
			t.mu.Lock()
			t.res.Children++
			t.mu.Unlock()
			t.wg.Add(1)
			go t.ticketsOf(ctx, u)
		}
	}
}

// ticketsOf reads a user's newest tickets: one Query on GSI1, newest first.
func (t *saasTree) ticketsOf(ctx context.Context, u *saas.User) {
	defer t.wg.Done()
	x := t.f.raw
	ts, err := t.f.query(ctx, &dynamodb.QueryInput{
		IndexName:              aws.String(x.GSI1()),
		KeyConditionExpression: aws.String("GSI1PK = :pk AND begins_with(GSI1SK, :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": x.S(x.UserTicketsPK(u.OrgID, u.ID)), ":t": x.S(x.TicketSKPrefix()),
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(t.tickets)),
	})
	if err != nil {
		t.fail(err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tk := range ts {
		if tk, ok := tk.(*saas.Ticket); ok {
			t.all = append(t.all, tk)
		}
	}
}

// HRTree reads departments → employees(first employees) → manager → department. Four
// dependent rounds, each as wide as it can be:
//
//  1. the departments (BatchGetItem) and, at the same time, each department's DEPARTMENT relation
//     items on the inverted GSI1 (one Query per department, AP9): both need only the ids;
//  2. the employees those items name, together with their MANAGER relation items;
//  3. the managers not read yet, together with their DEPARTMENT relation items;
//  4. the managers' departments not read yet.
func HRTree(ctx context.Context, c *Client, departments []string, employees int) (Result, error) {
	f := newFloorReader(c)
	x := f.raw
	var res Result
	// Round 1.
	rels, err := f.departmentsAndMembers(ctx, departments, employees)
	if err != nil {
		return res, err
	}
	res.Parents = len(departments)
	// Round 2.
	var empIDs []string
	var round2 []repository.Key
	for _, list := range rels {
		for _, e := range list {
			if rel, ok := e.(*hr.Relation); ok {
				empIDs = append(empIDs, rel.EmployeeID)
				round2 = append(round2, x.EmployeeKey(rel.EmployeeID), x.RelationKey(rel.EmployeeID, hr.RelManager))
			}
		}
	}
	if err := f.batchGet(ctx, f.missing(round2)); err != nil {
		return res, err
	}
	res.Children = len(empIDs)
	// Round 3.
	var managers []string
	var round3 []repository.Key
	for _, e := range empIDs {
		if rel, ok := f.known(x.RelationKey(e, hr.RelManager)); ok {
			m := rel.(*hr.Relation).TargetID
			managers = append(managers, m)
			round3 = append(round3, x.EmployeeKey(m), x.RelationKey(m, hr.RelDepartment))
		}
	}
	if err := f.batchGet(ctx, f.missing(round3)); err != nil {
		return res, err
	}
	res.Leaves = len(managers)
	// Round 4.
	var round4 []repository.Key
	for _, m := range managers {
		if rel, ok := f.known(x.RelationKey(m, hr.RelDepartment)); ok {
			round4 = append(round4, x.DepartmentKey(rel.(*hr.Relation).TargetID))
		}
	}
	if err := f.batchGet(ctx, f.missing(round4)); err != nil {
		return res, err
	}
	for _, k := range round4 {
		if _, ok := f.known(k); ok {
			res.Refs++
		}
	}
	return res, nil
}

// departmentsAndMembers is HRTree's first round: the departments by key and, at the same time,
// each department's membership relation items (one Query of the inverted GSI1 each, AP9).
func (f *floorReader) departmentsAndMembers(ctx context.Context, departments []string, employees int) ([][]repository.Entity, error) {
	x := f.raw
	deptKeys := make([]repository.Key, len(departments))
	pks := make([]string, len(departments))
	for i, d := range departments {
		deptKeys[i], pks[i] = x.DepartmentKey(d), x.RelationTargetPK(hr.RelDepartment, d)
	}
	return f.keysAndPartitions(ctx, deptKeys, pks, employees, false)
}

// CommerceTree reads customers → orders(first orders) → items + customer: one Query per
// customer's item collection, newest first, which holds the customer, its orders and their items
// ; every order's customer is the customer just read. One round.
func CommerceTree(ctx context.Context, c *Client, customers []string, orders int) (Result, error) {
	f := newFloorReader(c)
	x := f.raw
	var (
		mu  sync.Mutex
		res Result
		wg  sync.WaitGroup
	)
	errs := make([]error, len(customers))
	for i, c := range customers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			es, err := f.query(ctx, &dynamodb.QueryInput{
				KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :profile"),
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":pk": x.S(x.CustomerPK(c)), ":lo": x.S(x.OldestOrderSK()), ":profile": x.S(x.CustomerProfileSK()),
				},
				ScanIndexForward: aws.Bool(false),
			})
			if err != nil {
				errs[i] = err
				return
			}
			// Newest first: the customer, then each order's items followed by the order itself.
			var n, items, refs, pending int
			for _, e := range es {
				switch e := e.(type) {
				case *commerce.OrderItem:
					pending++
				case *commerce.Order:
					if n < orders {
						n++
						items += pending
						if _, ok := f.known(x.CustomerKey(e.CustomerID)); ok {
							refs++
						}
					}
					pending = 0
				}
			}
			mu.Lock()
			res.Parents++
			res.Children += n
			res.Leaves += items
			res.Refs += refs
			mu.Unlock()
		}()
	}
	wg.Wait()
	return res, errors.Join(errs...)
}
