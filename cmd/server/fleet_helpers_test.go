package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"singletable/auth"
)

// instance is one server of a fleet test, run as main runs it.
type instance struct {
	url         string
	logs        *syncBuffer
	drain, kill context.CancelFunc
	done        chan error
}

// startInstance runs a server; kill stops it at once (the second signal), leaving its lease to
// expire as a crash would.
func startInstance(t *testing.T, args []string, getenv func(string) string) *instance {
	t.Helper()
	forceCtx, force := context.WithCancel(context.Background())
	ctx, drain := context.WithCancel(withForce(context.Background(), forceCtx))
	in := &instance{logs: &syncBuffer{}, drain: drain, done: make(chan error, 1)}
	in.kill = func() { drain(); force() }
	t.Cleanup(in.kill)
	addrCh := make(chan string, 1)
	go func() { in.done <- run(ctx, args, getenv, in.logs, func(a string) { addrCh <- a }) }()
	select {
	case a := <-addrCh:
		_, port, _ := net.SplitHostPort(a)
		in.url = "http://" + net.JoinHostPort("127.0.0.1", port)
	case err := <-in.done:
		t.Fatalf("run: %v\n%s", err, in.logs.String())
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start")
	}
	return in
}

// token mints an admin token for subject.
func token(t *testing.T, subject string) string {
	t.Helper()
	tok, err := auth.MintHS256([]byte(testSecret), auth.Claims{Subject: subject, Roles: []string{"admin"}}, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// gqlResult is a decoded /query answer.
type gqlResult struct {
	Status int
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func (r gqlResult) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// gql POSTs a request body to an instance as subject.
func gql(t *testing.T, in *instance, subject string, body map[string]any) gqlResult {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := postAs(t, token(t, subject), in.url+"/query", string(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r gqlResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("answer %d is not JSON: %s", resp.StatusCode, raw)
	}
	r.Status = resp.StatusCode
	return r
}

// subscriber is an orderChanged subscription over Server-Sent Events: the ids of the orders it
// was told were created, each as many times as it was told, and the error it ended with.
type subscriber struct {
	mu      sync.Mutex
	created map[string]int
	ended   chan string // the code of the error it ended with ("" for none)
}

const orderChanges = `subscription { orderChanged { kind order { id } } }`

// subscribe opens an orderChanged subscription on in; it returns the code of a refusal instead
// when the instance answers with an error at once.
func subscribe(t *testing.T, in *instance, subject string) (*subscriber, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": orderChanges})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, in.url+"/query", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token(t, subject))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &subscriber{created: map[string]int{}, ended: make(chan string, 1)}
	first := make(chan string, 1)
	go s.read(resp.Body, first)
	select {
	case code := <-first:
		return s, code
	case <-time.After(300 * time.Millisecond): // open, and no event yet
		return s, ""
	}
}

// read follows the stream: each next event counts, an error event ends it with its code.
func (s *subscriber) read(body io.ReadCloser, first chan<- string) {
	defer body.Close()
	sc := bufio.NewScanner(body)
	ended := ""
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || strings.TrimSpace(data) == "" {
			continue
		}
		var e gqlResult
		if json.Unmarshal([]byte(data), &e) != nil {
			continue
		}
		if code := e.code(); code != "" {
			ended = code
			select {
			case first <- code:
			default:
			}
			continue
		}
		var ev struct {
			Kind  string `json:"kind"`
			Order struct {
				ID string `json:"id"`
			} `json:"order"`
		}
		if json.Unmarshal(e.Data["orderChanged"], &ev) == nil && ev.Kind == "CREATED" {
			s.mu.Lock()
			s.created[ev.Order.ID]++
			s.mu.Unlock()
		}
	}
	s.ended <- ended
}

// count is how many times s was told order id was created.
func (s *subscriber) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created[id]
}

// waitFor waits until every subscriber was told of every order, within d.
func waitFor(t *testing.T, subs []*subscriber, ids []string, d time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		all := true
		for _, s := range subs {
			for _, id := range ids {
				all = all && s.count(id) > 0
			}
		}
		if all {
			return true
		}
	}
	return false
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
