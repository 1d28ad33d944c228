package repository

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"singletable/apperr"
)

// SeedVersion names the sample dataset; bump it when the dataset changes.
const SeedVersion = "2026-11-saas-v1+commerce-v1+hr-v1"

// SeedStats says what Seed did.
type SeedStats struct {
	AlreadyLoaded bool
	Items         int
}

// Seed loads the sample dataset for the playground. It is idempotent: every sample item has a
// fixed key (ids are derived from fixed times and labels), so a rerun rewrites the same items, and
// a marker item written last makes later runs return at once.
func (r *Repo) Seed(ctx context.Context) (SeedStats, error) {
	marker := seedMarkerKey(SeedVersion)
	out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: marker.attributes(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return SeedStats{}, apperr.Classify("seed marker", err)
	}
	if out.Item != nil {
		return SeedStats{AlreadyLoaded: true}, nil
	}
	items, err := sampleItems(r.shards)
	if err != nil {
		return SeedStats{}, err
	}
	if err := r.batchWrite(ctx, items); err != nil {
		return SeedStats{}, err
	}
	m := marker.attributes()
	m[attrType] = s(typeSeedMarker)
	if _, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: m}); err != nil {
		return SeedStats{}, apperr.Classify("seed marker", err)
	}
	return SeedStats{Items: len(items)}, nil
}

// batchWrite puts items 25 at a time, retrying UnprocessedItems with backoff.
func (r *Repo) batchWrite(ctx context.Context, items []map[string]types.AttributeValue) error {
	for start := 0; start < len(items); start += 25 {
		var reqs []types.WriteRequest
		for _, it := range items[start:min(start+25, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		for attempt := 0; len(reqs) > 0; attempt++ {
			if attempt >= r.attempts {
				return &apperr.Error{Code: apperr.CodeUnavailable, Message: "the database is busy; retry later"}
			}
			if attempt > 0 {
				if err := sleepCtx(ctx, r.backoffFn(attempt)); err != nil {
					return apperr.Classify("batch write", err)
				}
			}
			out, err := r.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{r.table: reqs}})
			if err != nil {
				return apperr.Classify("batch write", err)
			}
			reqs = out.UnprocessedItems[r.table]
		}
	}
	return nil
}

// seedID is a fixed id: the ULID of time t whose random part is derived from label.
func seedID(t time.Time, label string) string {
	var u ulid.ULID
	h := sha256.Sum256([]byte(label))
	copy(u[6:], h[:10])
	_ = u.SetTime(ulid.Timestamp(t))
	return u.String()
}

// sampleItems is the sample dataset: three organizations with four users each, every user with
// five tickets spread over the past weeks; the commerce sample (orders sharded for N = shards);
// and the HR sample (hrSampleItems).
func sampleItems(shards int) ([]map[string]types.AttributeValue, error) {
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	orgs := []struct {
		name   string
		domain string
		users  []string
	}{
		{"Acme Corporation", "acme.example", []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"}},
		{"Globex", "globex.example", []string{"Hank Scorpio", "Homer Simpson", "Lenny Leonard", "Carl Carlson"}},
		{"Initech", "initech.example", []string{"Peter Gibbons", "Samir Nagheenanajar", "Michael Bolton", "Milton Waddams"}},
	}
	titles := []string{"Cannot log in", "Export to CSV fails", "Invoice shows the wrong total", "Dark mode request", "Slow dashboard"}
	statuses := []TicketStatus{TicketOpen, TicketPending, TicketClosed, TicketOpen, TicketPending}
	var items []map[string]types.AttributeValue
	add := func(item map[string]types.AttributeValue, err error) error {
		if err != nil {
			return err
		}
		items = append(items, item)
		return nil
	}
	for oi, o := range orgs {
		orgAt := base.Add(time.Duration(oi) * time.Hour)
		org := &Organization{ID: seedID(orgAt, "org/"+o.name), Name: o.name, CreatedAt: orgAt}
		if err := add(organizationEntity.encode(org)); err != nil {
			return nil, err
		}
		for ui, name := range o.users {
			userAt := orgAt.Add(time.Duration(ui+1) * time.Minute)
			email := strings.ToLower(strings.Fields(name)[0]) + "@" + o.domain
			u := &User{ID: seedID(userAt, "user/"+name), OrgID: org.ID, Name: name, Email: email, CreatedAt: userAt}
			if err := add(userEntity.encode(u)); err != nil {
				return nil, err
			}
			items = append(items, emailGuardItem(u))
			for ti, title := range titles {
				at := userAt.Add(time.Duration(ti*24+ui) * time.Hour * 7)
				t := &Ticket{
					ID: seedID(at, "ticket/"+name+"/"+title), OrgID: org.ID, ReporterID: u.ID,
					Title: title, Body: "Reported by " + name + ": " + title + ".", Status: statuses[(ti+ui)%len(statuses)],
					CreatedAt: at, UpdatedAt: at,
				}
				if err := add(ticketEntity.encode(t)); err != nil {
					return nil, err
				}
			}
		}
	}
	commerce, err := commerceSampleItems(shards)
	if err != nil {
		return nil, err
	}
	items = append(items, commerce...)
	hr, err := hrSampleItems()
	if err != nil {
		return nil, err
	}
	items = append(items, hr...)
	if len(items) == 0 {
		return nil, errors.New("empty sample dataset")
	}
	return items, nil
}
