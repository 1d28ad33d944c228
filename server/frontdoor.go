package server

import (
	"context"
	"errors"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-viper/mapstructure/v2"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
)

// The front door: every operation, whichever transport brought it (GET, POST, Server-Sent
// Events, a WebSocket's subscribe), reaches gqlgen as one graphql.RawParams, and frontDoor is the
// operation parameter mutator that runs first on it. It reads what names the document with
// documentRequestOf, the one reader of those members, and decides with the trusted-documents
// policy; the persisted-query cache gqlgen then consults reads the very members this reader
// read (an ambiguous spelling never reaches it), and keys them by the principal of the token
// (principalKey), on every transport. The HTTP middleware (withTrustedDocuments) answers the same
// verdict earlier, with a status code, from the same decoding: it never judges a request this
// extension would judge otherwise.
type frontDoor struct{ policy trustPolicy }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = frontDoor{}

func (frontDoor) ExtensionName() string                   { return "FrontDoor" }
func (frontDoor) Validate(graphql.ExecutableSchema) error { return nil }

func (f frontDoor) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	req, err := documentRequestOf(raw, "")
	if err != nil {
		return codedError(string(apperr.CodeBadUserInput), err.Error())
	}
	if !f.policy.active() {
		return nil
	}
	v := f.policy.decide(req, bypasses(ctx, raw.Headers))
	if checked, _ := ctx.Value(documentsCheckedKey{}).(bool); !checked {
		f.policy.report(ctx, v, req)
	}
	if v.code != "" {
		return codedError(v.code, v.message)
	}
	if v.text != "" {
		raw.Query = v.text
	}
	return nil
}

func codedError(code, message string) *gqlerror.Error {
	return &gqlerror.Error{Message: message, Extensions: map[string]any{"code": code}}
}

// persistedQueryMember is the member of extensions automatic persisted queries use.
const persistedQueryMember = "persistedQuery"

// documentRequestOf is what a request, as gqlgen decoded it, says about its document; id is the
// documentId or doc_id member only GraphQL over HTTP carries ("" elsewhere). The hash is read
// as gqlgen's persisted-query extension reads it (mapstructure: a member's name in any case),
// and a request that spells persistedQuery or one of its members twice (in two cases) is
// refused: which one gqlgen would take follows a map's order.
func documentRequestOf(raw *graphql.RawParams, id string) (documentRequest, error) {
	req := documentRequest{query: raw.Query, operationName: raw.OperationName, id: id}
	pq, err := soleMember(raw.Extensions, persistedQueryMember)
	if err != nil || pq == nil {
		return req, err
	}
	if members, ok := pq.(map[string]any); ok {
		for _, name := range []string{"sha256Hash", "version"} {
			if _, err := soleMember(members, name); err != nil {
				return req, err
			}
		}
	}
	if pq, ok := raw.Extensions[persistedQueryMember]; ok {
		var ext struct {
			Sha256 string `mapstructure:"sha256Hash"`
		}
		_ = mapstructure.Decode(pq, &ext) // a malformed member is gqlgen's to refuse
		req.apqHash = ext.Sha256
		return req, nil
	}
	// Another case of persistedQuery, which gqlgen's extension does not read: neither do we,
	// beyond refusing it under enforce (a hash-only request then has no document).
	return req, nil
}

// soleMember is m's member named name in any case, or an error when m has it twice.
func soleMember(m map[string]any, name string) (any, error) {
	var found any
	n := 0
	for k, v := range m {
		if strings.EqualFold(k, name) {
			found, n = v, n+1
		}
	}
	if n > 1 {
		return nil, errors.New("The request spells " + name + " more than once (in two cases): send it once.")
	}
	return found, nil
}
