// Command lambda serves the GraphQL API on AWS Lambda, behind a function URL or an API Gateway
// HTTP API (payload format 2.0): the same http.Handler as cmd/server (server.New), adapted by
// aws-lambda-go-api-proxy. Each invocation is one HTTP request, so it gets its own dataloaders and
// DynamoDB meter exactly as on the server; the DynamoDB client and its connections are made once
// per execution environment and reused by the invocations it serves.
//
// Build it as `bootstrap` for the provided.al2023 runtime (`make build` writes
// bin/lambda/bootstrap) and deploy it with SAM (deploy/lambda.yaml). Configuration comes from the
// same environment variables as the server (docs/operations.md).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	h, err := newHandler(context.Background(), os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lambda:", err)
		os.Exit(1)
	}
	lambda.Start(h.invoke)
}
