package server

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// Outside a request (no meter) the entry is still there, empty; a nil response stays nil; other
// extensions are kept.
func TestCostExtensionWithoutAMeter(t *testing.T) {
	ext := costExtension{}
	resp := ext.InterceptResponse(context.Background(), func(context.Context) *graphql.Response {
		return &graphql.Response{Extensions: map[string]any{"other": 1}}
	})
	if e, ok := resp.Extensions["dynamodb"].(dynamoDBEntry); !ok || e.TotalCalls != 0 || e.BudgetRemaining != nil || resp.Extensions["other"] != 1 {
		t.Errorf("extensions = %#v", resp.Extensions)
	}
	if got := ext.InterceptResponse(context.Background(), func(context.Context) *graphql.Response { return nil }); got != nil {
		t.Errorf("nil response became %#v", got)
	}
}
