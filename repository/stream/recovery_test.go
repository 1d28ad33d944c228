package stream

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go/middleware"

	"singletable/repository"
	"singletable/repository/saas"
)

// recordsFault makes DynamoDB Local fail a read of the stream the way AWS does: once armed, the
// next GetRecords call that would return records returns err instead, and the records stay
// unread in the stream (an iterator that expired, data that was trimmed).
type recordsFault struct {
	err      error
	armed    atomic.Bool
	injected atomic.Int64
}

func (f *recordsFault) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("InjectRecordsFault",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			res, ok := out.Result.(*dynamodbstreams.GetRecordsOutput)
			if err != nil || !ok || len(res.Records) == 0 || !f.armed.CompareAndSwap(true, false) {
				return out, md, err
			}
			f.injected.Add(1)
			return middleware.InitializeOutput{}, md, f.err
		}), middleware.After)
}

// updateTitles sets a ticket's title to prefix 0, prefix 1, ... and returns the titles.
func updateTitles(t *testing.T, r *testRepo, tk *saas.Ticket, prefix string, n int) []string {
	t.Helper()
	var titles []string
	for i := range n {
		title := fmt.Sprintf("%s %d", prefix, i)
		if _, err := r.UpdateTicket(context.Background(), tk.OrgID, tk.ID, saas.TicketPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		titles = append(titles, title)
	}
	return titles
}

// titlesUntil collects the titles of the ticket's updates up to the one titled last.
func titlesUntil(t *testing.T, c *StreamCollector, tk *saas.Ticket, last string) []string {
	t.Helper()
	var titles []string
	for _, ch := range c.Until(t, func(ch Change) bool { nt, _ := ch.New.(*saas.Ticket); return nt != nil && nt.Title == last }) {
		if nt, ok := ch.New.(*saas.Ticket); ok && ch.Key == tk.Key() && ch.Kind == ChangeUpdated {
			titles = append(titles, nt.Title)
		}
	}
	return titles
}

// readsThroughFault writes two runs of updates with fault armed between them: every update must
// arrive once, in order.
func readsThroughFault(t *testing.T, fault *recordsFault) *StreamCollector {
	r := newLocalRepo(t, repository.Config{APIOptions: []func(*middleware.Stack) error{fault.middleware}})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	tk := createTicketFor(t, r)
	first := updateTitles(t, r, tk, "before", 5)
	if got := titlesUntil(t, c, tk, first[4]); fmt.Sprint(got) != fmt.Sprint(first) {
		t.Fatalf("before the fault: %v", got)
	}
	fault.armed.Store(true)
	second := updateTitles(t, r, tk, "after", 5)
	sentinel := updateTitles(t, r, tk, "sentinel", 1)
	want := append(second, sentinel...)
	if got := titlesUntil(t, c, tk, sentinel[0]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the fault got %v, want each once, in order: %v", got, want)
	}
	if fault.injected.Load() != 1 {
		t.Fatalf("the fault was injected %d times, want 1", fault.injected.Load())
	}
	return c
}

// An expired iterator is renewed after the last record read: nothing lost, nothing twice, no gap.
func TestStreamRenewsAnExpiredIterator(t *testing.T) {
	c := readsThroughFault(t, &recordsFault{err: &stypes.ExpiredIteratorException{Message: aws.String("Iterator expired")}})
	if c.Gaps.Load() != 0 || c.Outages.Load() != 0 {
		t.Fatalf("gaps %v, outages %d: an expired iterator is neither", c.GapReasons(), c.Outages.Load())
	}
}

// Trimmed data restarts the shard at its oldest record and reports a gap; records already
// handed on are not handed on again.
func TestStreamRestartsATrimmedShardAndReportsAGap(t *testing.T) {
	c := readsThroughFault(t, &recordsFault{err: &stypes.TrimmedDataAccessException{Message: aws.String("trimmed")}})
	if c.Gaps.Load() != 1 {
		t.Fatalf("gaps %v, want 1", c.GapReasons())
	}
}

// A table without a stream is ready for queries; the reader reports the missing stream and keeps
// looking; -create-table enables the stream on the existing table, and the reader finds it.
func TestStreamIsEnabledOnAnExistingTable(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	if err := r.DeleteTable(ctx); err != nil {
		t.Fatal(err)
	}
	in := repository.CreateTableInput(r.Table())
	in.StreamSpecification = nil // as tables were created before the design had a stream
	if _, err := r.DB.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := r.Ready(ctx); err != nil {
		t.Fatalf("a table without a stream must be ready: %v", err)
	}
	if _, err := r.StreamARN(ctx); !errors.Is(err, repository.ErrNoStream) {
		t.Fatalf("StreamARN without a stream: %v, want ErrNoStream", err)
	}
	c := CollectStream(t, r.Stream, fastStream)
	if err := c.WaitNoStream(t); !errors.Is(err, repository.ErrNoStream) {
		t.Fatalf("reported %v", err)
	}
	if err := r.CreateTable(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	arn, err := r.StreamARN(ctx)
	if err != nil || arn == "" {
		t.Fatalf("after -create-table: %q %v", arn, err)
	}
	if got := c.WaitStream(t); got != arn {
		t.Fatalf("the reader reads %s, the table's stream is %s", got, arn)
	}
	org, err := r.CreateOrganization(ctx, "Found")
	if err != nil {
		t.Fatal(err)
	}
	c.Until(t, IsChangeOf(org.Key()))
}

// When the stream is disabled and enabled again (a new stream), the reader follows: it reads the
// old stream to its end and the new one from its oldest record, so no write is missed.
func TestStreamFollowsTheTableToANewStream(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	first := c.WaitStream(t)
	tk := createTicketFor(t, r)
	before := updateTitles(t, r, tk, "old stream", 3)
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		spec := &types.StreamSpecification{StreamEnabled: aws.Bool(on)}
		if on {
			spec = repository.StreamSpecification(repository.Definition())
		}
		if _, err := r.DB.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(r.Table()), StreamSpecification: spec}); err != nil {
			t.Fatal(err)
		}
	}
	after := updateTitles(t, r, tk, "new stream", 3)
	if got := titlesUntil(t, c, tk, after[2]); fmt.Sprint(got) != fmt.Sprint(append(before, after...)) {
		t.Fatalf("got %v", got)
	}
	if second := c.WaitStream(t); second == first {
		t.Fatalf("the reader announced the old stream again")
	}
}

// DynamoDB Local numbers the records of all tables from one counter, and reports a position
// taken on an empty shard as trimmed once another table's new stream takes a number before this
// shard's first record. The reader, which has read nothing from the shard yet, reads it from its
// oldest record instead: the change arrives, and no gap is reported, for there is none.
func TestStreamReadsAnEmptyShardWhoseStartWasReportedTrimmed(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	other := newLocalRepo(t, repository.Config{LocalDatabase: r.Table()}) // one database: one counter
	if _, err := other.CreateOrganization(context.Background(), "elsewhere"); err != nil {
		t.Fatal(err)
	}
	org, err := r.CreateOrganization(context.Background(), "here")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Until(t, IsChangeOf(org.Key())); len(got) != 1 {
		t.Fatalf("got %d changes", len(got))
	}
	if c.Gaps.Load() != 0 {
		t.Fatalf("gaps %v", c.GapReasons())
	}
}

// An iterator that expires before any record of its shard was read has no record to continue
// after: the shard is read from its oldest record, skipping what was written before the reader
// opened it (to the minute), and the change that was waiting arrives once, with no gap.
func TestStreamRenewsAnIteratorThatExpiredBeforeAnyRecord(t *testing.T) {
	fault := &recordsFault{err: &stypes.ExpiredIteratorException{Message: aws.String("Iterator expired")}}
	fault.armed.Store(true)
	r := newLocalRepo(t, repository.Config{APIOptions: []func(*middleware.Stack) error{fault.middleware}})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	org, err := r.CreateOrganization(context.Background(), "first")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Until(t, IsChangeOf(org.Key())); len(got) != 1 {
		t.Fatalf("got %d changes", len(got))
	}
	sentinel, err := r.CreateOrganization(context.Background(), "sentinel")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Until(t, IsChangeOf(sentinel.Key())); len(got) != 1 {
		t.Fatalf("got %d changes up to the sentinel: the first one twice?", len(got))
	}
	if fault.injected.Load() != 1 || c.Gaps.Load() != 0 {
		t.Fatalf("injected %d, gaps %v", fault.injected.Load(), c.GapReasons())
	}
}
