package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/repository"
)

// Incremental delivery (@defer) travels by two transports, both gqlgen's, which write the
// payloads on the wire:
//   - multipart/mixed (transport.MultipartMixed): Apollo Client's Accept: multipart/mixed;
//     deferSpec=20220824, a first part {data, hasNext: true}, then parts {incremental: [{data,
//     path, label}], hasNext}, the last with hasNext false. A plain HTTP request in every other
//     way: the rate limit, the concurrency cap, the time limit and the budget bound it.
//   - Server-Sent Events (transport.SSE, graphql-sse's distinct connections, the subscriptions'
//     transport): one next event per payload, the first {data, hasNext: true}, then {data, path,
//     label, hasNext} (the form Relay's network layer takes), then complete. A query over it gets
//     the operation's time limit here (a stream has none of its own).
//
// Both run the operation through deferredExecutor, which shapes what gqlgen's executor produces
// into what the spec asks: deferred fields absent, not null, before their payload
// (deferredFields); each payload's own cost (payloadCost); no payload and no read once the client
// is gone. Any other request runs @defer as no defer (wholeResult), and @defer(if: false) is no
// defer anywhere (gqlgen's field collection).
type incremental struct {
	graphql.Transport
	schema  *ast.Schema
	apart   map[string]bool // resolvedApart
	timeout time.Duration
	log     *slog.Logger
}

// Do serves the request with the wrapped transport and deferredExecutor. An explain runs nothing
// to deliver in payloads: over multipart/mixed it gets the one JSON answer (no data entry) that
// POST gives it, whatever its Accept (the playground asks for multipart/mixed for everything).
func (t incremental) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	if _, multipart := t.Transport.(transport.MultipartMixed); multipart && explainBody(r) {
		transport.POST{}.Do(w, r, exec)
		return
	}
	t.Transport.Do(w, r, deferredExecutor{GraphExecutor: exec, schema: t.schema, apart: t.apart, timeout: t.timeout, log: t.log})
}

// explainBody reports whether r's JSON body asks for an explain ("extensions": {"explain":
// true}, as explainRequested reads it), leaving the body to be read again.
func explainBody(r *http.Request) bool {
	if r.Body == nil {
		return false
	}
	raw, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if err != nil {
		return false
	}
	var req struct {
		Extensions map[string]any `json:"extensions"`
	}
	_ = json.Unmarshal(raw, &req)
	explain, _ := req.Extensions["explain"].(bool)
	return explain
}

// multipartMixed is the multipart/mixed transport; it goes before POST, which would take its
// requests.
func multipartMixed(cfg Config, schema *ast.Schema) graphql.Transport {
	return incremental{Transport: transport.MultipartMixed{Boundary: "graphql"}, schema: schema, apart: resolvedApart(schema), timeout: cfg.OperationTimeout, log: cfg.Logger}
}

// serverSentEvents is the Server-Sent Events transport of subscriptions and deferred queries.
func serverSentEvents(cfg Config, schema *ast.Schema) graphql.Transport {
	return incremental{Transport: transport.SSE{KeepAlivePingInterval: sseKeepAlive}, schema: schema, apart: resolvedApart(schema), timeout: cfg.OperationTimeout, log: cfg.Logger}
}

type incrementalKey struct{}

// incrementalRequest reports whether ctx is a request's by an incremental transport: its
// operation may be delivered in payloads.
func incrementalRequest(ctx context.Context) bool {
	ok, _ := ctx.Value(incrementalKey{}).(bool)
	return ok
}

// deferredExecutor is gqlgen's executor seen through an incremental transport.
type deferredExecutor struct {
	graphql.GraphExecutor
	schema  *ast.Schema
	apart   map[string]bool // resolvedApart
	timeout time.Duration
	log     *slog.Logger
}

// CreateOperationContext marks the request incremental for the extensions (wholeResult,
// streamOperations) that judge the operation, and rewrites its deferred fragments for gqlgen's
// executor (deferredFragments; an explain runs nothing and keeps them as they are). A query over
// Server-Sent Events then takes a slot
// of the concurrency cap, as every plain HTTP request does (takeStreamSlot): refused, it gets
// UNAVAILABLE as its one event, with Retry-After.
func (e deferredExecutor) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	oc, errs := e.GraphExecutor.CreateOperationContext(context.WithValue(ctx, incrementalKey{}, true), params)
	if len(errs) > 0 || oc == nil || oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return oc, errs
	}
	if !explainRequested(oc) && !deferredFragments(oc) {
		err := gqlerror.Errorf("the operation has more than %d deferred fragments, its fragment spreads with @defer inlined", maxDeferredFragments)
		errcode.Set(err, string(apperr.CodeBadUserInput))
		return oc, gqlerror.List{err}
	}
	if !takeStreamSlot(ctx) {
		err := gqlerror.Errorf(overCapacityMessage)
		errcode.Set(err, string(apperr.CodeUnavailable))
		return oc, gqlerror.List{err}
	}
	return oc, errs
}

// DispatchOperation runs a query or mutation in payloads (payloads.next); a subscription is the
// subscriptions' business (subscriptionEvents) and passes as it is.
func (e deferredExecutor) DispatchOperation(ctx context.Context, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	ctx = context.WithValue(ctx, incrementalKey{}, true)
	if oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return e.GraphExecutor.DispatchOperation(ctx, oc)
	}
	cancel := context.CancelFunc(func() {})
	if ri := requestInfoFrom(ctx); ri != nil && ri.stream && e.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
	}
	// gqlgen's executor runs on a context nothing cancels, its DynamoDB calls end with the
	// request (produce says why).
	request := ctx
	ctx, cost := withPayloadCost(repository.WithCallsUntil(context.WithoutCancel(ctx), request))
	ctx, types := withObjectTypes(ctx)
	next, ctx := e.GraphExecutor.DispatchOperation(ctx, oc)
	fields := deferredFields{oc: oc, schema: e.schema, apart: e.apart, types: types}
	p := &payloads{next: next, fields: fields, cancel: cancel, log: e.log, request: request, cost: cost}
	return p.respond, ctx
}

// payloads is one operation's sequence of payloads.
type payloads struct {
	next    graphql.ResponseHandler
	fields  deferredFields
	cancel  context.CancelFunc
	log     *slog.Logger
	request context.Context // done when the client went away or the time limit passed
	cost    *payloadCost
	out     chan *graphql.Response // what the next call of next answers (produce)
	asked   bool                   // next was called and has not answered yet
	started bool                   // the first payload was produced
	done    bool                   // the last was
	// produced: gqlgen produced its last payload (hasNext false); the ones held back remain.
	produced  bool
	delivered deliveredShape
	// held are incremental results whose path is not delivered yet, ready the ones it now is, to
	// be written in this order.
	held, ready []*graphql.Response
	// budgetLeft is budgetRemaining, taken off a payload gqlgen produced last but written before
	// others held back, for the one written last.
	budgetLeft *float64
}

// respond is the next payload, nil after the last. A payload of an operation without deferred
// fragments (hasNext unset) passes as it is.
func (p *payloads) respond(ctx context.Context) *graphql.Response {
	if p.done {
		return nil
	}
	for len(p.ready) == 0 {
		var resp *graphql.Response
		if !p.produced {
			resp = p.produce(ctx)
		}
		if resp == nil || resp.HasNext == nil {
			p.started, p.done = true, true
			p.cancel()
			return resp
		}
		p.produced = !*resp.HasNext
		p.place(ctx, resp)
		if p.produced {
			// What is still held belongs under a fragment whose data was null: its path will
			// never be delivered, and nothing may be written there.
			p.held = nil
		}
	}
	resp := p.ready[0]
	p.ready = p.ready[1:]
	return p.finish(resp)
}

// place strips a payload gqlgen produced of its deferred fields and queues it, or holds it back
// until its path is delivered (deliveredShape).
func (p *payloads) place(ctx context.Context, resp *graphql.Response) {
	var err error
	var data any
	if !p.started {
		resp.Data, data, err = p.fields.initial(resp.Data)
	} else {
		resp.Data, data, err = p.fields.incremental(resp.Data, resp.Path)
		resp.Label = restoreLabel(resp.Label)
	}
	if err != nil {
		p.log.ErrorContext(ctx, "deferred fields left in a payload", "error", err.Error())
	}
	if !p.started {
		p.started = true
		p.delivered.add(data)
		p.ready = append(p.ready, resp)
		return
	}
	if !p.delivered.deliverable(resp, data) {
		p.held = append(p.held, resp)
		return
	}
	p.ready = append(p.ready, resp)
	// What it delivered may be the path of results held back, and theirs of others.
	for moved := true; moved; {
		moved = false
		for i, h := range p.held {
			if _, hd, _ := p.fields.strip(h.Data, nil, "", nil, true); p.delivered.deliverable(h, hd) {
				p.ready = append(p.ready, h)
				p.held = append(p.held[:i], p.held[i+1:]...)
				moved = true
				break
			}
		}
	}
}

// finish sets resp's hasNext from what remains to be written, and ends the sequence after the
// last.
func (p *payloads) finish(resp *graphql.Response) *graphql.Response {
	last := p.produced && len(p.ready) == 0 && len(p.held) == 0
	hasNext := !last
	resp.HasNext = &hasNext
	p.budgetLeft = moveBudget(resp, last, p.budgetLeft)
	if last {
		p.done = true
		p.cancel()
	}
	return resp
}

// produce asks gqlgen for the next payload. A later payload waits for a deferred fragment, on a
// channel that does not watch the request: gqlgen's executor receives from it unconditionally,
// while the fragment's sender gives up once its context is done, which would leave the receiver
// blocked for good (gqlgen#2771) if every sender gave up. So the executor runs on a context that
// nothing cancels, its senders never give up, and the request's end reaches its DynamoDB calls
// instead (repository.WithCallsUntil): a call not made yet fails at once, one in flight is
// cancelled. A later payload is awaited here with the request: once the client is gone (or the
// time limit passed) nothing more is written, and drain receives what the fragments, their reads
// failing at once, still send, until the executor is done.
func (p *payloads) produce(ctx context.Context) *graphql.Response {
	if !p.started {
		return p.next(ctx)
	}
	if p.out == nil {
		p.out = make(chan *graphql.Response, 1)
	}
	if !p.asked {
		p.asked = true
		go func() { p.out <- p.next(ctx) }()
	}
	select {
	case resp := <-p.out:
		p.asked = false
		return resp
	case <-p.request.Done():
		p.drain(ctx)
		return nil
	}
}

// drain receives the payloads nobody will read, in the background, until the executor's last.
// They are not accounted: the request was settled as cut short (withAdmission).
func (p *payloads) drain(ctx context.Context) {
	p.cost.stop()
	go func() {
		resp := <-p.out
		for resp != nil && resp.HasNext != nil && *resp.HasNext {
			resp = p.next(ctx)
		}
	}()
}
