#!/usr/bin/env bash
# The end-to-end tests (e2e/*.test.js, node's test runner) against the real server: the playground
# in headless Chromium and the graphql-http GraphQL-over-HTTP audit. Installs e2e/node_modules with
# `npm ci` from the committed package-lock.json only when the lock file changed (scripts/npm-ci.sh;
# the Chromium build inside @sparticuz/chromium unpacks once, on first use), builds the server into
# .local/bin, and runs the tests with a DynamoDB Local of their own. Each test file starts the
# server on a port the kernel picks, with a table of its own.
#
#   scripts/e2e.sh                         every test file
#   scripts/e2e.sh e2e/playground.test.js  one
#   E2E_TOKEN=...                          bearer token for the requests (see e2e/harness.js)
#   E2E_OUTPUT_DIR=...                     screenshots (default e2e/output, gitignored)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/npm-ci.sh e2e

mkdir -p .local/bin
go build -o .local/bin/server ./cmd/server
export E2E_SERVER_BIN="$root/.local/bin/server"

# Identity: the servers the tests start verify HS256 tokens with a secret of this run, and the
# tests send an admin token minted with it (unless E2E_TOKEN is given).
if [[ -z "${AUTH_HS256_SECRET:-}" ]]; then
  AUTH_HS256_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '\n/+=' | head -c 48)
  export AUTH_HS256_SECRET
fi
if [[ -z "${E2E_TOKEN:-}" ]]; then
  E2E_TOKEN=$(go run ./cmd/token -role admin -sub e2e)
  export E2E_TOKEN
fi

files=("$@")
[[ ${#files[@]} -gt 0 ]] || files=(e2e/*.test.js)
exec scripts/with-dynamodb-local.sh node --test --test-reporter=spec "${files[@]}"
