package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// A deferred query over Server-Sent Events is an operation like one over HTTP: it holds a slot of
// the concurrency cap from its first payload to its last (another request meanwhile is turned away,
// and gets the slot once the last payload is written), it is turned away itself (UNAVAILABLE,
// Retry-After) while another operation holds the slot, and it counts against its principal's
// request rate.
func TestDeferOverServerSentEventsHoldsAConcurrencySlot(t *testing.T) {
	slow := &slowCalls{}
	repo := storetest.New(t, func(c *repository.Config) { c.WrapTransport = repotest.Chain(slow.wrap, c.WrapTransport) })
	a := newAPIOn(t, repo, server.Config{MaxConcurrentOperations: 1})
	a.seedSaaS(1, 4, 5)
	slow.on.Store(true)
	for _, accept := range []string{acceptSSE, acceptMultipart} {
		o := a.open(accept, deferredUsers)
		if first := o.next(); !strings.Contains(string(first), `"hasNext":true`) {
			t.Fatalf("%s: first payload %s", accept, first)
		}
		if r := a.query(`{ __typename }`, nil); r.status != http.StatusServiceUnavailable || r.code(t) != "UNAVAILABLE" {
			t.Fatalf("%s: a request between the payloads of a deferred query: %d %s", accept, r.status, r.raw)
		}
		other := a.open(acceptSSE, deferredUsers)
		refused := other.next()
		if !strings.Contains(string(refused), `"UNAVAILABLE"`) || other.resp.Header.Get("Retry-After") != "1" {
			t.Fatalf("%s: a deferred query over Server-Sent Events between the payloads of another: %s (Retry-After %q)", accept, refused, other.resp.Header.Get("Retry-After"))
		}
		last := []byte(nil)
		for p := o.next(); p != nil; p = o.next() {
			last = p
		}
		if !strings.Contains(string(last), `"hasNext":false`) {
			t.Fatalf("%s: last payload %s", accept, last)
		}
		// The multipart reader stops at the closing delimiter; the body ends (the handler, which
		// holds the slot, has returned) only after it.
		_, _ = io.Copy(io.Discard, o.resp.Body)
		o.resp.Body.Close()
		a.ok(`{ __typename }`, nil, nil) // the slot is free again
	}

	limited := newAPI(t, server.Config{RateLimitRPS: 0.001, RateLimitBurst: 1})
	limited.seedSaaS(1, 1, 1)
	if first := limited.deferred(acceptSSE, deferredUsers, nil); len(first.payloads) < 2 {
		t.Fatalf("the first deferred query: %+v", first.payloads)
	}
	if r := limited.deferred(acceptSSE, deferredUsers, nil); r.status != http.StatusTooManyRequests || len(r.payloads) != 1 || len(r.payloads[0].Errors) != 1 || r.payloads[0].Errors[0].Extensions["code"] != "RATE_LIMITED" {
		t.Fatalf("a deferred query over Server-Sent Events past the principal's rate: %d %+v", r.status, r.payloads)
	}
}
