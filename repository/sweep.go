package repository

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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

// The kinds of sweep.
const (
	// sweepOrganization: an organization marked as being removed, with its users and tickets.
	sweepOrganization = "ORGANIZATION"
	// sweepTicketVersions: the versions From..To of a removed ticket whose history did not fit
	// the ticket's own transaction.
	sweepTicketVersions = "TICKETVERSIONS"
	// sweepCustomer: a customer marked as being erased, with its orders (commerce_delete.go).
	sweepCustomer = "CUSTOMER"
	// sweepUser: a user marked as being removed with its tickets (deleteUser with cascade).
	sweepUserKind = "USER"
	// sweepEmployee: what a removed employee leaves elsewhere: its earlier jobs (JH# items) and
	// the customers it was the account rep of (hr_delete.go).
	sweepEmployee = "EMPLOYEE"
)

// typeSweep is the `type` of a sweep record; sweepPK its partition.
const (
	typeSweep = "Sweep"
	sweepPK   = "SWEEP"
)

// sweepRecord is what is left to remove.
type sweepRecord struct {
	Kind   string `dynamodbav:"kind"`
	Org    string `dynamodbav:"orgId,omitempty"`
	Ticket string `dynamodbav:"ticketId,omitempty"`
	From   int    `dynamodbav:"from,omitempty"`
	To     int    `dynamodbav:"to,omitempty"`
	// Customer names the customer of a sweepCustomer record, User the user of a sweepUserKind
	// one (Org its organization).
	Customer string `dynamodbav:"customerId,omitempty"`
	User     string `dynamodbav:"userId,omitempty"`
	// Employee names the employee of a sweepEmployee record.
	Employee string `dynamodbav:"employeeId,omitempty"`
}

// logAttrs name the object the record removes, for a log line: org, user, ticket, customer,
// employee, those it has.
func (s *sweepRecord) logAttrs() []any {
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
func (s *sweepRecord) key() Key {
	parts := []string{s.Kind, s.Org, s.Ticket, strconv.Itoa(s.From)}
	for _, id := range []string{s.Customer, s.User, s.Employee} {
		if id != "" {
			parts = append(parts, id)
		}
	}
	return Key{PK: sweepPK, SK: join(parts...)}
}

// putSweep is the Put of a sweep record, part of the transaction that leaves it to do.
func (r *Repo) putSweep(rec *sweepRecord) txItem {
	item, _ := attributevalue.MarshalMap(rec) // a struct of strings and ints always marshals
	for k, v := range rec.key().Attributes() {
		item[k] = v
	}
	item[AttrType] = StringValue(typeSweep)
	return r.txPut(item, "", nil, nil)
}

// markAndSweep is every marked removal: ONE transaction writes the mark (the item's mark and the
// conditions it needs) with the sweep record rec, so that the object reads as missing at once
// and its sweep cannot be forgotten. With now, the sweep runs at once (sweepOne); a sweep that
// fails, or one not run now, is left to the sweeper.
func (r *Repo) markAndSweep(ctx context.Context, what string, rec *sweepRecord, now bool, mark ...txItem) error {
	if err := r.transact(ctx, what, append(mark, r.putSweep(rec))); err != nil {
		return err
	}
	if now {
		err := r.sweepOne(ctx, rec)
		if err == nil {
			return nil
		}
		r.Log.Warn(what+": the sweep is left to the sweeper", append(rec.logAttrs(), "error", err)...)
	}
	r.kickSweeper()
	return nil
}

// mark is the Update that marks the item at key as being removed (it reads as missing from then
// on) and takes it out of the listings whose index attributes unlist names ("" for none); an item
// that is missing or marked already fails with missing.
func (r *Repo) mark(key Key, unlist string, missing error) txItem {
	expr := "SET " + attrDeleting + " = :now"
	if unlist != "" {
		expr += " REMOVE " + unlist
	}
	return r.txUpdate(key, expr, notDeleting, nil, map[string]types.AttributeValue{":now": StringValue(r.stamp().Format(time.RFC3339Nano))}, missing)
}

// dropSweep is the Delete of a sweep record, part of the last transaction of its sweep.
func (r *Repo) dropSweep(rec *sweepRecord) txItem { return r.deleteIf(rec.key(), "", nil, nil) }

// kickSweeper wakes the sweeper (StartSweeper) without waiting for it.
func (r *Repo) kickSweeper() {
	select {
	case r.sweepKick <- struct{}{}:
	default:
	}
}

// Sweep finishes every sweep record of the table and returns how many it finished. A record whose
// sweep fails stays for the next run; the first error is returned after the others were tried.
func (r *Repo) Sweep(ctx context.Context) (int, error) {
	raw, err := r.sweepRecords(ctx)
	if err != nil {
		return 0, err
	}
	done := 0
	var errs []error
	for _, item := range raw {
		var rec sweepRecord
		if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
			errs = append(errs, apperr.Internal("decode sweep record", err))
			continue
		}
		if err := r.sweepOne(ctx, &rec); err != nil {
			errs = append(errs, err)
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}

// sweepRecords reads the SWEEP partition: every removal left to finish.
func (r *Repo) sweepRecords(ctx context.Context) ([]map[string]types.AttributeValue, error) {
	return r.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": StringValue(sweepPK)},
		ConsistentRead:            aws.Bool(true),
	})
}

// sweepOne finishes one sweep record and deletes it.
func (r *Repo) sweepOne(ctx context.Context, rec *sweepRecord) error {
	switch rec.Kind {
	case sweepOrganization:
		return r.sweepOrganization(ctx, rec)
	case sweepCustomer:
		return r.sweepCustomerRecord(ctx, rec)
	case sweepUserKind:
		return r.sweepMarkedUser(ctx, rec)
	case sweepEmployee:
		return r.sweepEmployeeRecord(ctx, rec)
	case sweepTicketVersions:
		if r.hooks.sweepVersions != nil {
			if err := r.hooks.sweepVersions(); err != nil {
				return err
			}
		}
		var keys []Key
		for v := rec.From; v <= rec.To; v++ {
			keys = append(keys, TicketVersionKey(rec.Org, rec.Ticket, v))
		}
		if err := r.batchDelete(ctx, keys); err != nil {
			return err
		}
		return r.transact(ctx, "sweep", []txItem{r.dropSweep(rec)})
	}
	return apperr.Internal("sweep", errors.New("unknown sweep kind "+rec.Kind))
}

// errOrgHasUsers: a user of the organization appeared between the sweep's read and its last
// transaction.
var errOrgHasUsers = errors.New("the organization has users")

// maxSweepRounds bounds the rounds one run of the sweeper spends on one record. A record that
// needs more (a drifted count of users that no user will bring to zero, tickets created faster
// than they are removed) is left for the next run and logged, instead of holding the sweeper, and
// every other record behind it, in a hot loop. Rounds after the first wait a backoff.
const maxSweepRounds = 8

// errSweepUnfinished: a record still had work after maxSweepRounds; it stays for the next run.
var errSweepUnfinished = errors.New("still unfinished after the rounds of one run; left for the next")

// sweepRound waits before every round but the first, so that a record that does not finish does
// not spin.
func (r *Repo) sweepRound(ctx context.Context, round int) error {
	if round == 0 {
		return nil
	}
	if err := SleepCtx(ctx, r.backoffFn(round-1)); err != nil {
		return apperr.Classify("sweep backoff", err)
	}
	return nil
}

// orgMarkCondition holds the last transaction of an organization's sweep to the organization it
// marked: the item is deleted only while it carries the mark (and counts no user), so that an
// organization written anew under the same key is never removed by an old record.
const orgMarkCondition = "attribute_not_exists(PK) OR (attribute_exists(" + attrDeleting + ") AND (attribute_not_exists(userCount) OR userCount <= :zero))"

// sweepOrganization removes every user of the organization with its tickets, then the
// organization and the record, on condition that it still carries the mark and its count of users
// is zero (a user created before the mark and not yet read makes it fail: the next round removes
// it). An organization that is there without the mark is not the one the record was written for:
// only the record goes.
func (r *Repo) sweepOrganization(ctx context.Context, rec *sweepRecord) error {
	org, err := r.readOneConsistent(ctx, OrgKey(rec.Org))
	if err != nil {
		return err
	}
	if org != nil && org[attrDeleting] == nil {
		return r.transact(ctx, "sweep", []txItem{r.dropSweep(rec)})
	}
	for round := range maxSweepRounds {
		if err := r.sweepRound(ctx, round); err != nil {
			return err
		}
		more, err := r.sweepOrganizationRound(ctx, rec)
		if !more {
			return err
		}
	}
	return fmt.Errorf("sweep of organization %s: %w", rec.Org, errSweepUnfinished)
}

// sweepOrganizationRound removes the users read in one round, and the organization when it read
// none; more says another round is needed.
func (r *Repo) sweepOrganizationRound(ctx context.Context, rec *sweepRecord) (more bool, err error) {
	raw, err := r.queryAll(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(r.table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :u)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": StringValue(orgPK(rec.Org)), ":u": StringValue(userSKPrefix),
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, err
	}
	users, err := decodeAll[*User](raw)
	if err != nil {
		return false, err
	}
	for _, u := range users {
		if err := r.sweepUser(ctx, u); err != nil {
			return false, err
		}
		if r.hooks.sweptUser != nil {
			if err := r.hooks.sweptUser(); err != nil {
				return false, err
			}
		}
	}
	if len(users) > 0 {
		return true, nil
	}
	err = r.transact(ctx, "sweep organization", []txItem{
		r.deleteIf(OrgKey(rec.Org), orgMarkCondition, map[string]types.AttributeValue{":zero": NumberValue(0)}, errOrgHasUsers),
		r.dropSweep(rec),
	})
	return errors.Is(err, errOrgHasUsers), err
}

// sweepUser removes a user with its tickets, round after round (each reads the user again: its
// email may have changed) until it is gone, or maxSweepRounds have not sufficed.
func (r *Repo) sweepUser(ctx context.Context, u *User) error {
	for round := range maxSweepRounds {
		if err := r.sweepRound(ctx, round); err != nil {
			return err
		}
		tickets, err := r.ticketsOfUser(ctx, u.OrgID, u.ID)
		if err != nil {
			return err
		}
		err = r.removeTickets(ctx, u, tickets)
		if err == nil {
			err = r.removeUserItem(ctx, u)
		}
		if !errors.Is(err, errUserHasTickets) && !isConflict(err) {
			return err
		}
		// Read by Query: a mark (its organization's or its own) hides it from readConsistent.
		item, err := r.readOneConsistent(ctx, u.Key())
		if err != nil || item == nil {
			return err
		}
		if u, err = decodeAs[*User](item); err != nil {
			return err
		}
	}
	return fmt.Errorf("sweep of user %s: %w", u.ID, errSweepUnfinished)
}

// isConflict reports a CONFLICT: a concurrent change cancelled a transaction, worth another round.
func isConflict(err error) bool {
	var coded *apperr.Error
	return errors.As(err, &coded) && coded.Code == apperr.CodeConflict
}

// StartSweeper runs the sweeper in the background until ctx ends: at once when the table holds
// unfinished removals (one Query, made before StartSweeper returns, so that a server counts it
// before it serves), again whenever a delete leaves something to sweep, and every interval.
// Failures are logged and retried on the next run.
func (r *Repo) StartSweeper(ctx context.Context, interval time.Duration) {
	if pending, err := r.sweepRecords(ctx); err != nil || len(pending) > 0 {
		r.kickSweeper()
	}
	go r.runSweeper(ctx, interval)
}

// runSweeper is StartSweeper's loop.
func (r *Repo) runSweeper(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.sweepKick:
		case <-t.C:
		}
		if n, err := r.Sweep(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("sweep", "finished", n, "error", err)
		} else if n > 0 {
			r.Log.Info("sweep", "finished", n)
		}
	}
}

// batchDelete deletes the items at keys, 25 at a time, retrying UnprocessedItems with backoff.
func (r *Repo) batchDelete(ctx context.Context, keys []Key) error {
	reqs := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k.Attributes()}}
	}
	return r.batchWriteRequests(ctx, reqs)
}
