package saas

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// Changing a ticket: every change is a new version, an immutable item of its own. The ticket's item
// is its current state and carries the number of its latest version; each version is an immutable
// item of the ticket's partition. One change is ONE TransactWriteItems:
//
//   - the Update of the ticket's item to the new state and version n+1, conditioned on its
//     version being n, the one the change was made from;
//   - the Put of version item n+1, conditioned on its absence;
//   - for a status change, the move of the reporter's counters from the old status to the new.
//
// The condition on the version makes lost updates impossible: of two editors who read version n,
// one writes n+1 and the other's transaction is cancelled, with nothing written (no version item,
// no counter). An editor who says which version it edited (expectedVersion) gets CONFLICT; one
// who does not has its change applied to the newest state, read again (at most maxTicketAttempts
// times). Since the status is part of the version, the counters always move from the status the
// ticket really had.

// TicketPatch lists the fields updateTicket may change; nil leaves a field as it is.
// ExpectedVersion, when set, is the version the change was made from: the change is refused with
// CONFLICT, and nothing is written, if the ticket is at another.
type TicketPatch struct {
	Status          *TicketStatus
	Title           *string
	Body            *string
	ExpectedVersion *int
}

// maxTicketAttempts bounds how often a change without an expected version reads the ticket again
// after other changes got in between, before it gives up with CONFLICT.
const maxTicketAttempts = 3

// errTicketMoved: the ticket changed between the read and the transaction.
var errTicketMoved = errors.New("the ticket changed meanwhile")

// UpdateTicketPlan is what UpdateTicket does: read the ticket, then write it with its next
// version, again when another change came in between (and no expectedVersion was given).
var UpdateTicketPlan = repository.WritePlan{Attempts: maxTicketAttempts, Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = TICKET#<t>, consistent"},
	{Operation: "TransactWriteItems", Calls: 1, What: "Update TICKET#<t> if its version is as read; Put its next version item; move the reporter's counts; check ORG#<o> is not being removed"},
}}

// UpdateTicket changes the status, title or body of ticket id of organization org, as a new
// version (see above). A ticket of another organization is NOT_FOUND, as a missing one: its key
// is spelled with org.
func (r *SaaS) UpdateTicket(ctx context.Context, org, id string, p TicketPatch) (*Ticket, error) {
	k, err := TicketKey(org, id)
	if err != nil {
		return nil, err
	}
	if p, err = p.clean(); err != nil {
		return nil, err
	}
	for range UpdateTicketPlan.Tries() {
		t, err := r.updateTicketOnce(ctx, k, p)
		if !errors.Is(err, errTicketMoved) {
			return t, err
		}
		if p.ExpectedVersion != nil {
			return nil, &apperr.Error{Code: apperr.CodeConflict, Field: "expectedVersion",
				Message: fmt.Sprintf("the ticket was changed by someone else after version %d; read it again and retry", *p.ExpectedVersion), Cause: err}
		}
	}
	return nil, &apperr.Error{Code: apperr.CodeConflict, Message: "the ticket kept being changed by others while this change was made; retry", Cause: errTicketMoved}
}

// clean checks the patch and returns it with its texts trimmed.
func (p TicketPatch) clean() (TicketPatch, error) {
	if p.Status == nil && p.Title == nil && p.Body == nil {
		return p, apperr.InvalidInput("input", "give at least one of status, title, body")
	}
	if p.Status != nil && !p.Status.valid() {
		return p, apperr.InvalidInput("status", "unknown ticket status")
	}
	if p.Title != nil {
		title, err := repository.CleanText("title", *p.Title, 1, repository.MaxTitleLen, false)
		if err != nil {
			return p, err
		}
		p.Title = &title
	}
	if p.Body != nil {
		body, err := repository.CleanText("body", *p.Body, 1, repository.MaxBodyLen, true)
		if err != nil {
			return p, err
		}
		p.Body = &body
	}
	if p.ExpectedVersion != nil && *p.ExpectedVersion < 1 {
		return p, apperr.InvalidInput("expectedVersion", "expectedVersion must be 1 or more")
	}
	return p, nil
}

// updateTicketOnce reads the ticket (consistently) and writes the change made from what it read:
// errTicketMoved if the ticket changed meanwhile.
func (r *SaaS) updateTicketOnce(ctx context.Context, k repository.Key, p TicketPatch) (*Ticket, error) {
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return nil, err
	}
	cur, ok := repository.FoundAs[*Ticket](found, k)
	if !ok {
		return nil, apperr.NotFound("ticket")
	}
	if p.ExpectedVersion != nil && *p.ExpectedVersion != cur.CurrentVersion() {
		return nil, &apperr.Error{Code: apperr.CodeConflict, Field: "expectedVersion",
			Message: fmt.Sprintf("the ticket is at version %d, not %d: it was changed since; read it again and retry", cur.CurrentVersion(), *p.ExpectedVersion)}
	}
	next := p.apply(cur, r.Stamp())
	items, err := r.TicketChange(k, cur, next)
	if err != nil {
		return nil, err
	}
	if err := r.Transact(ctx, "update ticket", items); err != nil {
		return nil, err
	}
	return next, nil
}

// apply is the state p makes of cur: the next version, updated now.
func (p TicketPatch) apply(cur *Ticket, now time.Time) *Ticket {
	next := *cur
	if p.Status != nil {
		next.Status = *p.Status
	}
	if p.Title != nil {
		next.Title = *p.Title
	}
	if p.Body != nil {
		next.Body = *p.Body
	}
	next.UpdatedAt = now
	next.Version = cur.CurrentVersion() + 1
	return &next
}

// TicketChange is the transaction that moves the ticket at k from cur to next (see above). A
// ticket written before versions existed has no version items: its first change also writes
// version 1, the ticket as it was (last changed at its updatedAt), so that its history is whole.
func (r *SaaS) TicketChange(k repository.Key, cur, next *Ticket) ([]repository.TxItem, error) {
	at, err := attributevalue.Marshal(next.UpdatedAt)
	if err != nil {
		return nil, apperr.Internal("update ticket", err)
	}
	cond, values := "#version = :from", map[string]types.AttributeValue{":from": repository.NumberValue(cur.Version)}
	if cur.Version == 0 {
		cond, values = "attribute_exists(PK) AND attribute_not_exists(#version)", map[string]types.AttributeValue{}
	}
	values[":title"], values[":body"], values[":status"] = repository.StringValue(next.Title), repository.StringValue(next.Body), repository.StringValue(string(next.Status))
	values[":at"], values[":next"] = at, repository.NumberValue(next.Version)
	items := []repository.TxItem{r.TxUpdate(k,
		"SET #title = :title, #body = :body, #status = :status, #updatedAt = :at, #version = :next", cond,
		map[string]string{"#title": "title", "#body": "body", "#status": "status", "#updatedAt": "updatedAt", "#version": "version"},
		values, errTicketMoved)}
	versions := []*TicketVersion{VersionOf(next, next.UpdatedAt)}
	if cur.Version == 0 {
		versions = append(versions, VersionOf(cur, cur.UpdatedAt))
	}
	for _, v := range versions {
		item, err := TicketVersionEntity.Encode(v)
		if err != nil {
			return nil, err
		}
		items = append(items, r.PutNew(item, errTicketMoved))
	}
	items = append(items, r.OrgLive(cur.OrgID, apperr.NotFound("ticket")))
	if cur.Status != next.Status {
		items = append(items, r.TxCount(UserKeyOf(cur.OrgID, cur.ReporterID),
			repository.Moved(ticketCountAttr(cur.Status), ticketCountAttr(next.Status)),
			apperr.Internal("update ticket", fmt.Errorf("the reporter of ticket %s is missing", cur.ID)), nil))
	}
	return items, nil
}
