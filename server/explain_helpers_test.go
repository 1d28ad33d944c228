package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// plan is extensions.plan as an explain answers it.
type plan struct {
	MaxCalls        map[string]int `json:"maxCalls"`
	MaxRounds       int            `json:"maxRounds"`
	Bounded         bool           `json:"bounded"`
	Complexity      int            `json:"complexity"`
	ComplexityLimit int            `json:"complexityLimit"`
	Steps           []planStep     `json:"steps"`
}

type planStep struct {
	Path          string  `json:"path"`
	AccessPattern *string `json:"accessPattern"`
	Operation     string  `json:"operation"`
	Index         *string `json:"index"`
	KeyCondition  string  `json:"keyCondition"`
	Round         int     `json:"round"`
	MaxCalls      *int    `json:"maxCalls"`
	Keys          int     `json:"keys"`
	Batch         int     `json:"batch"`
	Payload       *string `json:"payload"`
}

// explained is an explain's answer: its raw top-level entries, errors and plan.
type explained struct {
	raw    map[string]json.RawMessage
	errors []gqlError
	plan   *plan
	calls  int // extensions.dynamodb.totalCalls
	status int
}

// explain asks for the plan of an operation.
func (a *api) explain(query string, vars map[string]any) explained {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars, "extensions": map[string]any{"explain": true}})
	req, err := http.NewRequest(http.MethodPost, a.url+"/query", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	a.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var e explained
	e.status = resp.StatusCode
	if err := json.NewDecoder(resp.Body).Decode(&e.raw); err != nil {
		a.t.Fatalf("explain answer is not JSON: %v", err)
	}
	var ext struct {
		Plan     *plan `json:"plan"`
		DynamoDB struct {
			TotalCalls int `json:"totalCalls"`
		} `json:"dynamodb"`
	}
	if err := json.Unmarshal(e.raw["extensions"], &ext); err != nil {
		a.t.Fatalf("explain extensions: %v", err)
	}
	if raw, ok := e.raw["errors"]; ok {
		if err := json.Unmarshal(raw, &e.errors); err != nil {
			a.t.Fatal(err)
		}
	}
	e.plan, e.calls = ext.Plan, ext.DynamoDB.TotalCalls
	return e
}

// within reports how the actual cost of an operation exceeds its plan: "" when every
// operation's calls and the rounds are within it.
func within(p *plan, calls map[string]int, rounds int) string {
	var over []string
	for op, n := range calls {
		if n > p.MaxCalls[op] {
			over = append(over, fmt.Sprintf("%s %d > %d", op, n, p.MaxCalls[op]))
		}
	}
	if rounds > p.MaxRounds {
		over = append(over, fmt.Sprintf("rounds %d > %d", rounds, p.MaxRounds))
	}
	return strings.Join(over, ", ")
}

// planText is a plan's steps, one per line, for a failure's message.
func planText(p *plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "maxCalls %v, maxRounds %d\n", p.MaxCalls, p.MaxRounds)
	for _, s := range p.Steps {
		ap, calls := "-", "?"
		if s.AccessPattern != nil {
			ap = *s.AccessPattern
		}
		if s.MaxCalls != nil {
			calls = fmt.Sprint(*s.MaxCalls)
		}
		fmt.Fprintf(&b, "  round %d %-4s %-18s %-12s calls %s keys %d batch %d %s\n", s.Round, ap, s.Operation, s.Path, calls, s.Keys, s.Batch, s.KeyCondition)
	}
	return b.String()
}

var _ = testing.T{}
