package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/apperr"
)

// documentsCheckedKey marks a request context whose document withTrustedDocuments decided on
// (and reported): the front door's gqlgen extension (frontdoor.go) then decides once more on what
// gqlgen itself decoded, without reporting it twice, so that a body gqlgen reads differently from
// this middleware cannot carry an untrusted document past it.
type documentsCheckedKey struct{}

// withTrustedDocuments applies the trusted-documents policy to every HTTP request (POST, GET,
// and Server-Sent Events, which POST too) before gqlgen parses anything: a request naming a
// document by documentId or doc_id gets the document's text in place of the id; one the policy
// refuses gets 400 with the policy's code and no DynamoDB call; a GET naming a mutation (or a
// subscription) by id gets 405, as GraphQL over HTTP asks. It runs after the body was read.
func withTrustedDocuments(cfg Config, next http.Handler) http.Handler {
	policy := newTrustPolicy(cfg)
	if !policy.active() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions || isWebSocketUpgrade(r) {
			next.ServeHTTP(w, r)
			return
		}
		req, ok, err := readDocumentRequest(r)
		var v documentVerdict
		switch {
		case err != nil:
			writeCodedError(w, r, http.StatusBadRequest, string(apperr.CodeBadUserInput), err.Error())
			return
		case ok:
			v = policy.decide(req, bypasses(r.Context(), r.Header))
		case policy.mode == TrustedEnforce && !bypasses(r.Context(), r.Header):
			// A body this middleware cannot read (members of unexpected types) might still be
			// one gqlgen reads, more leniently: under enforce it is refused, not passed on.
			v = policy.unreadable()
		default:
			// Off or log: the extension judges, and reports, what gqlgen makes of it.
			next.ServeHTTP(w, r)
			return
		}
		ctx := context.WithValue(r.Context(), documentsCheckedKey{}, true)
		policy.report(ctx, v, req)
		if v.code != "" {
			writeCodedError(w, r, http.StatusBadRequest, v.code, v.message)
			return
		}
		if op, ok := v.doc.operation(req.operationName); ok && r.Method == http.MethodGet && op != ast.Query {
			w.Header().Set("Allow", http.MethodPost)
			writeCodedError(w, r, http.StatusMethodNotAllowed, "", "Only queries may be sent with GET; send this operation with POST.")
			return
		}
		r = r.Clone(ctx)
		if v.text != "" && v.text != req.query {
			rewriteDocument(r, v.text)
		}
		next.ServeHTTP(w, r)
	})
}

// httpParams is a GraphQL-over-HTTP request decoded as gqlgen's GET and POST transports decode
// it (graphql.RawParams, JSON numbers kept), with the ids of trusted documents that only HTTP
// carries (documentId, Relay's doc_id) beside it.
type httpParams struct {
	graphql.RawParams
	DocumentID string `json:"documentId"`
	DocID      string `json:"doc_id"`
}

// readDocumentRequest reads the document members of a GET's parameters or a JSON POST's body
// (which withRequestBody holds in memory) and hands them to documentRequestOf, the front door's
// one reader. ok is false for anything gqlgen cannot decode either; err refuses an ambiguous one.
func readDocumentRequest(r *http.Request) (req documentRequest, ok bool, err error) {
	var p httpParams
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		p.Query, p.OperationName, p.DocumentID, p.DocID = q.Get("query"), q.Get("operationName"), q.Get("documentId"), q.Get("doc_id")
		if ext := q.Get("extensions"); ext != "" && decodeJSON([]byte(ext), &p.Extensions) != nil {
			return documentRequest{}, false, nil
		}
	case http.MethodPost:
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "application/json" || r.Body == nil {
			return documentRequest{}, false, nil
		}
		data, rerr := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(data))
		if rerr != nil || decodeJSON(data, &p) != nil {
			return documentRequest{}, false, nil
		}
	default:
		return documentRequest{}, false, nil
	}
	id := p.DocumentID
	if id == "" {
		id = p.DocID
	}
	req, err = documentRequestOf(&p.RawParams, id)
	return req, true, err
}

// decodeJSON decodes as gqlgen's transports do: numbers stay json.Number.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// rewriteDocument puts text in the place of the id (and any hash) that named it: the query
// parameter of a GET, the "query" member of a POST's body, with documentId and doc_id removed.
func rewriteDocument(r *http.Request, text string) {
	if r.Method == http.MethodGet {
		q := r.URL.Query()
		q.Set("query", text)
		q.Del("documentId")
		q.Del("doc_id")
		r.URL.RawQuery = q.Encode()
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	if json.Unmarshal(data, &body) == nil {
		body["query"], _ = json.Marshal(text)
		delete(body, "documentId")
		delete(body, "doc_id")
		data, _ = json.Marshal(body)
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
}
