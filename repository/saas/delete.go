package saas

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// Removing tickets, users and organizations. A ticket goes with its version items and its place
// in its reporter's counters, in one transaction conditioned on the ticket as read (its version),
// so the counters always move from the status the ticket really had. A user goes with its email
// guard and its place in the organization's count; with cascade, its tickets go first, in
// transactions of as many tickets as fit (ticketsPerTx), each moving the user's counters, and the
// user itself last, on condition that its counters are zero: a ticket created meanwhile makes
// that condition fail and is removed on the next round. An organization is marked as being
// removed and swept in the background (sweep.go).

// VersionsInTx is how many version items a ticket's own removal deletes in its transaction (the
// rest of a very long history, if any, is swept after it: see sweepTicketVersions).
const VersionsInTx = repository.MaxTransactItems - 3

// ticketRemoval is the transaction items that remove ticket t as read: its item (on condition
// that it is still at the version read), its versions up to VersionsInTx, and, when the history
// is longer, the sweep record of the rest. The reporter's counters are the caller's (one update
// for many tickets).
func (r *SaaS) ticketRemoval(t *Ticket, onMoved error) ([]repository.TxItem, *repository.SweepRecord) {
	cond, vals := "attribute_exists(PK) AND attribute_not_exists(version)", map[string]types.AttributeValue(nil)
	if t.Version > 0 {
		cond, vals = "version = :v", map[string]types.AttributeValue{":v": repository.NumberValue(t.Version)}
	}
	items := []repository.TxItem{r.DeleteIf(TicketKeyOf(t.OrgID, t.ID), cond, vals, onMoved)}
	last := t.CurrentVersion()
	for v := 1; v <= min(last, VersionsInTx); v++ {
		items = append(items, r.DeleteIf(TicketVersionKey(t.OrgID, t.ID, v), "", nil, nil))
	}
	if last <= VersionsInTx {
		return items, nil
	}
	rec := &repository.SweepRecord{Kind: sweepTicketVersions, Org: t.OrgID, Ticket: t.ID, From: VersionsInTx + 1, To: last}
	return append(items, r.PutSweep(rec)), rec
}

// DeleteTicketPlan is what DeleteTicket does (explain plans the mutation from it).
var DeleteTicketPlan = repository.WritePlan{Attempts: repository.MaxRemovalRounds, Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = TICKET#<t>, for a caller whose scope the ticket's ID does not tell"},
	repository.ConsistentRead("PK = TICKET#<t>, SK = ORG#<o>"),
	repository.TransactCall("Delete TICKET#<t> if at the version read, its VERSION# items; update the reporter's counters"),
	sweptVersions[0], sweptVersions[1],
}}

// sweptVersions are the calls that remove the rest of a history longer than one transaction,
// after the ticket's own removal (SweepOne): BatchWriteItem, 25 version items a call, then the
// transaction that drops the sweep record.
var sweptVersions = [2]repository.WriteCall{
	repository.PerDataCall("BatchWriteItem", "Delete the VERSION# items of a history longer than one transaction, 25 a call"),
	repository.PerDataCall("TransactWriteItems", "Delete the SWEEP record of that history"),
}

// DeleteTicket removes a ticket with its history (see above). expected, when given, is the
// version the caller saw: CONFLICT, and nothing removed, if the ticket is at another.
func (r *SaaS) DeleteTicket(ctx context.Context, org, id string, expected *int) error {
	k, err := TicketKey(org, id)
	if err != nil {
		return err
	}
	if expected != nil && *expected < 1 {
		return apperr.InvalidInput("expectedVersion", "expectedVersion must be 1 or more")
	}
	for range DeleteTicketPlan.Tries() {
		t, err := repository.ReadLive[*Ticket](ctx, r.Repo, k, apperr.NotFound("ticket"))
		if err != nil {
			return err
		}
		if expected != nil && *expected != t.CurrentVersion() {
			return &apperr.Error{Code: apperr.CodeConflict, Field: "expectedVersion",
				Message: fmt.Sprintf("the ticket is at version %d, not %d: it was changed since; read it again and retry", t.CurrentVersion(), *expected)}
		}
		items, rec := r.ticketRemoval(t, errTicketMoved)
		items = append(items, r.TxCount(UserKeyOf(org, t.ReporterID), []repository.Delta{{Attr: ticketCountAttr(t.Status), By: -1}}, apperr.NotFound("ticket"), nil))
		err = r.Transact(ctx, "delete ticket", items)
		if errors.Is(err, errTicketMoved) {
			continue
		}
		if err == nil && rec != nil {
			r.sweepNowOrLater(ctx, rec)
		}
		return err
	}
	return &apperr.Error{Code: apperr.CodeConflict, Message: "the ticket kept being changed by others while it was removed; retry", Cause: errTicketMoved}
}

// userHasTickets is the CONFLICT of deleteUser without cascade for a user with n tickets.
func userHasTickets(n int) error {
	return &apperr.Error{Code: apperr.CodeConflict, Count: &n,
		Message: fmt.Sprintf("the user reported %d tickets: remove them first, or delete with cascade", n)}
}

// errUserHasTickets: a ticket of the user appeared, or its email changed, between the read and
// the transaction: the removal reads again.
var errUserHasTickets = errors.New("the user has tickets, or another email")

// DeleteUserPlan is what DeleteUser does (explain plans the mutation from it).
var DeleteUserPlan = repository.WritePlan{Attempts: max(repository.MaxRemovalRounds, repository.MaxSweepRounds), Calls: []repository.WriteCall{
	repository.PerDataCall("TransactWriteItems", "with cascade: Update USER#<u> (mark) if it exists and is not being removed, check ORG#<o>; Put SWEEP USER#<u>"),
	repository.ConsistentRead("PK = ORG#<o>, SK = USER#<u>"),
	{Operation: "Query", Calls: 1, PerData: true, What: "GSI1PK = ORG#<o>#USER#<u> AND begins_with(GSI1SK, TICKET#), one per 1 MB"},
	repository.PerDataCall("TransactWriteItems", "with cascade: Delete TICKET#<t> and its versions, as many as fit one transaction"),
	sweptVersions[0], sweptVersions[1],
	repository.TransactCall("Delete USER#<u> if it has no tickets, its email guard; update ORG#<o>'s count"),
	repository.PerDataCall("TransactWriteItems", "with cascade: Delete the SWEEP record"),
}}

// DeleteUser removes a user and frees its email (see above). Without cascade a user with tickets
// is CONFLICT with their number in extensions.count.
func (r *SaaS) DeleteUser(ctx context.Context, org, user string, cascade bool) error {
	if err := errors.Join(repository.CheckID("id", org), repository.CheckID("id", user)); err != nil {
		return apperr.InvalidInput("id", "not a valid user id")
	}
	if cascade {
		return r.deleteUserCascade(ctx, org, user)
	}
	for range DeleteUserPlan.Tries() {
		u, err := repository.ReadLive[*User](ctx, r.Repo, UserKeyOf(org, user), apperr.NotFound("user"))
		if err != nil {
			return err
		}
		tickets, err := r.ticketsOfUser(ctx, org, user)
		if err != nil {
			return err
		}
		if len(tickets) > 0 {
			return userHasTickets(len(tickets))
		}
		err = r.removeUserItem(ctx, u)
		if !errors.Is(err, errUserHasTickets) {
			return err
		}
	}
	return &apperr.Error{Code: apperr.CodeConflict, Message: "tickets kept being created for the user while it was removed; retry"}
}

// deleteUserCascade marks the user as being removed, in one transaction with a sweep record, and
// sweeps it: from then on it reads as missing and createTicket refuses it as a reporter, so a
// client that keeps filing tickets cannot keep the removal from finishing. If the sweep fails
// midway, the sweeper finishes it.
func (r *SaaS) deleteUserCascade(ctx context.Context, org, user string) error {
	return r.MarkAndSweep(ctx, "delete user", &repository.SweepRecord{Kind: sweepUserKind, Org: org, User: user}, true,
		r.Mark(UserKeyOf(org, user), "", apperr.NotFound("user")), r.OrgLive(org, apperr.NotFound("user")))
}

// sweepMarkedUser removes a marked user with its tickets (sweepUser), then its record. A user that
// is there without the mark is not the one the record was written for: only the record goes.
func (r *SaaS) sweepMarkedUser(ctx context.Context, rec *repository.SweepRecord) error {
	item, err := r.ReadOneConsistent(ctx, UserKeyOf(rec.Org, rec.User))
	if err != nil {
		return err
	}
	if item != nil && item[repository.AttrDeleting] != nil {
		u, err := repository.DecodeAs[*User](item)
		if err != nil {
			return err
		}
		if err := r.sweepUser(ctx, u); err != nil {
			return err
		}
	}
	return r.Transact(ctx, "sweep", []repository.TxItem{r.DropSweep(rec)})
}

// removeUserItem deletes the user (on condition that it has no tickets left and the email read,
// whose guard goes with it), its email guard and its place in its organization's count. The
// tickets are known to be none by the user's counters; a user whose counters -recount has not set
// yet is removed without that condition.
func (r *SaaS) removeUserItem(ctx context.Context, u *User) error {
	values := map[string]types.AttributeValue{":email": repository.StringValue(u.Email)}
	cond := "attribute_exists(PK) AND email = :email"
	if u.Counted {
		values[":zero"] = repository.NumberValue(0)
		for _, st := range []TicketStatus{TicketOpen, TicketPending, TicketClosed} {
			a := ticketCountAttr(st)
			cond += fmt.Sprintf(" AND (attribute_not_exists(%s) OR %s = :zero)", a, a)
		}
	}
	return r.Transact(ctx, "delete user", []repository.TxItem{
		r.DeleteIf(UserKeyOf(u.OrgID, u.ID), cond, values, errUserHasTickets),
		r.DeleteIf(emailGuardKey(u.OrgID, u.Email), "", nil, nil),
		r.TxUpdate(OrgKey(u.OrgID), "ADD "+attrUserCount+" :minus", "attribute_exists(PK)", nil,
			map[string]types.AttributeValue{":minus": repository.NumberValue(-1)}, apperr.NotFound("user")),
	})
}

// ticketsOfUser reads every ticket a user reported (AP5, to the end).
func (r *SaaS) ticketsOfUser(ctx context.Context, org, user string) ([]*Ticket, error) {
	raw, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(r.Table()),
		IndexName:              aws.String(repository.GSI1),
		KeyConditionExpression: aws.String("GSI1PK = :pk AND begins_with(GSI1SK, :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": repository.StringValue(UserCollectionPK(org, user)), ":t": repository.StringValue(TicketSKPrefix),
		},
	})
	if err != nil {
		return nil, err
	}
	return repository.DecodeAll[*Ticket](raw)
}

// removeTickets removes the tickets of user u, as many per transaction as fit with the update of
// the user's counters (a check that it exists, for a user whose counters are not set yet). A
// ticket changed since it was read cancels its transaction: the caller reads again and retries.
func (r *SaaS) removeTickets(ctx context.Context, u *User, tickets []*Ticket) error {
	var (
		batch []repository.TxItem
		moves = map[string]int{}
		recs  []*repository.SweepRecord
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var ds []repository.Delta
		for _, st := range []TicketStatus{TicketOpen, TicketPending, TicketClosed} {
			if by := moves[ticketCountAttr(st)]; by != 0 && u.Counted {
				ds = append(ds, repository.Delta{Attr: ticketCountAttr(st), By: by})
			}
		}
		err := r.Transact(ctx, "delete tickets", append(batch, r.TxCount(u.Key(), ds, apperr.NotFound("user"), nil)))
		batch, moves = nil, map[string]int{}
		return err
	}
	for _, t := range tickets {
		items, rec := r.ticketRemoval(t, errUserHasTickets)
		if len(batch)+len(items) >= repository.MaxTransactItems {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, items...)
		moves[ticketCountAttr(t.Status)]--
		if rec != nil {
			recs = append(recs, rec)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	for _, rec := range recs {
		r.sweepNowOrLater(ctx, rec)
	}
	return nil
}

// sweepNowOrLater sweeps the rest of a removed ticket's history at once. The ticket is gone
// already (its transaction committed, with the sweep record), so a failure here is not the
// removal's: it is logged and left to the sweeper, which the record tells what is left, and the
// removal succeeds.
func (r *SaaS) sweepNowOrLater(ctx context.Context, rec *repository.SweepRecord) {
	err := r.SweepOne(ctx, rec)
	if err == nil {
		return
	}
	r.Log.Warn("sweep of a removal left to the sweeper", "kind", rec.Kind, "ticket", rec.Ticket, "employee", rec.Employee, "error", err)
	r.KickSweeper()
}

// DeleteOrganizationPlan is what DeleteOrganization does (explain plans the mutation from it).
var DeleteOrganizationPlan = repository.OneTransaction("Update ORG#<o> (mark, leave GSI2) if it exists and is not being removed; Put SWEEP ORGANIZATION#<o>")

// DeleteOrganization marks the organization as being removed and leaves the rest to the sweep: in
// one transaction its item gets the mark (and leaves the by-name listing, GSI2), and a sweep
// record is written. From then on the organization reads as missing, and no user can be created
// in it (createUser's condition); the sweep removes its users with their tickets, then the
// organization. A second delete finds it missing: NOT_FOUND.
func (r *SaaS) DeleteOrganization(ctx context.Context, org string) error {
	if err := repository.CheckID("id", org); err != nil {
		return err
	}
	return r.MarkAndSweep(ctx, "delete organization", &repository.SweepRecord{Kind: sweepOrganization, Org: org}, false,
		r.Mark(OrgKey(org), "GSI2PK, GSI2SK", apperr.NotFound("organization")))
}
