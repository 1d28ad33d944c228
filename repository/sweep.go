package repository

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The sweep: removing what is too large for one transaction, in the background, resumably.
//
// A delete whose items do not fit one transaction writes, in the transaction that makes the object
// disappear (the organization's mark, the ticket's own removal), a sweep record: an item of the
// SWEEP partition that names what is left to remove. The sweeper reads the SWEEP partition and
// finishes each record, then deletes it (in the last transaction of the object's removal where
// there is one). Every step is idempotent (deleting what is gone already is a no-op, counters
// move in the same transaction as the items they count), so a sweep cut short by a crash or a
// restart is simply run again: cmd/server runs the sweeper at start and after every delete that
// left a record.

// The kinds of sweep are declared by the domains, each with the function that finishes its
// records (DeclareSweep): an organization with its users and tickets, a ticket's versions, a user,
// a customer, an employee.

// TypeSweep is the `type` of a sweep record; SweepPK its partition.
const (
	TypeSweep = "Sweep"
	SweepPK   = "SWEEP"
)

// SweepRecord is what is left to remove.
type SweepRecord struct {
	Kind   string `dynamodbav:"kind"`
	Org    string `dynamodbav:"orgId,omitempty"`
	Ticket string `dynamodbav:"ticketId,omitempty"`
	From   int    `dynamodbav:"from,omitempty"`
	To     int    `dynamodbav:"to,omitempty"`
	// Customer names the customer of a sweepCustomer record, User the user of a sweepUserKind
	// one (Org its organization).
	Customer string `dynamodbav:"customerId,omitempty"`
	User     string `dynamodbav:"userId,omitempty"`
	// Employee names the employee of a SweepEmployee record.
	Employee string `dynamodbav:"employeeId,omitempty"`
}

// logAttrs name the object the record removes, for a log line: org, user, ticket, customer,
// employee, those it has.
func (s *SweepRecord) logAttrs() []any {
	attrs := []any{"sweep", s.Kind}
	for _, a := range []struct{ name, v string }{{"org", s.Org}, {"user", s.User}, {"ticket", s.Ticket}, {"customer", s.Customer}, {"employee", s.Employee}} {
		if a.v != "" {
			attrs = append(attrs, a.name, a.v)
		}
	}
	return attrs
}

// key is the record's item key: one record per object being removed. The kinds that came later
// add their object's id, so that the records of the first kinds keep the keys they were written
// with.
func (s *SweepRecord) key() Key {
	parts := []string{s.Kind, s.Org, s.Ticket, strconv.Itoa(s.From)}
	for _, id := range []string{s.Customer, s.User, s.Employee} {
		if id != "" {
			parts = append(parts, id)
		}
	}
	return Key{PK: SweepPK, SK: Join(parts...)}
}

// PutSweep is the Put of a sweep record, part of the transaction that leaves it to do.
func (r *Repo) PutSweep(rec *SweepRecord) TxItem {
	item, _ := attributevalue.MarshalMap(rec) // a struct of strings and ints always marshals
	for k, v := range rec.key().Attributes() {
		item[k] = v
	}
	item[AttrType] = StringValue(TypeSweep)
	return r.TxPut(item, "", nil, nil)
}

// MarkAndSweep is every marked removal: ONE transaction writes the mark (the item's mark and the
// conditions it needs) with the sweep record rec, so that the object reads as missing at once
// and its sweep cannot be forgotten. With now, the sweep runs at once (SweepOne); a sweep that
// fails, or one not run now, is left to the sweeper.
func (r *Repo) MarkAndSweep(ctx context.Context, what string, rec *SweepRecord, now bool, mark ...TxItem) error {
	if err := r.Transact(ctx, what, append(mark, r.PutSweep(rec))); err != nil {
		return err
	}
	if now {
		err := r.SweepOne(ctx, rec)
		if err == nil {
			return nil
		}
		r.Log.Warn(what+": the sweep is left to the sweeper", append(rec.logAttrs(), "error", err)...)
	}
	r.KickSweeper()
	return nil
}

// Mark is the Update that marks the item at key as being removed (it reads as missing from then
// on) and takes it out of the listings whose index attributes unlist names ("" for none); an item
// that is missing or marked already fails with missing.
func (r *Repo) Mark(key Key, unlist string, missing error) TxItem {
	expr := "SET " + AttrDeleting + " = :now"
	if unlist != "" {
		expr += " REMOVE " + unlist
	}
	return r.TxUpdate(key, expr, NotDeleting, nil, map[string]types.AttributeValue{":now": StringValue(r.Stamp().Format(time.RFC3339Nano))}, missing)
}

// DropSweep is the Delete of a sweep record, part of the last transaction of its sweep.
func (r *Repo) DropSweep(rec *SweepRecord) TxItem { return r.DeleteIf(rec.key(), "", nil, nil) }

// SweepKicks receives a value after a delete that left a sweep record (KickSweeper): the
// sweeper (maintenance's StartSweeper) runs at once.
func (r *Repo) SweepKicks() <-chan struct{} { return r.sweepKick }

// KickSweeper wakes the sweeper (StartSweeper) without waiting for it.
func (r *Repo) KickSweeper() {
	select {
	case r.sweepKick <- struct{}{}:
	default:
	}
}

// sweepers finish the sweep records of each kind, and sweepSteps are what other domains add to
// a kind's sweep: each domain that writes or keeps such records declares them in a package-level
// var (DeclareSweep, AlsoSweep), as it defines its items, so a table's sweeps do not depend on
// which stores were made over it, nor on how many.
var (
	sweepers   = map[string]func(context.Context, *Repo, *SweepRecord) error{}
	sweepSteps = map[string][]func(context.Context, *Repo, *SweepRecord) error{}
)

// DeclareSweep makes finish the function that finishes the sweep records of kind (finish deletes
// the record in its last transaction). It returns true, for a package-level var; two finishes of
// one kind are a programming error.
func DeclareSweep(kind string, finish func(context.Context, *Repo, *SweepRecord) error) bool {
	if _, dup := sweepers[kind]; dup {
		panic("repository: two finishes of the sweep kind " + kind)
	}
	sweepers[kind] = finish
	return true
}

// AlsoSweep adds step to the sweeps of kind: what another domain keeps of the removed object (the
// customers an employee was the account rep of). The kind's finish runs the steps (SweepSteps)
// before its last transaction; each step is idempotent, as the finish is. It returns true, for a
// package-level var.
func AlsoSweep(kind string, step func(context.Context, *Repo, *SweepRecord) error) bool {
	sweepSteps[kind] = append(sweepSteps[kind], step)
	return true
}

// SweepSteps runs the steps other domains added to rec's kind (AlsoSweep), in the order added.
func (r *Repo) SweepSteps(ctx context.Context, rec *SweepRecord) error {
	for _, step := range sweepSteps[rec.Kind] {
		if err := step(ctx, r, rec); err != nil {
			return err
		}
	}
	return nil
}

// SweepOne finishes one sweep record and deletes it.
func (r *Repo) SweepOne(ctx context.Context, rec *SweepRecord) error {
	finish := sweepers[rec.Kind]
	if finish == nil {
		return apperr.Internal("sweep", errors.New("unknown sweep kind "+rec.Kind))
	}
	return finish(ctx, r, rec)
}

// MaxSweepRounds bounds the rounds one run of the sweeper spends on one record. A record that
// needs more (a drifted count of users that no user will bring to zero, tickets created faster
// than they are removed) is left for the next run and logged, instead of holding the sweeper, and
// every other record behind it, in a hot loop. Rounds after the first wait a backoff.
const MaxSweepRounds = 8

// ErrSweepUnfinished: a record still had work after MaxSweepRounds; it stays for the next run.
var ErrSweepUnfinished = errors.New("still unfinished after the rounds of one run; left for the next")

// SweepRound waits before every round but the first, so that a record that does not finish does
// not spin.
func (r *Repo) SweepRound(ctx context.Context, round int) error {
	if round == 0 {
		return nil
	}
	if err := SleepCtx(ctx, r.BackoffFn(round-1)); err != nil {
		return apperr.Classify("sweep backoff", err)
	}
	return nil
}

// IsConflict reports a CONFLICT: a concurrent change cancelled a transaction, worth another round.
func IsConflict(err error) bool {
	var coded *apperr.Error
	return errors.As(err, &coded) && coded.Code == apperr.CodeConflict
}

// BatchDelete deletes the items at keys, 25 at a time, retrying UnprocessedItems with backoff.
func (r *Repo) BatchDelete(ctx context.Context, keys []Key) error {
	reqs := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k.Attributes()}}
	}
	return r.batchWriteRequests(ctx, reqs)
}
