package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"singletable/auth"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
)

// functionURLEvent is a request as a Lambda function URL delivers it (payload format 2.0).
func functionURLEvent(method, path, body string, base64Body bool, token string) []byte {
	if base64Body {
		body = base64.StdEncoding.EncodeToString([]byte(body))
	}
	event := map[string]any{
		"version":        "2.0",
		"routeKey":       "$default",
		"rawPath":        path,
		"rawQueryString": "",
		"headers": map[string]string{
			"content-type":      "application/json",
			"host":              "abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws",
			"user-agent":        "test",
			"x-forwarded-for":   "203.0.113.7",
			"x-forwarded-proto": "https",
		},
		"requestContext": map[string]any{
			"accountId":    "anonymous",
			"apiId":        "abcdefghijklmnopqrstuvwxyz012345",
			"domainName":   "abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws",
			"domainPrefix": "abcdefghijklmnopqrstuvwxyz012345",
			"http": map[string]string{
				"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7", "userAgent": "test",
			},
			"requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
			"routeKey":  "$default",
			"stage":     "$default",
			"time":      "23/Nov/2026:15:00:00 +0000",
			"timeEpoch": 1795446000000,
		},
		"body":            body,
		"isBase64Encoded": base64Body,
	}
	if token != "" {
		event["headers"].(map[string]string)["authorization"] = "Bearer " + token
	}
	b, _ := json.Marshal(event)
	return b
}

// invoke runs a raw event through the Lambda runtime's own handler wrapper (JSON in, JSON out).
func invoke(t *testing.T, h lambda.Handler, event []byte) events.LambdaFunctionURLResponse {
	t.Helper()
	out, err := h.Invoke(context.Background(), event)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	var resp events.LambdaFunctionURLResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %s: %v", out, err)
	}
	return resp
}

func TestFunctionURLInvocationsAnswerGraphQL(t *testing.T) {
	repo := storetest.New(t, repotest.SharedDatabase)
	if _, err := repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"DYNAMODB_TABLE":            repo.Table(),
		"AWS_REGION":                "us-east-1",
		"AWS_ENDPOINT_URL_DYNAMODB": repotest.Endpoint(t),
		"CURSOR_SECRET":             repotest.CursorSecret,
		"AUTH_HS256_SECRET":         testSecret,
	}
	token, err := auth.MintHS256([]byte(testSecret), auth.Claims{Subject: "lambda-test", Roles: []string{"admin"}}, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(context.Background(), func(k string) string { return vars[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	runtime := lambda.NewHandler(h.invoke)
	query := `{"query":"query Orgs { organizations(first: 3) { edges { node { name users(first: 2) { edges { node { name } } } } } } }"}`

	var calls []float64
	for i, base64Body := range []bool{false, true} {
		resp := invoke(t, runtime, functionURLEvent("POST", "/query", query, base64Body, token))
		if resp.StatusCode != 200 {
			t.Fatalf("invocation %d: status %d: %s", i, resp.StatusCode, resp.Body)
		}
		var body struct {
			Data struct {
				Organizations struct {
					Edges []struct {
						Node struct{ Name string }
					}
				}
			}
			Errors     []any
			Extensions struct {
				DynamoDB struct{ TotalCalls float64 }
			}
		}
		if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
			t.Fatalf("body %s: %v", resp.Body, err)
		}
		if len(body.Errors) > 0 || len(body.Data.Organizations.Edges) != 3 || body.Data.Organizations.Edges[0].Node.Name == "" {
			t.Fatalf("invocation %d: %s", i, resp.Body)
		}
		if !strings.HasPrefix(resp.Headers["Content-Type"], "application/") {
			t.Errorf("content type %q", resp.Headers["Content-Type"])
		}
		calls = append(calls, body.Extensions.DynamoDB.TotalCalls)
	}
	// Each invocation has loaders of its own: the second reads everything again instead of
	// finding the first one's results in a shared cache.
	if calls[0] == 0 || calls[1] != calls[0] {
		t.Errorf("DynamoDB calls per invocation %v: want the same, non-zero", calls)
	}

	if resp := invoke(t, runtime, functionURLEvent("GET", "/healthz", "", false, "")); resp.StatusCode != 200 || !strings.Contains(resp.Body, "ok") {
		t.Errorf("GET /healthz: %d %q", resp.StatusCode, resp.Body)
	}
	// Without a token the function answers as the server does: 401, UNAUTHENTICATED, no data.
	if resp := invoke(t, runtime, functionURLEvent("POST", "/query", query, false, "")); resp.StatusCode != 401 || !strings.Contains(resp.Body, "UNAUTHENTICATED") || strings.Contains(resp.Body, `"data"`) {
		t.Errorf("no token: %d %s", resp.StatusCode, resp.Body)
	}
	if resp := invoke(t, runtime, functionURLEvent("POST", "/query", `{"query": "{ organizations(first: 1) { nope } }"}`, false, token)); !strings.Contains(resp.Body, "GRAPHQL_VALIDATION_FAILED") {
		t.Errorf("a bad document is not answered with a GraphQL error: %d %s", resp.StatusCode, resp.Body)
	}
}

const testSecret = "lambda-test-secret-of-at-least-32-bytes"

func TestLambdaConfigIsValidated(t *testing.T) {
	// The server's rules (cmd/internal/settings), named by the variable alone: Lambda has no flags.
	for env, value := range map[string]string{
		"ORDER_STATUS_SHARDS":       "bad",
		"CURSOR_SECRET":             "bad",
		"DATALOADER_WAIT":           "bad",
		"LOG_LEVEL":                 "bad",
		"DYNAMODB_TABLE":            "a",
		"AWS_ENDPOINT_URL_DYNAMODB": "localhost:8000",
		"AUTH_DEV_TOKENS":           "true",
	} {
		_, err := parseConfig(func(k string) string {
			return map[string]string{env: value, "AUTH_HS256_SECRET": testSecret}[k]
		})
		if err == nil || !strings.Contains(err.Error(), env) || strings.Contains(err.Error(), " / -") {
			t.Errorf("%s=%s: err = %v", env, value, err)
		}
	}
	// No verifier is refused, as on the server; a secret is enough.
	if _, err := parseConfig(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "no token verifier") {
		t.Fatalf("no verifier: err = %v", err)
	}
	c, err := parseConfig(func(k string) string { return map[string]string{"AUTH_HS256_SECRET": testSecret}[k] })
	if err != nil || c.Table != "app" || !c.Introspection {
		t.Fatalf("defaults: %+v %v", c, err)
	}
}
