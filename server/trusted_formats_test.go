package server_test

import (
	"net/http"
	"strings"
	"testing"

	"singletable/server"
)

// The manifests of the two client toolchains load and serve, each named the way its client
// names a document. testdata/trusted holds what the tools wrote (make trusted-manifests, from
// scripts/trusted-manifests/): relay-compiler's persistConfig output (an object of MD5 id → text,
// the text as the compiler prints it, ids added) and @apollo/generate-persisted-query-manifest's
// (SHA-256 ids, bodies with __typename added).
func TestClientManifestsLoadAndServe(t *testing.T) {
	relay, err := server.LoadTrustedDocuments("testdata/trusted/relay-persisted_queries.json")
	if err != nil {
		t.Fatal(err)
	}
	apollo, err := server.LoadTrustedDocuments("testdata/trusted/apollo-persisted-query-manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if relay.Len() != 2 || apollo.Len() != 1 {
		t.Fatalf("loaded %d and %d documents", relay.Len(), apollo.Len())
	}

	// Relay sends doc_id, the compiler's id (or documentId, its hash).
	r := newAPI(t, server.Config{TrustedDocuments: relay, TrustedDocumentsMode: server.TrustedEnforce})
	created := r.send(map[string]any{"doc_id": "2bd2012308e053f84ec17d394eb3fae3", "variables": map[string]any{"input": map[string]any{"name": "From Relay"}}}, nil)
	if created.status != http.StatusOK || len(created.Errors) > 0 || !strings.Contains(string(created.Data), "From Relay") {
		t.Fatalf("Relay mutation: %d %s", created.status, created.raw)
	}
	listed := r.send(map[string]any{"doc_id": "a53cf3df45d4f7f216ba605266dc14cc"}, nil)
	if !strings.Contains(string(listed.Data), "From Relay") {
		t.Fatalf("Relay query: %d %s", listed.status, listed.raw)
	}

	// Apollo Client's persisted-query link sends the hash alone.
	a := newAPIOn(t, r.repo, server.Config{TrustedDocuments: apollo, TrustedDocumentsMode: server.TrustedEnforce})
	got := sendPersisted(t, a, "", "479050f25b2ebcc63b052176de4443ec813fbbc0c5b8f3933a8073fab315d6b7")
	if got.status != http.StatusOK || !strings.Contains(string(got.Data), `"__typename":"Organization"`) {
		t.Fatalf("Apollo query: %d %s", got.status, got.raw)
	}
}
