package stream_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// orderFixture is a table with one organization's ticket, whose item the tests hand the appender
// as the records of shards they make up.
type orderFixture struct {
	repo *store.Store
	org  string
	tk   *saas.Ticket
}

func newOrderFixture(t *testing.T) orderFixture {
	t.Helper()
	repo := storetest.New(t)
	org, err := repo.CreateOrganization(t.Context(), "Org")
	if err != nil {
		t.Fatal(err)
	}
	u, err := repo.CreateUser(t.Context(), org.ID, "User", "user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := repo.CreateTicket(t.Context(), org.ID, u.ID, "title", "body")
	if err != nil {
		t.Fatal(err)
	}
	return orderFixture{repo: repo, org: org.ID, tk: tk}
}

// records are the changes of shard with the sequence numbers seqs.
func (f orderFixture) records(t *testing.T, shard string, seqs ...int) []stream.Change {
	t.Helper()
	var out []stream.Change
	for _, seq := range seqs {
		c, err := stream.RecordOf(t.Context(), f.repo.Stream, f.tk, shard, fmt.Sprintf("%021d", seq))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// appended appends a batch and returns what was handed on.
func appended(t *testing.T, a *stream.LogAppender, shard string, batch []stream.Change) []stream.Change {
	t.Helper()
	handed, err := a.Append(t.Context(), shard, batch)
	if err != nil {
		t.Fatal(err)
	}
	return handed
}

// resume reads the organization's log after a cursor, as a client's resume does.
func (f orderFixture) resume(t *testing.T, cursor string) []stream.Change {
	t.Helper()
	scope := stream.TicketChangeScope(f.org, "")
	from := uint64(0)
	if cursor != "" {
		pos, err := f.repo.OpenChangeCursor(cursor)
		if err != nil {
			t.Fatal(err)
		}
		from = pos.Position
	}
	changes, _, err := f.repo.ChangesAfter(context.Background(), scope, from, stream.MaxChangesPage)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// ids are "shard/sequence number" of each change, in order.
func ids(changes []stream.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, fmt.Sprintf("%s/%s@%d", c.Shard, c.Sequence[len(c.Sequence)-3:], c.Position))
	}
	return out
}

// With several open shards, a lagging shard's change (a LOWER sequence number than one of
// another shard that a client read already) is appended after it, and reaches that client when
// it resumes from the cursor of what it read: the log's order is the order of the appends, not
// of the sequence numbers, and never changes once read.
func TestChangeLogKeepsItsOrderAcrossShards(t *testing.T) {
	f := newOrderFixture(t)
	a, err := stream.NewLogAppender(t.Context(), f.repo.Stream)
	if err != nil {
		t.Fatal(err)
	}
	scope := stream.TicketChangeScope(f.org, "")
	appended(t, a, "shardA", f.records(t, "shardA", 100))
	appended(t, a, "shardB", f.records(t, "shardB", 500))
	read := f.resume(t, "")
	cursor := f.repo.ChangeCursor(scope, &read[len(read)-1]).String()

	// Shard A lagged: its next record is older than shard B's, and is appended only now.
	lagging := appended(t, a, "shardA", f.records(t, "shardA", 200))
	appended(t, a, "shardB", f.records(t, "shardB", 600))
	if got, want := ids(f.resume(t, cursor)), []string{"shardA/200@3", "shardB/600@4"}; !slices.Equal(got, want) {
		t.Fatalf("resumed after %s: %v, want %v", ids(read), got, want)
	}
	if got := ids(f.resume(t, "")); !slices.Equal(got, []string{"shardA/100@1", "shardB/500@2", "shardA/200@3", "shardB/600@4"}) {
		t.Fatalf("the whole log: %v", got)
	}
	if lagging[0].Position != 3 || f.repo.ChangeCursor(scope, &lagging[0]).String() == cursor {
		t.Fatalf("handed on %v", ids(lagging))
	}
}

// A batch appended again (by a second reader that read the log's state before the first one
// appended, or by the same reader retrying) appends nothing twice and takes no new positions:
// its transaction's conditions fail, and the second reader hands the batch on at the positions
// it has in the log. Each reader's next append then takes the next positions.
func TestChangeLogAppendsABatchOnceAcrossReaders(t *testing.T) {
	f := newOrderFixture(t)
	first, err := stream.NewLogAppender(t.Context(), f.repo.Stream)
	if err != nil {
		t.Fatal(err)
	}
	second, err := stream.NewLogAppender(t.Context(), f.repo.Stream)
	if err != nil {
		t.Fatal(err)
	}
	batch := f.records(t, "shardA", 10, 11, 12)
	byFirst := appended(t, first, "shardA", slices.Clone(batch))
	bySecond := appended(t, second, "shardA", slices.Clone(batch))
	again := appended(t, first, "shardA", slices.Clone(batch))
	want := []string{"shardA/010@1", "shardA/011@2", "shardA/012@3"}
	for name, got := range map[string][]stream.Change{"first": byFirst, "second": bySecond, "first again": again} {
		if !slices.Equal(ids(got), want) {
			t.Errorf("%s reader handed on %v, want %v", name, ids(got), want)
		}
	}
	if got := ids(f.resume(t, "")); !slices.Equal(got, want) {
		t.Fatalf("the log: %v, want %v", got, want)
	}

	// Both go on: the first with a stale head, on another shard.
	appended(t, second, "shardA", f.records(t, "shardA", 10, 11, 12, 13))
	appended(t, first, "shardB", f.records(t, "shardB", 7))
	want = append(want, "shardA/013@4", "shardB/007@5")
	if got := ids(f.resume(t, "")); !slices.Equal(got, want) {
		t.Fatalf("the log: %v, want %v", got, want)
	}
	if head, err := stream.LogHead(t.Context(), f.repo.Stream); err != nil || head != 5 {
		t.Fatalf("head %d, %v; want 5", head, err)
	}
}

// A batch larger than one transaction takes (100 actions, two of them the head and the
// checkpoint) is appended in chunks, at consecutive positions.
func TestChangeLogAppendsALargeBatchInChunks(t *testing.T) {
	f := newOrderFixture(t)
	a, err := stream.NewLogAppender(t.Context(), f.repo.Stream)
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([]int, 130)
	for i := range seqs {
		seqs[i] = 100 + i
	}
	handed := appended(t, a, "shardA", f.records(t, "shardA", seqs...))
	logged := f.resume(t, "")
	if len(handed) != len(seqs) || len(logged) != len(seqs) {
		t.Fatalf("handed on %d, logged %d; want %d", len(handed), len(logged), len(seqs))
	}
	for i, c := range logged {
		if c.Position != uint64(i+1) || c.Sequence != handed[i].Sequence || handed[i].Position != c.Position {
			t.Fatalf("change %d: logged %s at %d, handed on %s at %d", i, c.Sequence, c.Position, handed[i].Sequence, handed[i].Position)
		}
	}
	if u := f.repo.LogUsage(); u.Chunks != 2 || u.Items != len(seqs) {
		t.Fatalf("usage %+v: want 2 transactions of %d items", u, len(seqs))
	}
}
