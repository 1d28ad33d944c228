package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"singletable/repository"
	"singletable/repository/store"
	"singletable/server"
)

// BenchmarkHostileDocuments times the refusal of each hostile document through the whole HTTP
// handler with the default bounds; each must answer in well under 50 ms. The repository points
// at a closed port: a refusal that reached DynamoDB would fail the benchmark.
//
//	go test ./server -run '^$' -bench HostileDocuments
func BenchmarkHostileDocuments(b *testing.B) {
	repo, err := store.New(b.Context(), repository.Config{Table: "unused", Region: "us-east-1", Endpoint: "http://127.0.0.1:1"})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(server.New(repo, server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Auth: testAuth(b)}))
	defer ts.Close()
	docs := []struct{ name, query string }{
		{"doubling-fragments-20", server.DoublingFragments(20)},
		{"doubling-fragments-26", server.DoublingFragments(26)},
		{"doubling-fragments-40", server.DoublingFragments(40)},
		{"10000-typename", "{ " + strings.Repeat("__typename ", 10_000) + "}"},
		{"5000-ids-in-a-list", "{ organizations { edges { node { " + strings.Repeat("id ", 5000) + "} } } }"},
		{"depth-60", "{ node(id: \"x\") { " + strings.Repeat("... on Employee { manager { ", 59) + "name" + strings.Repeat(" } }", 59) + " } }"},
		{"70KB-of-comments", "{ __typename }\n#" + strings.Repeat("x", 70_000)},
		{"600-aliases", "{ " + aliasList(600) + "}"},
	}
	for _, d := range docs {
		body, _ := json.Marshal(map[string]string{"query": d.query})
		b.Run(d.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := post(b, ts.URL+"/query", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var out struct {
					Errors []struct {
						Extensions map[string]any `json:"extensions"`
					} `json:"errors"`
					Extensions struct {
						DynamoDB repository.Usage `json:"dynamodb"`
					} `json:"extensions"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				refusedNow := err == nil && len(out.Errors) == 1 && out.Errors[0].Extensions["code"] == "GRAPHQL_VALIDATION_FAILED"
				if !refusedNow || out.Extensions.DynamoDB.TotalCalls != 0 {
					b.Fatalf("%s: %v %+v", d.name, err, out)
				}
			}
		})
	}
}

func aliasList(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "f%d: __typename ", i)
	}
	return b.String()
}
