package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/apperr"
	"singletable/auth"
)

// The extensions.code values of a document refused by the trusted-documents check (HTTP 400).
// PERSISTED_QUERY_NOT_FOUND is also the code automatic persisted queries answer a hash they do
// not hold with, so a client handles both the same way.
const (
	CodePersistedQueryNotFound  = "PERSISTED_QUERY_NOT_FOUND"
	CodeTrustedDocumentRequired = "TRUSTED_DOCUMENT_REQUIRED"
)

// TrustedDocumentsBypassHeader, sent as "true" by a caller whose token has the admin role, runs a
// document outside the manifest while TrustedEnforce is on: for an operator's ad-hoc queries.
// It is logged and counted as a bypass. For anyone else the header changes nothing.
const TrustedDocumentsBypassHeader = "X-Trusted-Documents-Bypass"

// The outcomes Config.OnUntrustedDocument and the metric count a document outside the manifest
// by: served (TrustedLog), bypassed (an admin's bypass under TrustedEnforce) or refused.
const (
	UntrustedServed   = "served"
	UntrustedBypassed = "bypassed"
	UntrustedRefused  = "refused"
)

// documentRequest is what a request says about its document, whatever the transport.
type documentRequest struct {
	query         string
	operationName string
	id            string // documentId (GraphQL over HTTP) or doc_id (Relay)
	apqHash       string // extensions.persistedQuery.sha256Hash (automatic persisted queries)
}

// documentID is how a log line names the request's document: the id or hash it sent, else the
// hash of its text.
func (req documentRequest) documentID() string {
	switch {
	case req.id != "":
		return req.id
	case req.apqHash != "" && req.query == "":
		return "sha256:" + req.apqHash
	}
	return documentHash(req.query)
}

// documentVerdict is what to do with a request's document.
type documentVerdict struct {
	// text replaces the request's query when not empty: the trusted document it named.
	text string
	// doc is the manifest's document the request runs, nil for one outside the manifest.
	doc *trustedDocument
	// untrusted: the document is outside the manifest and served (logged and counted).
	untrusted string
	// code and message refuse the request (HTTP 400) when code is not empty.
	code, message string
}

// trustPolicy decides, before a document is parsed, whether it runs (see TrustedDocumentsMode).
type trustPolicy struct {
	docs     *TrustedDocuments
	mode     TrustedDocumentsMode
	log      *slog.Logger
	onReport func(outcome string)
}

func newTrustPolicy(cfg Config) trustPolicy {
	mode := cfg.TrustedDocumentsMode
	if mode == "" {
		mode = TrustedOff
	}
	return trustPolicy{docs: cfg.TrustedDocuments, mode: mode, log: cfg.Logger, onReport: cfg.OnUntrustedDocument}
}

// active says whether the policy has anything to do: a manifest to resolve ids from, or a mode
// that looks at free-text documents.
func (p trustPolicy) active() bool { return p.docs != nil || p.mode != TrustedOff }

// decide resolves a request's document. An id (documentId, doc_id) must be in the manifest in
// every mode. An automatic-persisted-query hash of a manifest document resolves to it; another
// hash is left to the persisted-query cache, except under enforce, where only the manifest
// counts. A free-text document that is byte for byte a manifest document is trusted.
func (p trustPolicy) decide(req documentRequest, bypass bool) documentVerdict {
	if req.id != "" {
		d := p.docs.lookup(req.id)
		switch {
		case d == nil:
			return documentVerdict{untrusted: UntrustedRefused, code: CodePersistedQueryNotFound, message: "No trusted document has this id."}
		case req.query != "" && req.query != d.text:
			return documentVerdict{code: string(apperr.CodeBadUserInput), message: "Send either a document or its id, not both."}
		}
		return documentVerdict{text: d.text, doc: d}
	}
	if req.apqHash != "" {
		// Automatic persisted queries name a document by its hash in lower-case hex, and gqlgen
		// compares it so: an upper-case hash is not one of the manifest's.
		if d := p.docs.lookup("sha256:" + req.apqHash); d != nil && req.apqHash == strings.ToLower(req.apqHash) && (req.query == "" || req.query == d.text) {
			return documentVerdict{text: d.text, doc: d}
		}
		if req.query == "" {
			if p.mode == TrustedEnforce && !bypass {
				return documentVerdict{untrusted: UntrustedRefused, code: CodePersistedQueryNotFound, message: "No trusted document has this hash."}
			}
			return documentVerdict{}
		}
	}
	if req.query == "" {
		return documentVerdict{}
	}
	if p.docs.trusts(req.query) {
		return documentVerdict{doc: p.docs.lookup(documentHash(req.query))}
	}
	switch {
	case p.mode == TrustedEnforce && bypass:
		return documentVerdict{untrusted: UntrustedBypassed}
	case p.mode == TrustedEnforce:
		return p.unreadable()
	case p.mode == TrustedLog:
		return documentVerdict{untrusted: UntrustedServed}
	}
	return documentVerdict{}
}

// unreadable is the verdict under enforce on a request whose document members cannot be read.
func (p trustPolicy) unreadable() documentVerdict {
	return documentVerdict{untrusted: UntrustedRefused, code: CodeTrustedDocumentRequired,
		message: "This server runs trusted documents only: send the documentId of an operation your client was built with."}
}

// report logs and counts a document outside the manifest: its hash and operation name, never
// its text (which may be large, and is the client's).
func (p trustPolicy) report(ctx context.Context, v documentVerdict, req documentRequest) {
	if v.untrusted == "" {
		return
	}
	if p.onReport != nil {
		p.onReport(v.untrusted)
	}
	reqID := ""
	if ri := requestInfoFrom(ctx); ri != nil {
		reqID = ri.id
	}
	p.log.LogAttrs(ctx, slog.LevelWarn, "document outside the trusted documents", slog.String("outcome", v.untrusted),
		slog.String("requestId", reqID), slog.String("operationName", req.operationName), slog.String("documentId", req.documentID()))
}

// bypasses says whether the caller of ctx may and asks to run an untrusted document.
func bypasses(ctx context.Context, h http.Header) bool {
	p, ok := auth.FromContext(ctx)
	return ok && p.Admin() && strings.EqualFold(strings.TrimSpace(h.Get(TrustedDocumentsBypassHeader)), "true")
}

// operation is the kind of the operation a request selects from the document (ok false when
// the name selects none, which validation then reports).
func (d *trustedDocument) operation(name string) (ast.Operation, bool) {
	if d == nil {
		return "", false
	}
	op, ok := d.operations[name]
	return op, ok
}
