package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/server"
)

// The replay floor: the very DynamoDB requests one GraphQL operation made, sent again with raw
// HTTP, round by round, every request of a round at once, each after the same added latency as
// the SDK's. It is what the operation would cost if the server spent no time at all between
// DynamoDB's answers: no GraphQL, no dataloader windows, no SDK marshalling. The direct floor
// (repository/benchfloor) still pays the SDK; the replay does not.

// recordedCall is one HTTP request the SDK sent, with when it started and when its response
// body was read to the end.
type recordedCall struct {
	method, url string
	header      http.Header
	body        []byte
	start, end  time.Time
}

// operation is the DynamoDB operation a request calls (from its X-Amz-Target header).
func (c *recordedCall) operation() string {
	t := c.header.Get("X-Amz-Target")
	return t[strings.LastIndexByte(t, '.')+1:]
}

// recorder is an http.RoundTripper that records the requests passing through it while on.
type recorder struct {
	next  http.RoundTripper
	mu    sync.Mutex
	on    bool
	calls []*recordedCall
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	on := r.on
	r.mu.Unlock()
	if !on {
		return r.next.RoundTrip(req)
	}
	c := &recordedCall{method: req.Method, url: req.URL.String(), header: req.Header.Clone()}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		c.body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	c.start = time.Now()
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &endTimer{ReadCloser: resp.Body, call: c, mu: &r.mu}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return resp, nil
}

// endTimer sets its call's end when the response body is read to its end or closed.
type endTimer struct {
	io.ReadCloser
	call *recordedCall
	mu   *sync.Mutex
}

func (e *endTimer) Read(p []byte) (int, error) {
	n, err := e.ReadCloser.Read(p)
	if err == io.EOF {
		e.done()
	}
	return n, err
}

func (e *endTimer) Close() error {
	e.done()
	return e.ReadCloser.Close()
}

func (e *endTimer) done() {
	e.mu.Lock()
	if e.call.end.IsZero() {
		e.call.end = time.Now()
	}
	e.mu.Unlock()
}

// record runs an operation once with recording on and returns its calls.
func (r *recorder) record(ctx context.Context, run runner) ([]*recordedCall, error) {
	r.mu.Lock()
	r.on, r.calls = true, nil
	r.mu.Unlock()
	_, err := run(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.calls, err
}

// rounds groups calls into dependent rounds: a call belongs to the round after the latest round
// of the calls that had ended before it started (the same rule as the meter's round count).
func rounds(calls []*recordedCall) [][]*recordedCall {
	sorted := slices.Clone(calls)
	slices.SortFunc(sorted, func(a, b *recordedCall) int { return a.start.Compare(b.start) })
	round := make(map[*recordedCall]int, len(sorted))
	var out [][]*recordedCall
	for _, c := range sorted {
		n := 0
		for _, p := range sorted {
			if !p.end.IsZero() && !p.end.After(c.start) {
				n = max(n, round[p]+1)
			}
		}
		round[c] = n
		for len(out) <= n {
			out = append(out, nil)
		}
		out[n] = append(out[n], c)
	}
	return out
}

// replay is a recorded operation ready to be sent again.
type replay struct {
	rounds  [][]*recordedCall
	calls   map[string]int
	latency time.Duration
	client  *http.Client
}

func newReplay(calls []*recordedCall, latency time.Duration) *replay {
	rp := &replay{rounds: rounds(calls), calls: map[string]int{}, latency: latency,
		client: &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}}
	for _, c := range calls {
		rp.calls[c.operation()]++
	}
	return rp
}

// runner sends the rounds one after another, the calls of each at once.
func (rp *replay) runner() runner {
	return func(ctx context.Context) (sample, error) {
		start := time.Now()
		for _, round := range rp.rounds {
			g, ctx := errgroup.WithContext(ctx)
			for _, c := range round {
				g.Go(func() error { return rp.send(ctx, c) })
			}
			if err := g.Wait(); err != nil {
				return sample{}, err
			}
		}
		wall := time.Since(start)
		return sample{wall: wall, server: wall, dynamo: wall, calls: rp.calls, rounds: len(rp.rounds)}, nil
	}
}

func (rp *replay) send(ctx context.Context, c *recordedCall) error {
	if rp.latency > 0 {
		t := time.NewTimer(rp.latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, bytes.NewReader(c.body))
	if err != nil {
		return err
	}
	for k, v := range c.header {
		if k != "Content-Length" {
			req.Header[k] = v
		}
	}
	resp, err := rp.client.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("replayed %s: HTTP %d", c.operation(), resp.StatusCode)
	}
	return err
}

// recordingWay is the batched GraphQL way on a repository whose SDK requests can be recorded.
type recordingWay struct {
	rec *recorder
	way *httpWay
}

// newRecordingWay serves a repository of configuration cfg whose requests are recorded, after the
// added latency: the recorder sees them as DynamoDB does.
func newRecordingWay(ctx context.Context, cfg repository.Config, latency time.Duration) (*recordingWay, error) {
	rec := &recorder{}
	cfg.WrapTransport = repotest.Chain(cfg.WrapTransport, func(next http.RoundTripper) http.RoundTripper { rec.next = next; return rec })
	cfg = withLatency(cfg, latency)
	repo, err := store.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &recordingWay{rec: rec, way: newHTTPWay(repo, server.Config{})}, nil
}

func (w *recordingWay) close() { w.way.close() }

// replayOf records the operation a few times and keeps the run with the fewest rounds: the floor
// is the best the requests allow, not a run a late goroutine happened to stretch.
func (w *recordingWay) replayOf(ctx context.Context, query string, vars map[string]any, latency time.Duration) (*replay, error) {
	run := w.way.runner(query, vars)
	if _, err := run(ctx); err != nil { // warm-up: connections
		return nil, err
	}
	var best *replay
	for range 5 {
		calls, err := w.rec.record(ctx, run)
		if err != nil {
			return nil, err
		}
		if rp := newReplay(calls, latency); best == nil || len(rp.rounds) < len(best.rounds) {
			best = rp
		}
	}
	return best, nil
}
