package saas

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The kinds of sweep of organizations, users and tickets.
const (
	// sweepOrganization: an organization marked as being removed, with its users and tickets.
	sweepOrganization = "ORGANIZATION"
	// sweepTicketVersions: the versions From..To of a removed ticket whose history did not fit
	// the ticket's own transaction.
	sweepTicketVersions = "TICKETVERSIONS"
	// sweepUserKind: a user marked as being removed with its tickets (deleteUser with cascade).
	sweepUserKind = "USER"
)

// The sweeps of organizations, users and tickets finish here.
var (
	_ = repository.DeclareSweep(sweepOrganization, func(ctx context.Context, r *repository.Repo, rec *repository.SweepRecord) error {
		return (&SaaS{Repo: r}).sweepOrganization(ctx, rec)
	})
	_ = repository.DeclareSweep(sweepUserKind, func(ctx context.Context, r *repository.Repo, rec *repository.SweepRecord) error {
		return (&SaaS{Repo: r}).sweepMarkedUser(ctx, rec)
	})
	_ = repository.DeclareSweep(sweepTicketVersions, func(ctx context.Context, r *repository.Repo, rec *repository.SweepRecord) error {
		return (&SaaS{Repo: r}).sweepTicketVersions(ctx, rec)
	})
)

// sweepTicketVersions removes the versions From..To of a removed ticket, then the record.
func (r *SaaS) sweepTicketVersions(ctx context.Context, rec *repository.SweepRecord) error {
	if r.Hooks.SweepVersions != nil {
		if err := r.Hooks.SweepVersions(); err != nil {
			return err
		}
	}
	var keys []repository.Key
	for v := rec.From; v <= rec.To; v++ {
		keys = append(keys, TicketVersionKey(rec.Org, rec.Ticket, v))
	}
	if err := r.BatchDelete(ctx, keys); err != nil {
		return err
	}
	return r.Transact(ctx, "sweep", []repository.TxItem{r.DropSweep(rec)})
}

// errOrgHasUsers: a user of the organization appeared between the sweep's read and its last
// transaction.
var errOrgHasUsers = errors.New("the organization has users")

// orgMarkCondition holds the last transaction of an organization's sweep to the organization it
// marked: the item is deleted only while it carries the mark (and counts no user), so that an
// organization written anew under the same key is never removed by an old record.
const orgMarkCondition = "attribute_not_exists(PK) OR (attribute_exists(" + repository.AttrDeleting + ") AND (attribute_not_exists(userCount) OR userCount <= :zero))"

// sweepOrganization removes every user of the organization with its tickets, then the
// organization and the record, on condition that it still carries the mark and its count of users
// is zero (a user created before the mark and not yet read makes it fail: the next round removes
// it). An organization that is there without the mark is not the one the record was written for:
// only the record goes.
func (r *SaaS) sweepOrganization(ctx context.Context, rec *repository.SweepRecord) error {
	org, err := r.ReadOneConsistent(ctx, OrgKey(rec.Org))
	if err != nil {
		return err
	}
	if org != nil && org[repository.AttrDeleting] == nil {
		return r.Transact(ctx, "sweep", []repository.TxItem{r.DropSweep(rec)})
	}
	for round := range repository.MaxSweepRounds {
		if err := r.SweepRound(ctx, round); err != nil {
			return err
		}
		more, err := r.sweepOrganizationRound(ctx, rec)
		if !more {
			return err
		}
	}
	return fmt.Errorf("sweep of organization %s: %w", rec.Org, repository.ErrSweepUnfinished)
}

// sweepOrganizationRound removes the users read in one round, and the organization when it read
// none; more says another round is needed.
func (r *SaaS) sweepOrganizationRound(ctx context.Context, rec *repository.SweepRecord) (more bool, err error) {
	raw, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(r.Table()),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :u)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": repository.StringValue(orgPK(rec.Org)), ":u": repository.StringValue(userSKPrefix),
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, err
	}
	users, err := repository.DecodeAll[*User](raw)
	if err != nil {
		return false, err
	}
	for _, u := range users {
		if err := r.sweepUser(ctx, u); err != nil {
			return false, err
		}
		if r.Hooks.SweptUser != nil {
			if err := r.Hooks.SweptUser(); err != nil {
				return false, err
			}
		}
	}
	if len(users) > 0 {
		return true, nil
	}
	err = r.Transact(ctx, "sweep organization", []repository.TxItem{
		r.DeleteIf(OrgKey(rec.Org), orgMarkCondition, map[string]types.AttributeValue{":zero": repository.NumberValue(0)}, errOrgHasUsers),
		r.DropSweep(rec),
	})
	return errors.Is(err, errOrgHasUsers), err
}

// sweepUser removes a user with its tickets, round after round (each reads the user again: its
// email may have changed) until it is gone, or MaxSweepRounds have not sufficed.
func (r *SaaS) sweepUser(ctx context.Context, u *User) error {
	for round := range repository.MaxSweepRounds {
		if err := r.SweepRound(ctx, round); err != nil {
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
		if !errors.Is(err, errUserHasTickets) && !repository.IsConflict(err) {
			return err
		}
		// Read by Query: a mark (its organization's or its own) hides it from readConsistent.
		item, err := r.ReadOneConsistent(ctx, u.Key())
		if err != nil || item == nil {
			return err
		}
		if u, err = repository.DecodeAs[*User](item); err != nil {
			return err
		}
	}
	return fmt.Errorf("sweep of user %s: %w", u.ID, repository.ErrSweepUnfinished)
}
