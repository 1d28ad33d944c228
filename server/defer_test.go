package server_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// deferredUsers is the operation: the organizations at once, their users and tickets in a
// deferred fragment; wholeUsers the same without @defer.
const (
	deferredUsers = `query($d: Boolean = true) { organizations(first: 3) { edges { node { id name
		... @defer(label: "users", if: $d) { users(first: 4) { edges { node { id email tickets(first: 5) { edges { node { id title } } } } } } } } } } }`
	wholeUsers = `{ organizations(first: 3) { edges { node { id name
		... { users(first: 4) { edges { node { id email tickets(first: 5) { edges { node { id title } } } } } } } } } } }`
)

// checkDeferredUsers checks an incremental answer of deferredUsers against whole, the answer of
// wholeUsers: a first payload with hasNext and the organizations without a users key (absent,
// not null), then one incremental result per organization labelled "users" at its path, the
// last payload with hasNext false; together the same data, and the same calls, as whole.
func checkDeferredUsers(t *testing.T, r deferredResponse, whole gqlResponse) {
	t.Helper()
	if len(r.payloads) < 2 {
		t.Fatalf("%s: %d payload(s), want the initial one and the deferred ones: %+v", r.contentType, len(r.payloads), r.payloads)
	}
	first := r.payloads[0]
	if first.HasNext == nil || !*first.HasNext {
		t.Fatalf("first payload: hasNext %v, want true", first.HasNext)
	}
	if strings.Contains(string(first.Data), `"users"`) {
		t.Fatalf("first payload holds the deferred field (it must be absent): %s", first.Data)
	}
	if last := r.payloads[len(r.payloads)-1]; last.HasNext == nil || *last.HasNext {
		t.Fatalf("last payload: hasNext %v, want false", last.HasNext)
	}
	paths := map[string]bool{}
	for _, inc := range r.increments() {
		if inc.Label == nil || *inc.Label != "users" || !strings.Contains(string(inc.Data), `"users"`) {
			t.Fatalf("incremental result %+v: want label users and the users", inc)
		}
		paths[pathKey(inc.Path)] = true
	}
	for i := range 3 {
		if p := "organizations.edges." + string(rune('0'+i)) + ".node"; !paths[p] {
			t.Fatalf("no incremental result at %s: %v", p, paths)
		}
	}
	sameData(t, "the payloads together", r.merged(t), whole.Data)
	if got := r.calls(); !maps.Equal(got, whole.Extensions.DynamoDB.Calls) {
		t.Fatalf("the payloads' calls together %v, want the undeferred operation's %v", got, whole.Extensions.DynamoDB.Calls)
	}
}

// Over multipart/mixed (Apollo Client's Accept), a deferred fragment comes as an incremental
// payload after the first, whose data leaves it out; all payloads together are the undeferred
// answer, in the same calls.
func TestDeferOverMultipartMixed(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedSaaS(3, 4, 5)
	whole := a.ok(wholeUsers, nil, nil)
	// Apollo Client's Accept, and the playground's (GraphiQL's fetcher).
	for _, accept := range []string{acceptMultipart, "application/json, multipart/mixed"} {
		r := a.deferred(accept, deferredUsers, nil)
		if !strings.HasPrefix(r.contentType, "multipart/mixed") || r.status != 200 {
			t.Fatalf("%s: status %d, Content-Type %q, want 200 multipart/mixed", accept, r.status, r.contentType)
		}
		checkDeferredUsers(t, r, whole)
	}
}

// Over Server-Sent Events (graphql-sse), a deferred query is served as over multipart/mixed, one
// event per payload.
func TestDeferOverServerSentEvents(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedSaaS(3, 4, 5)
	whole := a.ok(wholeUsers, nil, nil)
	r := a.deferred(acceptSSE, deferredUsers, nil)
	if !strings.HasPrefix(r.contentType, "text/event-stream") || r.status != 200 {
		t.Fatalf("status %d, Content-Type %q, want 200 text/event-stream", r.status, r.contentType)
	}
	checkDeferredUsers(t, r, whole)
}

// Without an incremental Accept, and with @defer(if: false) over any transport, the answer is the
// whole result in one payload, without hasNext, in the undeferred operation's calls.
func TestDeferAnswersWholeWithoutIncrementalAccept(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedSaaS(3, 4, 5)
	whole := a.ok(wholeUsers, nil, nil)
	for _, c := range []struct {
		name, accept string
		vars         map[string]any
	}{
		{"application/json", "application/json", nil},
		{"graphql-response+json", "application/graphql-response+json", nil},
		{"if: false over multipart/mixed", acceptMultipart, map[string]any{"d": false}},
		{"if: false over Server-Sent Events", acceptSSE, map[string]any{"d": false}},
	} {
		r := a.deferred(c.accept, deferredUsers, c.vars)
		if len(r.payloads) != 1 || r.payloads[0].HasNext != nil {
			t.Fatalf("%s: %d payloads (first hasNext %v), want one whole payload", c.name, len(r.payloads), r.payloads[0].HasNext)
		}
		if len(r.payloads[0].Errors) > 0 {
			t.Fatalf("%s: errors %+v", c.name, r.payloads[0].Errors)
		}
		var got any
		if err := json.Unmarshal(r.payloads[0].Data, &got); err != nil {
			t.Fatal(err)
		}
		sameData(t, c.name, got, whole.Data)
		if calls := r.calls(); !maps.Equal(calls, whole.Extensions.DynamoDB.Calls) {
			t.Fatalf("%s: calls %v, want %v", c.name, calls, whole.Extensions.DynamoDB.Calls)
		}
	}
}

// The capacity budget is settled once, as the last payload is written: the payloads before it
// say what they cost but not what is left, and the last says what is left of the budget once the
// whole operation is debited.
func TestDeferSettlesTheBudgetOnce(t *testing.T) {
	a := newAPI(t, server.Config{CapacityBudgetRCU: 1000})
	a.seedSaaS(3, 4, 5)
	r := a.deferred(acceptMultipart, deferredUsers, nil)
	if len(r.payloads) < 2 {
		t.Fatalf("%d payloads", len(r.payloads))
	}
	entries := []*costEntry{r.payloads[0].Extensions.DynamoDB}
	for _, p := range r.payloads[1:] {
		for _, inc := range p.Incremental {
			entries = append(entries, inc.Extensions.DynamoDB)
		}
	}
	for i, e := range entries {
		if e == nil {
			t.Fatalf("payload %d has no cost entry", i)
		}
		if last := i == len(entries)-1; (e.BudgetRemaining != nil) != last {
			t.Fatalf("payload %d of %d: budgetRemaining %v (only the last settles the budget)", i, len(entries), e.BudgetRemaining)
		}
	}
}

// A field the principal may not read answers the same error at the same path inside a deferred
// fragment as outside one, and none of its data, over either transport: the null of the non-null
// field stops at the fragment (its payload's data is null, as the incremental-delivery spec
// propagates it) where it would reach the product without @defer. Whatever payload it comes in
// (a field read from its object comes with it, before its fragment's payload), every error of the
// payloads is one of the undeferred answer, and no payload holds what the caller may not read.
func TestDeferredFieldsAreGuardedAsUndeferred(t *testing.T) {
	f := newCatalogFixture(t, 5)
	vars := map[string]any{"p": f.product}
	for _, c := range []struct{ deferred, forbidden string }{
		{`query($p: ID!) { product(id: $p) { name ... @defer(label: "stock") { inventory { quantity } } } }`, `"quantity"`},
		{`query($p: ID!) { product(id: $p) { name ... @defer(label: "total") { totalInventory inventory { quantity } } } }`, `"totalInventory"`},
		{`query($p: ID!) { product(id: $p) { name ... @defer(label: "outer") { sku ... @defer(label: "inner") { inventory { warehouse { name } } } } } }`, `"warehouse"`},
	} {
		whole := f.buyer.query(undeferText(c.deferred), vars)
		if len(whole.Errors) == 0 {
			t.Fatalf("%s without @defer: no error: %s", c.deferred, whole.raw)
		}
		for _, accept := range []string{acceptMultipart, acceptSSE} {
			r := f.buyer.deferred(accept, c.deferred, vars)
			var errs []gqlError
			for _, p := range append([]payload{r.payloads[0]}, r.increments()...) {
				errs = append(errs, p.Errors...)
				if strings.Contains(string(p.Data), c.forbidden) {
					t.Fatalf("%s over %s: a payload holds what the buyer may not read: %s", c.deferred, accept, p.Data)
				}
			}
			// A deferred fragment whose object became null (a forbidden field read with the
			// object made it so) is never run, so its errors are not raised: then the errors are
			// fewer, each still the undeferred one.
			if len(errs) == 0 || len(errs) != len(whole.Errors) && !strings.Contains(string(r.payloads[0].Data), `"product":null`) {
				t.Fatalf("%s over %s: errors %+v, undeferred %+v%s", c.deferred, accept, errs, whole.Errors, r.text())
			}
			for _, got := range errs {
				if !slices.ContainsFunc(whole.Errors, func(want gqlError) bool {
					return got.Extensions["code"] == want.Extensions["code"] && pathString(got.Path) == pathString(want.Path) && got.Message == want.Message
				}) {
					t.Fatalf("%s over %s: deferred error %+v, undeferred %+v", c.deferred, accept, got, whole.Errors)
				}
			}
		}
	}
}

// Explain plans a deferred operation as the same operation without @defer (the same calls and
// price: the loaders batch the deferred reads with the others of their level) and says which
// payload each step belongs to: the deferred fragment's label, none for the initial payload. The
// payloads' calls together stay within the plan.
func TestExplainSaysEachStepsPayload(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedSaaS(3, 4, 5)
	deferred, whole := a.explain(deferredUsers, nil), a.explain(wholeUsers, nil)
	if deferred.plan == nil || whole.plan == nil {
		t.Fatalf("no plan: %+v / %+v", deferred.raw, whole.raw)
	}
	if !maps.Equal(deferred.plan.MaxCalls, whole.plan.MaxCalls) || deferred.plan.Complexity != whole.plan.Complexity {
		t.Fatalf("deferred plan %v (complexity %d), undeferred %v (%d)", deferred.plan.MaxCalls, deferred.plan.Complexity, whole.plan.MaxCalls, whole.plan.Complexity)
	}
	labelled := 0
	for _, s := range deferred.plan.Steps {
		inFragment := strings.HasPrefix(s.Path, "organizations.edges.node.users")
		switch {
		case inFragment && (s.Payload == nil || *s.Payload != "users"):
			t.Fatalf("step %s: payload %v, want users", s.Path, s.Payload)
		case !inFragment && s.Payload != nil:
			t.Fatalf("step %s of the initial payload: payload %q", s.Path, *s.Payload)
		}
		if inFragment {
			labelled++
		}
	}
	if labelled == 0 {
		t.Fatalf("no step of the deferred fragment: %s", planText(deferred.plan))
	}
	for _, s := range whole.plan.Steps {
		if s.Payload != nil {
			t.Fatalf("step %s of an undeferred operation has payload %q", s.Path, *s.Payload)
		}
	}
	// The playground asks for an explain with its multipart Accept: one payload, the plan.
	ex := a.deferredBody("application/json, multipart/mixed", map[string]any{"query": deferredUsers, "extensions": map[string]any{"explain": true}})
	if len(ex.payloads) != 1 || ex.payloads[0].Data != nil || len(ex.payloads[0].Errors) > 0 || ex.payloads[0].HasNext != nil {
		t.Fatalf("an explain over multipart/mixed: %d payloads %+v", len(ex.payloads), ex.payloads)
	}
	r := a.deferred(acceptMultipart, deferredUsers, nil)
	last := r.payloads[len(r.payloads)-1]
	rounds := 0
	if len(last.Incremental) > 0 {
		rounds = last.Incremental[len(last.Incremental)-1].Extensions.DynamoDB.Rounds
	}
	if over := within(deferred.plan, r.calls(), rounds); over != "" {
		t.Fatalf("the payloads' calls exceed the plan: %s", over)
	}
}

// slowCalls is a DynamoDB transport wrapper that, once on, counts the calls made (those whose
// request was still live when they were sent) and makes each take a while (or less, if its
// request is cancelled first): long enough for a client to leave between payloads.
type slowCalls struct {
	on    atomic.Bool
	calls atomic.Int64
}

func (s *slowCalls) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if s.on.Load() {
			if r.Context().Err() != nil {
				return nil, r.Context().Err()
			}
			s.calls.Add(1)
			select {
			case <-time.After(200 * time.Millisecond):
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
		}
		return next.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A client that goes away after the first payload stops the deferred reads: the users' tickets,
// which only the deferred payload would carry, are never read, no call is made once its request
// ended, and nothing of the operation keeps running: no goroutine of the executor, of a deferred
// fragment or of the payloads is left (gqlgen#2771: a deferred fragment's sender gives up on a
// cancelled context while the executor waits for it for good). Over multipart/mixed and over
// Server-Sent Events, a few times each: one deferred fragment (one organization) is the case
// where the executor's wait was left behind half of the time.
func TestDeferClientGoneStopsTheReads(t *testing.T) {
	slow := &slowCalls{}
	repo := storetest.New(t, func(c *repository.Config) { c.WrapTransport = repotest.Chain(slow.wrap, c.WrapTransport) })
	logs := &logBuffer{}
	a := newAPIOn(t, repo, server.Config{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	a.seedSaaS(1, 4, 5)
	slow.on.Store(true)
	a.ok(wholeUsers, nil, nil)
	whole := slow.calls.Swap(0)
	ended := logs.count(`"msg":"request"`)
	for i := range 8 {
		accept := []string{acceptMultipart, acceptSSE}[i%2]
		a.leaveAfterFirstPayload(accept, deferredUsers)
		ended++
		for deadline := time.Now().Add(20 * time.Second); logs.count(`"msg":"request"`) < ended; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the deferred request never ended", accept)
			}
		}
		gone := slow.calls.Swap(0)
		if gone >= whole {
			t.Fatalf("%s: %d calls once the client left after the first payload, the whole operation makes %d", accept, gone, whole)
		}
		time.Sleep(500 * time.Millisecond) // two slow calls' time: the reads of the fragment, had they gone on
		if after := slow.calls.Swap(0); after > 0 {
			t.Fatalf("%s: %d calls made after the request ended", accept, after)
		}
	}
	var left string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = operationGoroutines(); left == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines of deferred operations left running once their clients left:\n%s", left)
		}
	}
}

// leaveAfterFirstPayload sends query with accept, reads the first payload, and goes away.
func (a *api) leaveAfterFirstPayload(accept, query string) {
	a.t.Helper()
	o := a.open(accept, query)
	defer o.resp.Body.Close()
	if first := o.next(); !strings.Contains(string(first), `"hasNext":true`) {
		a.t.Fatalf("%s: first payload %s", accept, first)
	}
}

// operationGoroutines is the stacks of the goroutines that run an operation (gqlgen's executor
// and field sets, the generated code, the resolvers, the loaders, the payloads), "" when none is.
func operationGoroutines() string {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	var out []string
	for _, g := range strings.Split(buf.String(), "\n\n") {
		for _, mark := range []string{"singletable/graph.", "singletable/resolvers.", "singletable/loaders.", "server.(*payloads)", "gqlgen/graphql.(*FieldSet)", "gqlgen/graphql.(*ExecutionContextState"} {
			if strings.Contains(g, mark) {
				out = append(out, g)
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// The limits judge the whole operation, deferred fragments included, before the first payload:
// the complexity limit refuses an operation whose deferred part is over it (its first payload
// alone is far under), with no payload and no call; trusted documents serve a manifest's deferred
// document in payloads and refuse any other text before it is parsed.
func TestDeferIsJudgedWhole(t *testing.T) {
	limited := newAPI(t, server.Config{ComplexityLimit: 200})
	r := limited.deferred(acceptMultipart, deferredUsers, nil)
	if len(r.payloads) != 1 || len(r.payloads[0].Errors) != 1 || r.payloads[0].Errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" || (r.payloads[0].Data != nil && string(r.payloads[0].Data) != "null") {
		t.Fatalf("over the complexity limit: status %d, payloads %+v", r.status, r.payloads)
	}
	if e := r.payloads[0].Extensions.DynamoDB; e != nil && e.TotalCalls != 0 {
		t.Fatalf("over the complexity limit: %d calls", e.TotalCalls)
	}
	raw, _ := json.Marshal(map[string]string{"users-md5": deferredUsers})
	docs, err := server.ParseTrustedDocuments(raw)
	if err != nil {
		t.Fatal(err)
	}
	a := newAPI(t, server.Config{TrustedDocuments: docs, TrustedDocumentsMode: server.TrustedEnforce})
	a.seedSaaS(3, 4, 5)
	if r := a.deferredBody(acceptMultipart, map[string]any{"doc_id": "users-md5"}); len(r.payloads) < 2 || r.payloads[0].HasNext == nil {
		t.Fatalf("a trusted deferred document: status %d, payloads %+v", r.status, r.payloads)
	}
	other := strings.Replace(deferredUsers, `label: "users"`, `label: "others"`, 1)
	r = a.deferred(acceptMultipart, other, nil)
	if r.status != http.StatusBadRequest || len(r.payloads) != 1 || len(r.payloads[0].Errors) != 1 || r.payloads[0].Errors[0].Extensions["code"] != server.CodeTrustedDocumentRequired {
		t.Fatalf("an untrusted deferred document: status %d, payloads %+v", r.status, r.payloads)
	}
}

// Root fields are never deferred (gqlgen resolves them all for the first payload): a root field
// inside a deferred fragment stays in the first payload, its null (an unknown ID) included, and
// explain gives its step no payload.
func TestDeferKeepsRootFieldsInTheFirstPayload(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedSaaS(1, 1, 0)
	query := `query($gone: ID!) { ... @defer(label: "root") { node(id: $gone) { id } }
		organizations(first: 1) { edges { node { name ... @defer(label: "users") { users(first: 1) { edges { node { id } } } } } } } }`
	vars := map[string]any{"gone": model.Organizations.IDOf("01J00000000000000000000000")}
	r := a.deferred(acceptMultipart, query, vars)
	if len(r.payloads) < 2 || !strings.Contains(string(r.payloads[0].Data), `"node":null`) || strings.Contains(string(r.payloads[0].Data), `"users"`) {
		t.Fatalf("payloads %+v", r.payloads)
	}
	if !strings.Contains(string(r.increments()[0].Data), `"users"`) {
		t.Fatalf("incremental %s", r.increments()[0].Data)
	}
	for _, s := range a.explain(query, vars).plan.Steps {
		if s.Path == "node" && s.Payload != nil {
			t.Fatalf("the root field's step has payload %q", *s.Payload)
		}
	}
}
