package repotest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// Throttler is a fault injector for the SDK's HTTP transport (repository.Config.WrapTransport):
// while on, every Nth DynamoDB call is answered, without reaching DynamoDB, the way DynamoDB
// throttles: HTTP 400 with a ProvisionedThroughputExceededException body. The call did not
// happen, so nothing was read or written; whether the request then succeeds is up to the
// retryer.
type Throttler struct {
	every     atomic.Int64
	calls     atomic.Int64
	throttled atomic.Int64
}

// Throttle turns the injector on, failing every nth call (n = 1 fails them all), or off (n = 0).
func (t *Throttler) Throttle(n int) { t.every.Store(int64(n)) }

// Calls is the number of calls seen while on; Throttled how many of them were failed.
func (t *Throttler) Calls() int64     { return t.calls.Load() }
func (t *Throttler) Throttled() int64 { return t.throttled.Load() }

// Wrap is the repository.Config.WrapTransport function.
func (t *Throttler) Wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n := t.every.Load()
		if n <= 0 || t.calls.Add(1)%n != 0 {
			return next.RoundTrip(r)
		}
		t.throttled.Add(1)
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
			_ = r.Body.Close()
		}
		const body = `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",` +
			`"message":"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."}`
		h := http.Header{}
		h.Set("Content-Type", "application/x-amz-json-1.0")
		h.Set("X-Amzn-Requestid", "THROTTLED0000000000000000000000000000000000000000000")
		return &http.Response{
			Status: "400 Bad Request", StatusCode: http.StatusBadRequest,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: h, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r,
		}, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Outage is a fault injector for the SDK's HTTP transport (repository.Config.WrapTransport) that
// takes DynamoDB away: while on, every call fails as when its endpoint cannot be reached (a
// refused connection), without reaching it.
type Outage struct {
	on     atomic.Bool
	failed atomic.Int64
}

// Set turns the outage on or off.
func (o *Outage) Set(on bool) { o.on.Store(on) }

// Failed is the number of calls failed so far.
func (o *Outage) Failed() int64 { return o.failed.Load() }

// Wrap is the repository.Config.WrapTransport function.
func (o *Outage) Wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if !o.on.Load() {
			return next.RoundTrip(r)
		}
		o.failed.Add(1)
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
			_ = r.Body.Close()
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused (injected outage)")}
	})
}

// ShardCloser is a fault injector for the SDK's HTTP transport (repository.Config.WrapTransport)
// that makes DynamoDB Streams describe every shard as closed (an EndingSequenceNumber), as a
// reader that takes over finds a shard that rolled over during the handover: DynamoDB Local never
// closes its one shard. The shard is still read as it really is (open: a reader of it reads on).
type ShardCloser struct{ on atomic.Bool }

// Set turns the injector on or off.
func (c *ShardCloser) Set(on bool) { c.on.Store(on) }

// Wrap is the repository.Config.WrapTransport function.
func (c *ShardCloser) Wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		res, err := next.RoundTrip(r)
		if err != nil || !c.on.Load() || !strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".DescribeStream") || res.StatusCode != http.StatusOK {
			return res, err
		}
		body, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			return nil, err
		}
		var out map[string]any
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		desc, _ := out["StreamDescription"].(map[string]any)
		shards, _ := desc["Shards"].([]any)
		for _, s := range shards {
			if rng, ok := s.(map[string]any)["SequenceNumberRange"].(map[string]any); ok {
				rng["EndingSequenceNumber"] = strings.Repeat("9", 40)
			}
		}
		if body, err = json.Marshal(out); err != nil {
			return nil, err
		}
		res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		res.Header.Del("X-Amz-Crc32") // the body changed
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return res, nil
	})
}
