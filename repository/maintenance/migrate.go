package maintenance

import (
	"context"
	"errors"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/saas"
)

// MigrationReport says what Migrate changed.
type MigrationReport struct {
	// TicketsRekeyed are the tickets moved from the key they had before a ticket's key named its
	// organization (PK = SK = TICKET#<t>) to today's (PK = TICKET#<t>, SK = ORG#<o>).
	TicketsRekeyed int
	// TicketsVersioned are the tickets written before versions existed that got their version 1:
	// the version item of their state as it is, and version = 1 on their item.
	TicketsVersioned int
	// EmployeesIndexedByName are the employees written before employeesByName existed that got
	// their key on its index (GSI3PK = EMPNAME#<name>).
	EmployeesIndexedByName int
	// EmployeesNormalized are the employees written before names were stored in Unicode NFC
	// whose name and job title were brought to NFC, their keys on the name and job-title indexes
	// (AP30, AP12) moved with them, so that employeesByName and employeesByJobTitle find them.
	EmployeesNormalized int
}

// Migrate brings the items an earlier version of the API wrote to the shapes this one reads (the
// server's -migrate flag): tickets keyed without their organization are moved, and tickets without
// versions get their version 1 (the API reads such a ticket as version 1 and versions it on its
// first change anyway; the migration makes every history whole); employees written before
// employeesByName get their key on its index, and those written before names were stored in NFC
// get their name, job title and keys in NFC (keyEmployeeNames). Counters are -recount's
// (Recount). It walks the collections through their own Queries (every organization on GSI2, its
// users, each user's tickets on GSI1), never a Scan, changes only what is not in today's shape,
// and is idempotent: a second run changes nothing. Run it once every server runs
// this version: an older server would go on writing the old shapes.
func (r *Maintenance) Migrate(ctx context.Context) (MigrationReport, error) {
	var rep MigrationReport
	err := r.EachUser(ctx, func(u *saas.User) error {
		moved, versioned, err := r.migrateTickets(ctx, u)
		rep.TicketsRekeyed += moved
		rep.TicketsVersioned += versioned
		return err
	})
	if err != nil {
		return rep, err
	}
	rep.EmployeesIndexedByName, rep.EmployeesNormalized, err = r.keyEmployeeNames(ctx)
	return rep, err
}

// migrateTickets moves the tickets u reported that still have the old key, each in one
// transaction (the item put under its new key, unless it is there already, and the old one
// deleted), gives those without versions their version 1, and reports how many it moved and
// versioned.
func (r *Maintenance) migrateTickets(ctx context.Context, u *saas.User) (moved, versioned int, err error) {
	items, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(r.Table()),
		IndexName:              aws.String(repository.GSI1),
		KeyConditionExpression: aws.String("GSI1PK = :pk AND begins_with(GSI1SK, :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": repository.StringValue(saas.UserCollectionPK(u.OrgID, u.ID)), ":t": repository.StringValue(saas.TicketSKPrefix),
		},
	})
	if err != nil {
		return 0, 0, err
	}
	for _, item := range items {
		old := repository.Key{PK: repository.StringAttr(item, repository.AttrPK), SK: repository.StringAttr(item, repository.AttrSK)}
		now := saas.TicketKeyOf(u.OrgID, repository.StringAttr(item, "id"))
		if old.PK != now.PK {
			continue // not a ticket item of this shape
		}
		if old != now {
			if err := r.moveItem(ctx, item, old, now); err != nil {
				return moved, versioned, err
			}
			moved++
		}
		if _, has := item["version"]; has {
			continue
		}
		done, err := r.versionTicket(ctx, item, now)
		if err != nil {
			return moved, versioned, err
		}
		if done {
			versioned++
		}
	}
	return moved, versioned, nil
}

// errVersioned: the ticket has versions already (a change of the API versioned it first).
var errVersioned = apperr.Errorf(apperr.CodeConflict, "the ticket has versions already")

// versionTicket gives the ticket item at k, written before versions existed, its version 1 (its
// state as it is, last changed at its updatedAt), in one transaction conditioned on its having no
// version yet: false when a change of the ticket got there first (it writes version 1 itself).
func (r *Maintenance) versionTicket(ctx context.Context, item map[string]types.AttributeValue, k repository.Key) (bool, error) {
	t, err := repository.DecodeAs[*saas.Ticket](item)
	if err != nil {
		return false, err
	}
	first, err := saas.TicketVersionEntity.Encode(saas.VersionOf(t, t.UpdatedAt))
	if err != nil {
		return false, err
	}
	err = r.Transact(ctx, "version ticket", []repository.TxItem{
		r.TxUpdate(k, "SET #version = :one", "attribute_exists(PK) AND attribute_not_exists(#version)",
			map[string]string{"#version": "version"}, map[string]types.AttributeValue{":one": repository.NumberValue(1)}, errVersioned),
		r.PutNew(first, errVersioned),
	})
	if errors.Is(err, errVersioned) {
		return false, nil
	}
	return err == nil, err
}

// moveItem puts item under key now and deletes it at old, in one transaction. When an item is at
// now already (a run interrupted between two steps of another tool, say), the old one is only
// deleted: the item at now is the one today's API reads and writes. The item at now carries
// movedFrom, the old key: the table's stream reads the move as one UPDATED change of the object,
// not its removal and creation (decodeRecord).
func (r *Maintenance) moveItem(ctx context.Context, item map[string]types.AttributeValue, old, now repository.Key) error {
	moved := maps.Clone(item)
	moved[repository.AttrPK], moved[repository.AttrSK] = repository.StringValue(now.PK), repository.StringValue(now.SK)
	moved[repository.AttrMovedFrom] = repository.StringValue(old.PK + " " + old.SK)
	del := r.TxDelete(old)
	exists := apperr.Errorf(apperr.CodeConflict, "already moved")
	err := r.Transact(ctx, "move item", []repository.TxItem{r.PutNew(moved, exists), del})
	if errors.Is(err, exists) {
		return r.Transact(ctx, "delete moved item", []repository.TxItem{del})
	}
	return err
}
