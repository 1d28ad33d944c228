package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"singletable/changefeed"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// Delta sync: what the change log costs and gives. The stream's reader appends each change to
// the log before it dispatches it, so the time from a write to its dispatch is the time to the
// log; the log's write capacity is what DynamoDB reports for its transactions (log items, head
// and checkpoint), for single writes and for an import apart; a replay of 10,000
// changes is read page by page as a subscription's replay (100 a page) and a pull (500) read it.

// onlyDeltaSync is the -only value that runs the delta-sync measurement alone.
const onlyDeltaSync = "deltasync"

const (
	deltaChanges = 10_000
	deltaSingles = 200
)

// deltaResult is the delta-sync measurement.
type deltaResult struct {
	p50, p99 time.Duration // write → appended to the log (and dispatched)
	// singles and imported are what the log's appends wrote for the single writes and for the
	// import.
	singles, imported repository.ChangeLogUsage
	changes           int
	replays           []replayResult
	importDuration    time.Duration
}

// replayResult is one replay of every change of the scope.
type replayResult struct {
	page, calls, changes int
	elapsed              time.Duration
	peakHeap             uint64
}

// deltaHeading is the section's heading, by which -section finds it in the report.
const deltaHeading = "## Delta sync: the change log"

// runDeltaSync is `-only deltasync`: the section of the report, printed; with -section, written
// over its section of the report (cfg.out) instead.
func runDeltaSync(ctx context.Context, cfg config) error {
	r, err := measureDeltaSyncAlone(ctx)
	if err != nil {
		return err
	}
	var out strings.Builder
	writeDeltaSync(func(format string, a ...any) { fmt.Fprintf(&out, format, a...) }, &r)
	if !cfg.section {
		fmt.Print(out.String())
		return nil
	}
	return rewriteSection(cfg.out, deltaHeading, "## Profile of the batched deep operations", onlyDeltaSync, out.String())
}

// measureDeltaSyncAlone measures delta sync on a table of its own, one organization's tickets:
// the 10,000 changes stay out of the dataset the other sections read.
func measureDeltaSyncAlone(ctx context.Context) (deltaResult, error) {
	_, seeder, base, drop, err := openRepos(ctx, 0, true)
	if err != nil {
		return deltaResult{}, err
	}
	defer drop()
	org, err := seeder.CreateOrganization(ctx, "Delta")
	if err != nil {
		return deltaResult{}, err
	}
	user, err := seeder.CreateUser(ctx, org.ID, "Reporter", "reporter@delta.example")
	if err != nil {
		return deltaResult{}, err
	}
	return measureDeltaSync(ctx, seeder, base, org, user)
}

// measureDeltaSync writes the changes with a hub reading the stream, then replays them.
func measureDeltaSync(ctx context.Context, repo *store.Store, base repository.Config, org *saas.Organization, user *saas.User) (deltaResult, error) {
	var res deltaResult
	hub := changefeed.New(repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond}), nil, changefeed.Options{})
	hub.Start(ctx)
	defer hub.Close()
	<-hub.Ready()
	sub, err := hub.Subscribe("bench", func(c stream.Change) bool {
		t, ok := c.Entity().(*saas.Ticket)
		return ok && t.OrgID == org.ID
	})
	if err != nil {
		return res, err
	}
	defer sub.Close()
	if res.p50, res.p99, err = appendLatency(ctx, repo, sub, org, user); err != nil {
		return res, err
	}
	res.singles = repo.LogUsage()
	started := time.Now()
	logged := make(chan error, 1)
	go func() { logged <- awaitChanges(sub, deltaChanges) }()
	if _, err := storetest.ImportTickets(ctx, base, org.ID, user.ID, deltaChanges); err != nil {
		return res, err
	}
	if err := <-logged; err != nil {
		return res, err
	}
	res.importDuration = time.Since(started)
	res.imported = usageSince(repo.LogUsage(), res.singles)
	res.changes = deltaChanges + deltaSingles
	for _, page := range []int{100, 500} {
		r, err := replayAll(ctx, repo, stream.TicketChangeScope(org.ID, ""), page)
		if err != nil {
			return res, err
		}
		res.replays = append(res.replays, r)
	}
	return res, nil
}

// awaitChanges takes n changes from sub as fast as they come (each dispatched after its append
// to the log), within 5 minutes.
func awaitChanges(sub *changefeed.Subscription, n int) error {
	timeout := time.After(5 * time.Minute)
	for i := 0; i < n; i++ {
		select {
		case _, open := <-sub.Events():
			if !open {
				return fmt.Errorf("deltasync: the subscription ended after %d changes: %v", i, sub.Err())
			}
		case <-timeout:
			return fmt.Errorf("deltasync: %d of %d imported changes reached the log", i, n)
		}
	}
	return nil
}

// appendLatency writes tickets one at a time and times each from the write's answer to its
// dispatch, which follows its append to the log.
func appendLatency(ctx context.Context, repo *store.Store, sub *changefeed.Subscription, org *saas.Organization, user *saas.User) (p50, p99 time.Duration, err error) {
	lat := make([]time.Duration, 0, deltaSingles)
	for i := range deltaSingles {
		if _, err := repo.CreateTicket(ctx, org.ID, user.ID, fmt.Sprintf("single %d", i), "b"); err != nil {
			return 0, 0, err
		}
		written := time.Now()
		select {
		case _, open := <-sub.Events():
			if !open {
				return 0, 0, fmt.Errorf("deltasync: the subscription ended: %v", sub.Err())
			}
			lat = append(lat, time.Since(written))
		case <-time.After(30 * time.Second):
			return 0, 0, fmt.Errorf("deltasync: write %d did not reach the log", i)
		}
	}
	p50, p99 = percentiles(lat)
	return p50, p99, nil
}

// replayAll reads scope's whole log, page pages at a time, as a replay does, sampling the heap.
func replayAll(ctx context.Context, repo *store.Store, scope stream.ChangeScope, page int) (replayResult, error) {
	r := replayResult{page: page}
	before := heapInUse()
	started := time.Now()
	var ms runtime.MemStats
	for after, more := uint64(0), true; more; {
		changes, next, err := repo.ChangesAfter(ctx, scope, after, page)
		if err != nil {
			return r, err
		}
		r.calls++
		r.changes += len(changes)
		if len(changes) > 0 {
			after = changes[len(changes)-1].Position
		}
		more = next
		runtime.ReadMemStats(&ms)
		r.peakHeap = max(r.peakHeap, ms.HeapInuse-min(ms.HeapInuse, before))
	}
	r.elapsed = time.Since(started)
	return r, nil
}

// retentions are the CHANGE_RETENTION values the storage rows compare, and storedChangesPerDay
// the write rate they are computed for.
var retentions = []time.Duration{24 * time.Hour, 168 * time.Hour, 720 * time.Hour}

const storedChangesPerDay = 100_000

// usageSince is what the log wrote between two readings of its usage.
func usageSince(now, then repository.ChangeLogUsage) repository.ChangeLogUsage {
	return repository.ChangeLogUsage{Items: now.Items - then.Items, Chunks: now.Chunks - then.Chunks,
		Changes: now.Changes - then.Changes, Bytes: now.Bytes - then.Bytes, WCU: now.WCU - then.WCU, Billed: now.Billed - then.Billed}
}

// perChange is a usage's write capacity per change numbered: as DynamoDB Local reported it, and
// as AWS bills it.
func perChange(u repository.ChangeLogUsage) (reported, billed float64) {
	n := float64(max(1, u.Changes))
	return u.WCU / n, u.Billed / n
}

// writeDeltaSync writes the delta-sync section of the report (also what -only deltasync prints).
func writeDeltaSync(w func(string, ...any), r *deltaResult) {
	if r == nil || r.changes == 0 {
		return
	}
	w("%s\n\n", deltaHeading)
	w("One hub reading the table's stream (`GetRecords` every 20 ms), which appends every change to the change log before it dispatches it (docs/operations.md, \"The change log\"), on a table of its own with one organization. Write → appended: %d tickets created one at a time, each timed from the write's answer to its dispatch (which follows its append). Then another writer imports %s tickets (BatchWriteItem, 25 a call), timed until the last is dispatched. The log's write capacity is that of the appends' transactions (each chunk of a shard's changes one TransactWriteItems: its log items, the log's head and the shard's checkpoint): on AWS's terms, 2 WCU per item and KB of the items' sizes; DynamoDB Local reports less (it counts a transaction's items by their total size). A single write is a chunk of its own; an import's changes come in chunks of what one `GetRecords` returned, up to 98 log items. Then the organization's whole log (%s changes) is read as a subscription's replay reads it (100 a page) and as a pull does (500 a page), one Query per page; peak heap is the process's growth during the read. `go run ./cmd/bench -only deltasync` runs this section alone.\n\n",
		deltaSingles, formatInt(deltaChanges), formatInt(r.changes))
	w("%s\n", deltaTable(*r))
	all := r.imported
	all.Items += r.singles.Items
	all.Bytes += r.singles.Bytes
	kb := float64(all.Bytes) / float64(max(1, all.Items)) / 1000
	w("Storage is paid per retained log item: a change's item holds its images before and after (about twice the object; a ticket's is %.1f KB as measured), one per change and scope (a ticket or product change has one scope, an order or employee change two, a transfer three); the head is one item, the checkpoints one per shard read in the last 25 hours. With %s ticket changes a day:\n\n", kb, formatInt(storedChangesPerDay))
	w("| `CHANGE_RETENTION` | log items kept | storage (at most) |\n|---|---|---|\n")
	for _, d := range retentions {
		items := float64(storedChangesPerDay) * float64(all.Items) / float64(r.changes) * d.Hours() / 24
		w("| %dh | %s | %.1f GB |\n", int(d.Hours()), formatInt(int(items)), items*kb/1e6)
	}
	w("\n")
}

// formatInt writes n with thousands separators.
func formatInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// deltaTable is the measurement as a Markdown table.
func deltaTable(r deltaResult) string {
	s := "| delta sync (DynamoDB Local) | value |\n|---|---|\n"
	s += fmt.Sprintf("| write → appended to the log, %d single writes | p50 %v, p99 %v |\n", deltaSingles, r.p50.Round(time.Millisecond), r.p99.Round(time.Millisecond))
	s += fmt.Sprintf("| %s imported changes (BatchWriteItem) until all are in the log | %v (%.1f ms a change) |\n", formatInt(deltaChanges), r.importDuration.Round(time.Millisecond), float64(r.importDuration.Microseconds())/1000/deltaChanges)
	s += fmt.Sprintf("| log items per ticket change | %.2f |\n", float64(r.singles.Items+r.imported.Items)/float64(r.changes))
	for _, u := range []struct {
		what  string
		usage repository.ChangeLogUsage
	}{{"single writes", r.singles}, {"import", r.imported}} {
		reported, billed := perChange(u.usage)
		s += fmt.Sprintf("| write capacity of the log per ticket change, %s (%s transactions, %.1f changes each) | %.2f WCU on AWS's terms (%.2f as DynamoDB Local reports it) |\n",
			u.what, formatInt(u.usage.Chunks), float64(u.usage.Changes)/float64(max(1, u.usage.Chunks)), billed, reported)
	}
	for _, rp := range r.replays {
		s += fmt.Sprintf("| replay of %s changes, %d a page | %d Queries, %v, peak heap +%.1f MiB |\n", formatInt(rp.changes), rp.page, rp.calls, rp.elapsed.Round(time.Millisecond), float64(rp.peakHeap)/(1<<20))
	}
	return s
}
