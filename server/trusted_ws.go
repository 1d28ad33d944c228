package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// trustedOperations applies the trusted-documents policy inside gqlgen, before parsing, to the
// operations withTrustedDocuments did not see: those of a WebSocket, which arrive as messages
// after the upgrade. There a document is named by its text or by automatic persisted queries'
// extensions.persistedQuery (graphql-transport-ws has no documentId), and a refusal is the
// subscription's error message with the policy's code. It runs ahead of the persisted-query
// cache, so that a manifest document's hash resolves without the cache.
type trustedOperations struct{ policy trustPolicy }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = trustedOperations{}

func (trustedOperations) ExtensionName() string                   { return "TrustedDocuments" }
func (trustedOperations) Validate(graphql.ExecutableSchema) error { return nil }
func (t trustedOperations) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	req := documentRequest{query: raw.Query, operationName: raw.OperationName, apqHash: persistedQueryHash(raw.Extensions)}
	v := t.policy.decide(req, bypasses(ctx, raw.Headers))
	if checked, _ := ctx.Value(documentsCheckedKey{}).(bool); !checked {
		t.policy.report(ctx, v, req)
	}
	if v.code != "" {
		return &gqlerror.Error{Message: v.message, Extensions: map[string]any{"code": v.code}}
	}
	if v.text != "" {
		raw.Query = v.text
	}
	return nil
}

// persistedQueryHash is extensions.persistedQuery.sha256Hash, or "".
func persistedQueryHash(ext map[string]any) string {
	pq, _ := ext["persistedQuery"].(map[string]any)
	h, _ := pq["sha256Hash"].(string)
	return h
}
