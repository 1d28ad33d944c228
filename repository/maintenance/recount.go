package maintenance

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"singletable/apperr"
	"singletable/repository"
)

// Recounting (the server's -recount flag): every counter (counters.go) set from its collection.
// Tables written before counters existed need it once, and it repairs a counter that drifted (a
// writer that did not follow the rule, an item changed by hand). It walks every parent through
// Queries, never a Scan, and for each:
//
//  1. reads the counters (a consistent read), then counts the collection;
//  2. if the parent is counted and the counts agree, moves on: nothing to write, so a second run
//     writes nothing (idempotent);
//  3. otherwise writes the counts, on condition that the counters are still what step 1 read: a
//     write of the API that changed them meanwhile (it could be in the count or not) fails the
//     condition, and the parent is counted again (at most maxRecountAttempts times, then it is
//     reported busy and left as it was).
//
// So a counter is only ever replaced by a count that no write of the API overtook, which is what
// makes it safe to run while the API serves. The count must also include every write the counters
// read in step 1 include: a collection on the table (an organization's users, a customer's orders)
// is counted with a consistent read, which does. One on an index (a user's tickets, a department's
// employees, a manager's direct reports) is counted from an index, which lags the table by a
// fraction of a second as a rule; there, a count that disagrees is taken again Settle after a new
// read of the counters, and only that count is written (one wait for all the parents that
// disagreed, not one each). The guarantee is therefore: exact, provided
// the index lags the table by less than Settle when -recount runs (CloudWatch's
// OnlineIndexReplicationLag, or the index's age in the stream, say how much it does).

// DefaultRecountSettle is RecountOptions.Settle when zero.
const DefaultRecountSettle = 2 * time.Second

// maxRecountAttempts bounds how often Recount counts a parent whose counters keep moving.
const maxRecountAttempts = 5

// recountWorkers bounds the parents counted at once.
const recountWorkers = 16

// RecountOptions configure Recount.
type RecountOptions struct {
	// Settle is the wait between reading a parent's counters and counting a collection read from
	// an index again (see above); DefaultRecountSettle when zero.
	Settle time.Duration
	// Repaired, if set, is told every counter Recount sets, as it sets it (one call at a time).
	Repaired func(Repair)
}

// Repair is one counter Recount set. Was is nil for a counter the parent did not have; Counted
// says whether the parent's counters were marked exact before.
type Repair struct {
	// Parent names the parent item: its type and key.
	Parent  string
	Counter string
	Was     *int
	Now     int
	Counted bool
}

// String is the repair as -recount prints it.
func (r Repair) String() string {
	was := "none"
	if r.Was != nil {
		was = strconv.Itoa(*r.Was)
	}
	if !r.Counted {
		was += " (not counted)"
	}
	return fmt.Sprintf("%s %s: %s -> %d", r.Parent, r.Counter, was, r.Now)
}

// RecountReport says what Recount did.
type RecountReport struct {
	// Parents is how many parents it counted, Repaired how many of them it wrote.
	Parents, Repaired int
	Repairs           []Repair
	// Busy are the parents whose counters kept moving while they were counted (see
	// maxRecountAttempts): they are left as they were; run Recount again.
	Busy []string
}

// errCountersMoved: the counters changed between their read and the write of the count.
var errCountersMoved = errors.New("the counters changed while they were counted")

// Recount sets every counter from its collection (see above).
func (r *Maintenance) Recount(ctx context.Context, opts RecountOptions) (RecountReport, error) {
	if opts.Settle <= 0 {
		opts.Settle = DefaultRecountSettle
	}
	rec := &recorder{opts: opts}
	for _, t := range repository.Tallies {
		if err := r.recountTally(ctx, t, rec); err != nil {
			return rec.rep, err
		}
	}
	if err := r.recountRepSales(ctx, rec); err != nil {
		return rec.rep, err
	}
	return rec.rep, nil
}

// recorder collects a Recount's report from its workers.
type recorder struct {
	mu   sync.Mutex
	opts RecountOptions
	rep  RecountReport
}

func (rc *recorder) repaired(repairs []Repair) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(repairs) == 0 {
		return
	}
	rc.rep.Repaired++
	rc.rep.Repairs = append(rc.rep.Repairs, repairs...)
	if rc.opts.Repaired != nil {
		for _, rp := range repairs {
			rc.opts.Repaired(rp)
		}
	}
}

// look is a parent's counters as read.
type look struct {
	parent  repository.Entity
	was     map[string]*int
	counted bool
}

// recountTally recounts every parent of t. A first pass reads and counts each parent (recountWorkers
// at once) and writes the counts of a collection on the table at once. A collection read from an
// index that disagrees with its counters is counted again in settled rounds: the counters of all
// such parents are read, Settle passes once, and each is counted and written; one whose counters
// moved meanwhile goes to the next round.
func (r *Maintenance) recountTally(ctx context.Context, t repository.Tally, rec *recorder) error {
	var (
		mu      sync.Mutex
		drifted []repository.Entity
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(recountWorkers)
	err := t.Each(gctx, r.Repo, func(parent repository.Entity) error {
		g.Go(func() error {
			rec.mu.Lock()
			rec.rep.Parents++
			rec.mu.Unlock()
			if t.FromIndex {
				lk, found, err := r.lookAt(gctx, t, parent)
				if err != nil || !found {
					return err
				}
				if _, differs, err := r.countAndSet(gctx, t, lk, false); err != nil || !differs {
					return err
				}
				mu.Lock()
				drifted = append(drifted, parent)
				mu.Unlock()
				return nil
			}
			return r.recountOnTable(gctx, t, parent, rec)
		})
		return nil
	})
	if err = errors.Join(err, g.Wait()); err != nil {
		return err
	}
	for range maxRecountAttempts {
		if len(drifted) == 0 {
			return nil
		}
		if drifted, err = r.settledRound(ctx, t, drifted, rec); err != nil {
			return err
		}
	}
	for _, p := range drifted {
		rec.rep.Busy = append(rec.rep.Busy, parentName(t, p.Key()))
	}
	return nil
}

// recountOnTable recounts a parent whose collection is on the table: read, count, write, again
// while the counters move.
func (r *Maintenance) recountOnTable(ctx context.Context, t repository.Tally, parent repository.Entity, rec *recorder) error {
	for range maxRecountAttempts {
		lk, found, err := r.lookAt(ctx, t, parent)
		if err != nil || !found {
			return err
		}
		repairs, _, err := r.countAndSet(ctx, t, lk, true)
		if errors.Is(err, errCountersMoved) {
			continue
		}
		rec.repaired(repairs)
		return err
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.rep.Busy = append(rec.rep.Busy, parentName(t, parent.Key()))
	return nil
}

// settledRound reads the counters of parents, waits Settle, then counts and writes each; it
// returns the parents whose counters moved meanwhile.
func (r *Maintenance) settledRound(ctx context.Context, t repository.Tally, parents []repository.Entity, rec *recorder) ([]repository.Entity, error) {
	looks := make([]look, len(parents))
	found := make([]bool, len(parents))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(recountWorkers)
	for i, p := range parents {
		g.Go(func() (err error) {
			looks[i], found[i], err = r.lookAt(gctx, t, p)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := repository.SleepCtx(ctx, rec.opts.Settle); err != nil {
		return nil, apperr.Classify("recount", err)
	}
	var (
		mu    sync.Mutex
		again []repository.Entity
	)
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(recountWorkers)
	for i, lk := range looks {
		if !found[i] {
			continue
		}
		g.Go(func() error {
			repairs, _, err := r.countAndSet(gctx, t, lk, true)
			if errors.Is(err, errCountersMoved) {
				mu.Lock()
				again = append(again, lk.parent)
				mu.Unlock()
				return nil
			}
			rec.repaired(repairs)
			return err
		})
	}
	return again, g.Wait()
}

// lookAt reads parent's counters (found is false when the parent is gone).
func (r *Maintenance) lookAt(ctx context.Context, t repository.Tally, parent repository.Entity) (look, bool, error) {
	was, counted, found, err := r.readCounters(ctx, parent.Key(), t.Attrs)
	return look{parent: parent, was: was, counted: counted}, found, err
}

// countAndSet counts lk's collection. differs says the count disagrees with the counters as read
// (or the parent was not counted); with write, such a count is written on condition that the
// counters are still as read (errCountersMoved if not), and the repairs are what it changed.
func (r *Maintenance) countAndSet(ctx context.Context, t repository.Tally, lk look, write bool) (repairs []Repair, differs bool, err error) {
	now, err := r.Count(ctx, t, lk.parent)
	if err != nil {
		return nil, false, err
	}
	if lk.counted && agree(t.Attrs, lk.was, now) {
		return nil, false, nil
	}
	if !write {
		return nil, true, nil
	}
	k := lk.parent.Key()
	if err := r.setCounters(ctx, k, t.Attrs, lk.was, now); err != nil {
		return nil, true, err
	}
	for _, a := range t.Attrs {
		if !lk.counted || lk.was[a] == nil || *lk.was[a] != now[a] {
			repairs = append(repairs, Repair{Parent: parentName(t, k), Counter: a, Was: lk.was[a], Now: now[a], Counted: lk.counted})
		}
	}
	return repairs, true, nil
}

func parentName(t repository.Tally, k repository.Key) string {
	return t.Parent + " " + k.PK + " " + k.SK
}

// agree reports whether every counter was read with the value counted.
func agree(attrs []string, was map[string]*int, now map[string]int) bool {
	for _, a := range attrs {
		if was[a] == nil || *was[a] != now[a] {
			return false
		}
	}
	return true
}

// readCounters reads the counters attrs of the item at k and its counted flag, consistently;
// a counter the item lacks is nil. found is false when there is no item.
func (r *Maintenance) readCounters(ctx context.Context, k repository.Key, attrs []string) (was map[string]*int, counted, found bool, err error) {
	item, err := r.ReadOneConsistent(ctx, k)
	if err != nil || item == nil {
		return nil, false, false, err
	}
	was = make(map[string]*int, len(attrs))
	for _, a := range attrs {
		if v, ok := item[a].(*types.AttributeValueMemberN); ok {
			n, err := strconv.Atoi(v.Value)
			if err != nil {
				return nil, false, false, apperr.Internal("read counters", err)
			}
			was[a] = &n
		}
	}
	c, _ := item[repository.AttrCounted].(*types.AttributeValueMemberBOOL)
	return was, c != nil && c.Value, true, nil
}

// setCounters writes the counts now and marks the item counted, on condition that its counters
// are still was: errCountersMoved otherwise.
func (r *Maintenance) setCounters(ctx context.Context, k repository.Key, attrs []string, was map[string]*int, now map[string]int) error {
	names := map[string]string{"#counted": repository.AttrCounted}
	values := map[string]types.AttributeValue{":true": &types.AttributeValueMemberBOOL{Value: true}}
	sets := []string{"#counted = :true"}
	conds := []string{"attribute_exists(PK)"}
	for i, a := range attrs {
		name, value := "#a"+strconv.Itoa(i), ":n"+strconv.Itoa(i)
		names[name], values[value] = a, repository.NumberValue(now[a])
		sets = append(sets, name+" = "+value)
		if was[a] == nil {
			conds = append(conds, "attribute_not_exists("+name+")")
			continue
		}
		values[":w"+strconv.Itoa(i)] = repository.NumberValue(*was[a])
		conds = append(conds, name+" = :w"+strconv.Itoa(i))
	}
	_, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.Table()),
		Key:                       k.Attributes(),
		UpdateExpression:          aws.String("SET " + strings.Join(sets, ", ")),
		ConditionExpression:       aws.String(strings.Join(conds, " AND ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return errCountersMoved
	}
	if err != nil {
		return apperr.Classify("recount", err)
	}
	return nil
}
