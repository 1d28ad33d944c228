package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"time"
)

// onlyDefer is the -only value that runs the incremental-delivery section alone.
const onlyDefer = "defer"

// deferredSaaS is the SaaS deep tree (deepOps[0]) with everything below the organizations'
// names deferred: what a screen that shows the organizations at once would ask.
const deferredSaaS = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Organization { name ... @defer(label: "users") { users(first: 4) { edges { node { name tickets(first: 5) { edges { node { title reporter { name } } } } } } } } } } }`

// deferResult is one way of answering the tree over multipart/mixed: the time to its first
// payload and to its last (the end of the response), and its calls, all payloads together.
type deferResult struct {
	name        string
	breadth     int
	first, last []time.Duration
	calls       map[string]int
	payloads    int
}

// measureDeferred measures the SaaS tree at each breadth with and without @defer, both over
// multipart/mixed (Apollo Client's Accept), sample by sample in turn so that both see the same
// machine.
func (b *bench) measureDeferred(ctx context.Context) ([]deferResult, error) {
	var out []deferResult
	n := max(b.cfg.budget.minSamples*3, 15)
	for _, br := range b.cfg.breadths {
		vars := deepOps[0].vars(b.d, br)
		whole := deferResult{name: "without @defer", breadth: br}
		deferred := deferResult{name: "@defer users", breadth: br}
		log.Printf("defer: %v breadth %d", deepOps[0], br)
		for range n {
			for _, r := range []*deferResult{&whole, &deferred} {
				query := deepOps[0].query
				if r == &deferred {
					query = deferredSaaS
				}
				if err := b.batched.payloadTimes(ctx, query, vars, r); err != nil {
					return nil, fmt.Errorf("%s breadth %d: %w", r.name, br, err)
				}
			}
		}
		out = append(out, whole, deferred)
	}
	return out, nil
}

// payloadTimes runs query once over multipart/mixed and adds its times, calls and payloads to r.
func (w *httpWay) payloadTimes(ctx context.Context, query string, vars map[string]any, r *deferResult) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.ts.URL+"/query", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "multipart/mixed;deferSpec=20220824, application/json")
	req.Header.Set("Authorization", "Bearer "+w.token)
	start := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return fmt.Errorf("not a multipart answer: %s", resp.Header.Get("Content-Type"))
	}
	calls, parts := map[string]int{}, 0
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		raw, _ := io.ReadAll(part)
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if parts++; parts == 1 {
			r.first = append(r.first, time.Since(start))
		}
		if err := addPartCalls(raw, calls); err != nil {
			return err
		}
	}
	r.last = append(r.last, time.Since(start))
	r.calls, r.payloads = calls, parts
	return nil
}

// addPartCalls adds the calls a payload's cost entries say (its own, and its incremental
// results') to calls; a payload with errors fails the run.
func addPartCalls(raw []byte, calls map[string]int) error {
	type costed struct {
		Errors     []json.RawMessage
		Extensions struct {
			DynamoDB struct{ Calls map[string]int }
		}
	}
	var p struct {
		costed
		Incremental []costed
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("payload %.80s: %w", raw, err)
	}
	for _, c := range append([]costed{p.costed}, p.Incremental...) {
		if len(c.Errors) > 0 {
			return fmt.Errorf("GraphQL errors: %s", c.Errors[0])
		}
		for op, n := range c.Extensions.DynamoDB.Calls {
			calls[op] += n
		}
	}
	return nil
}

// deferredHeading is the section's heading, by which -section finds it in the report.
const deferredHeading = "## Incremental delivery: time to the first and to the last payload"

// writeDeferred writes the section: p50 and p90 to the first and to the last payload, and whether
// each breadth meets the target: the first payload sooner with @defer (p50), the last no later
// than the undeferred whole within noise (the deferred p50 at most the undeferred p90), in the
// same calls.
func writeDeferred(w func(string, ...any), rs []deferResult, latency time.Duration) {
	if len(rs) == 0 {
		return
	}
	w("%s\n\n", deferredHeading)
	w("The SaaS tree (%s) over multipart/mixed, without `@defer` and with everything below the\n", deepOps[0].name)
	w("organizations' names in a deferred fragment (`deferredSaaS` in cmd/bench/deferred.go); %v added\n", latency)
	w("to every DynamoDB call; the two ways alternate sample by sample. Calls are those of all payloads together.\n")
	w("Target: the first payload comes sooner with `@defer` (p50), the last no later than the undeferred whole\n")
	w("within noise (the deferred p50 at most the undeferred p90), in the same calls.\n\n")
	w("| breadth | way | payloads | first p50 ms | first p90 ms | last p50 ms | last p90 ms | calls |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		w("| %d | %s | %d | %s | %s | %s | %s | %s |\n", r.breadth, r.name, r.payloads,
			ms(percentile(r.first, 50)), ms(percentile(r.first, 90)), ms(percentile(r.last, 50)), ms(percentile(r.last, 90)), callsText(r.calls))
	}
	for i := 0; i+1 < len(rs); i += 2 {
		whole, deferred := rs[i], rs[i+1]
		first := percentile(deferred.first, 50) - percentile(whole.first, 50)
		last := percentile(deferred.last, 50) - percentile(whole.last, 50)
		met := first < 0 && percentile(deferred.last, 50) <= percentile(whole.last, 90) && maps.Equal(whole.calls, deferred.calls)
		w("\nBreadth %d: with `@defer` the first payload comes %s (p50), the last %s (p50, noise included; the undeferred p50 to p90 spread is %s ms); the calls are %s. Target %s.\n",
			whole.breadth, relativeTime(first), relativeTime(last), ms(percentile(whole.last, 90)-percentile(whole.last, 50)),
			sameCallsText(whole.calls, deferred.calls), metMark(met))
	}
	w("\n")
}

// relativeTime says how a time d after another compares with it, by d's sign: "1.50 ms later",
// "1.50 ms sooner", or "at the same time" when the difference rounds to nothing (ms).
func relativeTime(d time.Duration) string {
	switch {
	case ms(d.Abs()) == ms(0):
		return "at the same time"
	case d < 0:
		return ms(-d) + " ms sooner"
	}
	return ms(d) + " ms later"
}

func callsText(calls map[string]int) string {
	var parts []string
	for _, op := range []string{"BatchGetItem", "GetItem", "Query"} {
		if calls[op] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", op, calls[op]))
		}
	}
	return strings.Join(parts, ", ")
}

func sameCallsText(a, b map[string]int) string {
	if maps.Equal(a, b) {
		return "the same"
	}
	return "NOT the same"
}

// printDeferred measures the section and prints it, writing no report; with -section it
// replaces the section in the report (cfg.out) instead, leaving the rest as the last full run
// wrote it.
func printDeferred(ctx context.Context, b *bench) error {
	rs, err := b.measureDeferred(ctx)
	if err != nil {
		return err
	}
	var out strings.Builder
	writeDeferred(func(format string, a ...any) { fmt.Fprintf(&out, format, a...) }, rs, b.cfg.latency)
	if !b.cfg.section {
		fmt.Print(out.String())
		return nil
	}
	return rewriteSection(b.cfg.out, deferredHeading, "## At zero added latency", "defer", out.String())
}

// rewriteSection replaces the section under heading of the report file out (before the heading
// before when it has none) with section, which -only name -section measured alone, saying so.
func rewriteSection(out, heading, before, name, section string) error {
	report, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	section = strings.Replace(section, heading+"\n\n", fmt.Sprintf("%s\n\nThis section alone from `go run ./cmd/bench -only %s -section` (%s, %s), the rest from the full run above.\n\n",
		heading, name, time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine()), 1)
	updated, err := replaceSection(string(report), heading, before, section)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(updated), 0o644); err != nil {
		return err
	}
	log.Printf("replaced the section %q of %s", heading, out)
	return nil
}

// replaceSection replaces the section of report under heading (up to the next "## " heading)
// with section; without one, it puts section before the heading before.
func replaceSection(report, heading, before, section string) (string, error) {
	if i := strings.Index(report, heading+"\n"); i >= 0 {
		end := len(report)
		if j := strings.Index(report[i+len(heading):], "\n## "); j >= 0 {
			end = i + len(heading) + j + 1
		}
		return report[:i] + section + report[end:], nil
	}
	if i := strings.Index(report, before+"\n"); i >= 0 {
		return report[:i] + section + report[i:], nil
	}
	return "", fmt.Errorf("the report has neither %q nor %q", heading, before)
}
