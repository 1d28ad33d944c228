package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"singletable/changefeed"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/stream"
	"singletable/server"
)

// Subscriptions: how long a write takes to reach its subscribers, with 1, 100 and 1,000 of them
// on one instance, what an idle subscriber holds in memory, and the CPU a delivered event costs.
// The subscribers are WebSocket clients (graphql-transport-ws) in this process, all subscribed to
// the tickets of one organization; the writes go to the table directly, as any writer's would.

// subscriberCounts are the numbers of subscribers measured.
var subscriberCounts = []int{1, 100, 1000}

// subscriptionWrites is how many tickets each measurement writes, one every writeSpacing.
const (
	subscriptionWrites = 20
	writeSpacing       = 100 * time.Millisecond
)

// subscriptionResult is one measurement.
type subscriptionResult struct {
	subscribers       int
	p50, p99          time.Duration
	delivered, missed int
	// heapPerIdle is the heap one more idle subscription holds (server and client, both in this
	// process); cpuPerEvent the process's CPU time per delivered event (the same).
	heapPerIdle float64
	cpuPerEvent time.Duration
}

// measureSubscriptions runs the measurements on a server whose hub reads the table's stream.
func (b *bench) measureSubscriptions(ctx context.Context, rep *report) error {
	hub := changefeed.New(b.seeder.StreamReader(stream.StreamOptions{}), nil, changefeed.Options{})
	hub.Start(ctx)
	defer hub.Close()
	select {
	case <-hub.Ready():
	case <-time.After(time.Minute):
		return fmt.Errorf("subscriptions: the hub did not find the table's stream")
	}
	way := newHTTPWay(b.seeder, server.Config{Hub: hub})
	defer way.close()
	org := b.d.orgs[0]
	for _, n := range subscriberCounts {
		log.Printf("subscriptions: %d subscribers", n)
		r, err := measureFanOut(ctx, []*httpWay{way}, b.seeder, org, b.d.users[org.ID][0], n)
		if err != nil {
			return fmt.Errorf("subscriptions, %d subscribers: %w", n, err)
		}
		rep.subscriptions = append(rep.subscriptions, r)
	}
	return nil
}

// measureFanOut opens n subscriptions, spread evenly over the servers of ways, measures the heap
// they hold, writes subscriptionWrites tickets and measures when each subscriber receives each.
func measureFanOut(ctx context.Context, ways []*httpWay, repo *store.Store, org *saas.Organization, user *saas.User, n int) (subscriptionResult, error) {
	before := heapInUse()
	subs := make([]*subscriber, n)
	for i := range subs {
		s, err := subscribe(ctx, ways[i%len(ways)], orgGID(org))
		if err != nil {
			return subscriptionResult{}, err
		}
		defer s.close()
		subs[i] = s
	}
	time.Sleep(500 * time.Millisecond) // every subscription is open on the server
	res := subscriptionResult{subscribers: n, heapPerIdle: (float64(heapInUse()) - float64(before)) / float64(n)}
	written := map[string]time.Time{}
	cpu0 := cpuTime()
	for i := range subscriptionWrites {
		title := fmt.Sprintf("fan-out %d/%d", n, i)
		written[title] = time.Now()
		if _, err := repo.CreateTicket(ctx, org.ID, user.ID, title, "b"); err != nil {
			return res, err
		}
		time.Sleep(writeSpacing)
	}
	lat, missed, _ := deliveries(subs, written, 30*time.Second)
	res.missed, res.delivered = missed, len(lat)
	if res.delivered > 0 {
		res.cpuPerEvent = (cpuTime() - cpu0) / time.Duration(res.delivered)
		res.p50, res.p99 = percentiles(lat)
	}
	return res, nil
}

// deliveries waits (at most d each) for every subscriber to get the written titles, and returns
// each delivery's latency since its write, the deliveries missed and the subscriptions that ended.
func deliveries(subs []*subscriber, written map[string]time.Time, d time.Duration) (lat []time.Duration, missed, ended int) {
	for _, s := range subs {
		got := s.await(len(written), d)
		for title, at := range got {
			if w, ok := written[title]; ok {
				lat = append(lat, at.Sub(w))
			}
		}
		missed += len(written) - len(got)
		s.mu.Lock()
		if s.ended {
			ended++
		}
		s.mu.Unlock()
	}
	return lat, missed, ended
}

// percentiles are the p50 and p99 of lat (sorted in place).
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(lat)
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// subscriber is one graphql-transport-ws client subscribed to an organization's tickets; it
// notes when each ticket title arrives.
type subscriber struct {
	conn *websocket.Conn
	mu   sync.Mutex
	got  map[string]time.Time
	// ended: the subscription ended (an error, or complete) before the client closed it.
	ended bool
	done  chan struct{}
}

// subscribe opens a WebSocket to way's server as its admin and subscribes to org's tickets.
func subscribe(ctx context.Context, way *httpWay, org string) (*subscriber, error) {
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(way.ts.URL, "http")+"/query", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(1 << 20)
	s := &subscriber{conn: conn, got: map[string]time.Time{}, done: make(chan struct{})}
	init := map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + way.token}}
	if err := wsjson.Write(ctx, conn, init); err != nil {
		return nil, err
	}
	// The acknowledgement first: the server bounds the sockets of one address that have not
	// completed connection_init.
	var ack struct{ Type string }
	if err := wsjson.Read(ctx, conn, &ack); err != nil || ack.Type != "connection_ack" {
		return nil, fmt.Errorf("connection_init answered %q: %v", ack.Type, err)
	}
	sub := map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{
		"query":     `subscription($org: ID!) { ticketChanged(organizationId: $org) { ticket { title } } }`,
		"variables": map[string]any{"org": org},
	}}
	if err := wsjson.Write(ctx, conn, sub); err != nil {
		return nil, err
	}
	go s.read(ctx)
	return s, nil
}

// read notes every event's ticket title and the time it arrived, answering pings.
func (s *subscriber) read(ctx context.Context) {
	defer close(s.done)
	for {
		var m struct {
			Type    string
			Payload struct {
				Data struct {
					TicketChanged struct{ Ticket struct{ Title string } }
				}
				Errors []json.RawMessage
			}
		}
		if err := wsjson.Read(ctx, s.conn, &m); err != nil {
			return
		}
		switch m.Type {
		case "ping":
			_ = wsjson.Write(ctx, s.conn, map[string]string{"type": "pong"})
		case "next":
			s.mu.Lock()
			if len(m.Payload.Errors) > 0 {
				if !s.ended {
					log.Printf("a subscription ended: %s", m.Payload.Errors[0])
				}
				s.ended = true
			} else {
				s.got[m.Payload.Data.TicketChanged.Ticket.Title] = time.Now()
			}
			s.mu.Unlock()
		case "complete", "error":
			s.mu.Lock()
			s.ended = true
			s.mu.Unlock()
		}
	}
}

// await waits until the subscriber has n events, or for at most d, and returns what it got.
func (s *subscriber) await(n int, d time.Duration) map[string]time.Time {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		k := len(s.got)
		s.mu.Unlock()
		if k >= n {
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.got)
}

func (s *subscriber) close() { _ = s.conn.CloseNow() }

// writeSubscriptions writes the section on subscriptions.
func (rep *report) writeSubscriptions(w func(string, ...any)) {
	if len(rep.subscriptions) == 0 {
		return
	}
	w("## Subscriptions: from a write to its subscribers\n\n")
	w("One server instance with its hub reading the table's stream with the production settings (a `GetRecords` every 250 ms while a shard is idle); N WebSocket clients (graphql-transport-ws) in the same process, all subscribed to one organization's tickets; %d tickets written to the table directly (not through the API), one every %v. Latency is from the write's start to each subscriber's receipt of its event, over every (subscriber, event) pair. DynamoDB Local's stream, on the same two cores. Memory per idle subscriber is the heap that one more open subscription holds, server and client side together (both are in this process; the hub's own share is about 0.7 KB, docs/operations.md); CPU per event is the process's CPU time during the writes divided by the events delivered (the server resolving and writing each event, the client reading it; with one subscriber it is mostly the writes themselves and the stream reader's polling).\n\n", subscriptionWrites, writeSpacing)
	w("| subscribers | events delivered | missed | write → delivery p50 ms | p99 ms | heap per idle subscriber KB | CPU per delivered event µs |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rep.subscriptions {
		heap := "–" // one subscriber's heap is within the noise of the collector
		if r.subscribers >= 100 {
			heap = fmt.Sprintf("%.1f", r.heapPerIdle/1024)
		}
		w("| %d | %d | %d | %s | %s | %s | %.0f |\n", r.subscribers, r.delivered, r.missed, ms(r.p50), ms(r.p99), heap, float64(r.cpuPerEvent.Nanoseconds())/1000)
	}
	w("\n")
	if rep.burst.subscribers > 0 {
		w("### A burst from another writer\n\n%d subscribers reading as fast as they can while another writer imports %d tickets of their organization at once (BatchWriteItem, 25 a call, with an SDK client of its own). Latency is from each batch's write to each subscriber's receipt; peak heap is the process's (server, hub and the %d clients). No subscription may be dropped (`go run ./cmd/bench -only burst` runs this section alone).\n\n", rep.burst.subscribers, rep.burst.tickets, rep.burst.subscribers)
		w("%s\n", burstTable(rep.burst))
	}
}
