package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"singletable/auth"
	"singletable/repository"
	"singletable/repository/benchfloor"
	"singletable/repository/store"
	"singletable/server"
)

// sample is one execution of an operation.
type sample struct {
	wall    time.Duration // as the client saw it (HTTP round trip included), or the floor call
	server  time.Duration // the handler's own duration (the server's log line); wall for the floor
	dynamo  time.Duration // wall time with a DynamoDB call in flight (Meter)
	calls   map[string]int
	rounds  int
	answers string // a digest of what was read, to compare ways
}

// outside is the server's time outside DynamoDB calls.
func (s sample) outside() time.Duration { return max(0, s.server-s.dynamo) }

// runner executes an operation one way. Each way is a func so that the measurement code is the
// same for all of them.
type runner func(ctx context.Context) (sample, error)

// serverLog captures the handler's per-request log line (duration and DynamoDB time), keyed by
// request id, so that the server's own time can be split from the HTTP client's.
type serverLog struct {
	mu   sync.Mutex
	reqs map[string][2]float64 // durationMs, dynamodbMs
}

func (l *serverLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *serverLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *serverLog) WithGroup(string) slog.Handler            { return l }
func (l *serverLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "request" {
		return nil
	}
	var id string
	var v [2]float64
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "requestId":
			id = a.Value.String()
		case "durationMs":
			v[0] = a.Value.Float64()
		case "dynamodbMs":
			v[1] = a.Value.Float64()
		}
		return true
	})
	l.mu.Lock()
	l.reqs[id] = v
	l.mu.Unlock()
	return nil
}

func (l *serverLog) take(id string) ([2]float64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.reqs[id]
	delete(l.reqs, id)
	return v, ok
}

// httpWay serves the API with cfg on a loopback listener and returns a runner posting one
// operation to it. close stops the listener.
type httpWay struct {
	ts     *httptest.Server
	log    *serverLog
	client *http.Client
	seq    atomic.Int64
	// token is the admin's bearer token every operation sends: the production path verifies it.
	token string
}

func newHTTPWay(repo *store.Store, cfg server.Config) *httpWay {
	w := &httpWay{log: &serverLog{reqs: map[string][2]float64{}}}
	cfg.Logger = slog.New(w.log)
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	v, err := auth.New(auth.Config{HS256Secret: secret})
	if err != nil {
		panic(err)
	}
	cfg.Auth = v
	w.token, err = auth.MintHS256(secret, auth.Claims{Subject: "bench", Roles: []string{string(auth.RoleAdmin)}}, auth.MintOptions{TTL: 24 * time.Hour})
	if err != nil {
		panic(err)
	}
	w.ts = httptest.NewServer(server.New(repo, cfg))
	w.client = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	return w
}

func (w *httpWay) close() { w.ts.Close() }

func (w *httpWay) runner(query string, vars map[string]any) runner {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return func(ctx context.Context) (sample, error) {
		id := "bench-" + strconv.FormatInt(w.seq.Add(1), 10)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.ts.URL+"/query", bytes.NewReader(body))
		if err != nil {
			return sample{}, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", id)
		req.Header.Set("Authorization", "Bearer "+w.token)
		start := time.Now()
		resp, err := w.client.Do(req)
		if err != nil {
			return sample{}, err
		}
		var out struct {
			Data       json.RawMessage
			Errors     []json.RawMessage
			Extensions struct{ DynamoDB repository.Usage }
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		wall := time.Since(start)
		if err != nil {
			return sample{}, err
		}
		if len(out.Errors) > 0 {
			return sample{}, fmt.Errorf("GraphQL errors: %s", out.Errors[0])
		}
		s := sample{wall: wall, server: wall, calls: out.Extensions.DynamoDB.Calls, rounds: out.Extensions.DynamoDB.Rounds, answers: digest(out.Data)}
		// The log line is written after the response: wait for it briefly.
		for range 200 {
			if v, ok := w.log.take(id); ok {
				s.server = time.Duration(v[0] * float64(time.Millisecond))
				s.dynamo = time.Duration(v[1] * float64(time.Millisecond))
				break
			}
			time.Sleep(20 * time.Microsecond)
		}
		return s, nil
	}
}

// digest summarises a response by its length: the ways must read the same data.
func digest(data []byte) string { return strconv.Itoa(len(data)) }

// floorRunner runs a floor read with its own Meter.
func floorRunner(fn func(ctx context.Context) (benchfloor.Result, error)) runner {
	return func(ctx context.Context) (sample, error) {
		ctx, m := repository.WithMeter(ctx)
		start := time.Now()
		res, err := fn(ctx)
		wall := time.Since(start)
		if err != nil {
			return sample{}, err
		}
		u := m.Usage()
		return sample{wall: wall, server: wall, dynamo: u.DynamoDBTime, calls: u.Calls, rounds: u.Rounds,
			answers: fmt.Sprintf("%d/%d/%d/%d", res.Parents, res.Children, res.Leaves, res.Refs)}, nil
	}
}

// result is what the report shows for one operation, one way and one breadth.
type result struct {
	samples         []sample
	p50, p95        time.Duration
	outsideP50      time.Duration
	serverP50       time.Duration // the handler's own duration (the wall time for the floors)
	allocsPerOp     float64
	cpuPerOp        time.Duration
	throughput      map[int]float64 // ops/s by concurrency
	callsAtMost     map[string]int  // the largest count of each operation over all samples
	callsVary       bool            // not every sample made the same calls
	rounds          []int           // distinct rounds seen, ascending
	roundsTypical   int             // the median sample's rounds
	callsTypical    map[string]int  // the median sample's calls
	concurrentCalls map[int]bool    // concurrency → some sample made more calls than at concurrency 1
}

// budget bounds how long one measurement runs and how many samples it takes.
type budget struct {
	latencyTime   time.Duration // sequential samples for latency, allocations and CPU
	maxSamples    int
	minSamples    int
	throughputFor time.Duration // per concurrency level
}

// measure runs fn sequentially for latency (after one warm-up), counting allocations and CPU
// time, then at each concurrency for throughput.
func measure(ctx context.Context, fn runner, b budget, concurrency []int) (result, error) {
	if _, err := fn(ctx); err != nil { // warm-up: connections, caches
		return result{}, err
	}
	res := result{throughput: map[int]float64{}, concurrentCalls: map[int]bool{}}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	start := time.Now()
	for len(res.samples) < b.minSamples || (len(res.samples) < b.maxSamples && time.Since(start) < b.latencyTime) {
		s, err := fn(ctx)
		if err != nil {
			return result{}, err
		}
		res.samples = append(res.samples, s)
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms1)
	n := len(res.samples)
	res.allocsPerOp = float64(ms1.Mallocs-ms0.Mallocs) / float64(n)
	res.cpuPerOp = cpu / time.Duration(n)
	res.throughput[1] = float64(n) / elapsed.Seconds()

	res.summarize()
	for _, c := range concurrency {
		if c == 1 {
			continue
		}
		ops, more, err := throughput(ctx, fn, c, b.throughputFor, res.samples[0].calls)
		if err != nil {
			return result{}, err
		}
		res.throughput[c] = ops
		res.concurrentCalls[c] = more
	}
	return res, nil
}

// summarize computes res's percentiles, calls and rounds from its samples.
func (res *result) summarize() {
	n := len(res.samples)
	walls := make([]time.Duration, n)
	outs := make([]time.Duration, n)
	servers := make([]time.Duration, n)
	res.callsAtMost = map[string]int{}
	roundSet := map[int]bool{}
	for i, s := range res.samples {
		walls[i], outs[i], servers[i] = s.wall, s.outside(), s.server
		for op, c := range s.calls {
			res.callsAtMost[op] = max(res.callsAtMost[op], c)
		}
		if !sameCalls(s.calls, res.samples[0].calls) {
			res.callsVary = true
		}
		roundSet[s.rounds] = true
	}
	res.rounds = slices.Sorted(maps.Keys(roundSet))
	res.p50, res.p95 = percentile(walls, 50), percentile(walls, 95)
	res.outsideP50 = percentile(outs, 50)
	res.serverP50 = percentile(servers, 50)
	med := medianSample(res.samples)
	res.roundsTypical, res.callsTypical = med.rounds, med.calls
}

// throughput runs fn from c goroutines for about d (each finishes its current operation) and
// returns operations per second, and whether any made other calls than want.
func throughput(ctx context.Context, fn runner, c int, d time.Duration, want map[string]int) (float64, bool, error) {
	var (
		done  atomic.Int64
		other atomic.Bool
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	start := time.Now()
	deadline := start.Add(d)
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				s, err := fn(ctx)
				if err != nil {
					errMu.Lock()
					first = err
					errMu.Unlock()
					return
				}
				if !sameCalls(s.calls, want) {
					other.Store(true)
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds(), other.Load(), first
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func medianSample(ss []sample) sample {
	s := slices.Clone(ss)
	slices.SortFunc(s, func(a, b sample) int { return int(a.wall - b.wall) })
	return s[len(s)/2]
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
