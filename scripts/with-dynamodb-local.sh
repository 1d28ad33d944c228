#!/usr/bin/env bash
# Runs a command against a DynamoDB Local of its own: installs it if missing, starts it in memory
# on a free port, exports AWS_ENDPOINT_URL_DYNAMODB (and dummy credentials, which DynamoDB Local
# accepts), runs the command, and stops DynamoDB Local however the command ends. It runs without
# -sharedDb: each access key has a database of its own (see dynamodb-local.sh), and the tests give
# each table one; everything configured from the environment shares the key set here.
#
#   scripts/with-dynamodb-local.sh go test -race ./...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state="$here/../.local"
mkdir -p "$state"
"$here/dynamodb-local.sh" install
port=$("$here/dynamodb-local.sh" freeport)
pidfile="$state/ddb-$port.pid"
trap '"$here/dynamodb-local.sh" stop "$pidfile"' EXIT
"$here/dynamodb-local.sh" start "$port" "$pidfile" isolated
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$port"
export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION="${AWS_REGION:-us-east-1}"
"$@"
