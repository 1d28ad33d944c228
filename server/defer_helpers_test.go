package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"singletable/repository"
)

// Accept headers of the incremental transports: Apollo Client's, and graphql-sse's.
const (
	acceptMultipart = "multipart/mixed;deferSpec=20220824, application/json"
	acceptSSE       = "text/event-stream"
)

// costEntry is a payload's extensions.dynamodb.
type costEntry struct {
	repository.Usage
	BudgetRemaining *float64 `json:"budgetRemaining"`
}

type costExtensions struct {
	DynamoDB *costEntry `json:"dynamodb"`
}

// payload is one payload of an incremental response: the first {data, hasNext}; over
// multipart/mixed the later ones {incremental: [...], hasNext}, over Server-Sent Events {data,
// path, label, hasNext}.
type payload struct {
	Data        json.RawMessage `json:"data"`
	Errors      []gqlError      `json:"errors"`
	HasNext     *bool           `json:"hasNext"`
	Path        []any           `json:"path"`
	Label       *string         `json:"label"`
	Incremental []payload       `json:"incremental"`
	Extensions  costExtensions  `json:"extensions"`
}

// deferredResponse is what an incremental transport answered.
type deferredResponse struct {
	status      int
	contentType string
	payloads    []payload
}

// deferred POSTs an operation with the given Accept and reads every payload of the answer.
func (a *api) deferred(accept, query string, vars map[string]any) deferredResponse {
	a.t.Helper()
	return a.deferredBody(accept, map[string]any{"query": query, "variables": vars})
}

// deferredBody POSTs a request body of any shape (a trusted document's id, say) with the given
// Accept and reads every payload of the answer.
func (a *api) deferredBody(accept string, request map[string]any) deferredResponse {
	a.t.Helper()
	o := a.openBody(accept, request)
	defer o.resp.Body.Close()
	out := deferredResponse{status: o.resp.StatusCode, contentType: o.resp.Header.Get("Content-Type")}
	for raw := o.next(); raw != nil; raw = o.next() {
		var p payload
		if err := json.Unmarshal(raw, &p); err != nil {
			a.t.Fatalf("payload %d is not JSON: %s", len(out.payloads), raw)
		}
		out.payloads = append(out.payloads, p)
	}
	return out
}

// openPayloads is an incremental answer being read payload by payload.
type openPayloads struct {
	resp *http.Response
	next func() []byte // the next payload, nil after the last
}

// open sends query with accept and returns its answer unread.
func (a *api) open(accept, query string) *openPayloads {
	a.t.Helper()
	return a.openBody(accept, map[string]any{"query": query})
}

// openBody POSTs a request body of any shape with the given Accept and returns its answer unread.
func (a *api) openBody(accept string, request map[string]any) *openPayloads {
	a.t.Helper()
	body, _ := json.Marshal(request)
	req, err := http.NewRequest(http.MethodPost, a.url+"/query", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	a.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { resp.Body.Close() })
	return &openPayloads{resp: resp, next: payloadsOf(resp.Header.Get("Content-Type"), resp.Body)}
}

// payloadsOf reads a body's payloads one by one: the next, nil after the last. A multipart/mixed
// body's parts, a text/event-stream body's events; any other body whole.
func payloadsOf(contentType string, body io.Reader) func() []byte {
	media, params, _ := mime.ParseMediaType(contentType)
	switch media {
	case "multipart/mixed":
		mr := multipart.NewReader(body, params["boundary"])
		return func() []byte {
			for {
				part, err := mr.NextPart()
				if err != nil {
					return nil
				}
				if b, _ := io.ReadAll(part); len(bytes.TrimSpace(b)) > 0 {
					return b
				}
			}
		}
	case "text/event-stream":
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		return func() []byte {
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					return []byte(data)
				}
			}
			return nil
		}
	}
	read := false
	return func() []byte {
		if read {
			return nil
		}
		read = true
		b, _ := io.ReadAll(body)
		return b
	}
}

// increments is the incremental results of every payload after the first, whichever transport
// carried them.
func (r deferredResponse) increments() []payload {
	var out []payload
	for _, p := range r.payloads[1:] {
		if p.Incremental != nil {
			out = append(out, p.Incremental...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// calls adds up the calls of every payload's cost entry.
func (r deferredResponse) calls() map[string]int {
	out := map[string]int{}
	add := func(e *costEntry) {
		if e != nil {
			for op, n := range e.Calls {
				out[op] += n
			}
		}
	}
	add(r.payloads[0].Extensions.DynamoDB)
	for _, p := range r.payloads[1:] {
		add(p.Extensions.DynamoDB)
		for _, inc := range p.Incremental {
			add(inc.Extensions.DynamoDB)
		}
	}
	return out
}

// merged is the whole data: the first payload's with every incremental result's fields set at
// its path. It fails when an incremental result comes before its path was delivered, or delivers
// a key that its path already holds.
func (r deferredResponse) merged(t *testing.T) any {
	t.Helper()
	var whole any
	if err := json.Unmarshal(r.payloads[0].Data, &whole); err != nil {
		t.Fatal(err)
	}
	for _, inc := range r.increments() {
		var fields map[string]any
		if err := json.Unmarshal(inc.Data, &fields); err != nil {
			t.Fatalf("incremental data %s: %v", inc.Data, err)
		}
		obj, ok := valueAt(whole, inc.Path).(map[string]any)
		if !ok {
			t.Fatalf("incremental result at %s (label %v) before its path was delivered: %s", pathKey(inc.Path), inc.Label, r.text())
		}
		for k, v := range fields {
			if _, twice := obj[k]; twice {
				t.Fatalf("%s.%s delivered twice: %s", pathKey(inc.Path), k, r.text())
			}
			obj[k] = v
		}
	}
	return whole
}

// valueAt is the value at path in v (decoded JSON), nil when there is none.
func valueAt(v any, path []any) any {
	for _, el := range path {
		switch el := el.(type) {
		case string:
			obj, _ := v.(map[string]any)
			v = obj[el]
		case float64:
			list, _ := v.([]any)
			if int(el) >= len(list) {
				return nil
			}
			v = list[int(el)]
		}
	}
	return v
}

// sameData fails unless got and want (JSON) are the same data.
func sameData(t *testing.T, what string, got any, want json.RawMessage) {
	t.Helper()
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Fatalf("%s: data\n%s\nwant\n%s", what, g, want)
	}
}

// pathKey is a payload's path as text, e.g. organizations.edges.0.node.
func pathKey(p []any) string {
	var b strings.Builder
	for i, el := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		j, _ := json.Marshal(el)
		b.WriteString(strings.Trim(string(j), `"`))
	}
	return b.String()
}

// count is how many log lines hold s.
func (b *logBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// text is every payload, one a line.
func (r deferredResponse) text() string {
	var b strings.Builder
	for _, p := range r.payloads {
		j, _ := json.Marshal(p)
		b.WriteString("\n")
		b.Write(j)
	}
	return b.String()
}
