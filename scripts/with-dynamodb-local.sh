#!/usr/bin/env bash
# Runs a command against a DynamoDB Local of its own: installs it if missing, starts it in memory
# on a free port, exports AWS_ENDPOINT_URL_DYNAMODB (and dummy credentials, which DynamoDB Local
# accepts), runs the command, and stops DynamoDB Local however the command ends. It runs without
# -sharedDb: each access key has a database of its own (see dynamodb-local.sh), and the tests give
# each table one; everything configured from the environment shares the key set here.
# It starts a Redis of its own as well (scripts/redis.sh), for the tests of a fleet of instances,
# and exports its address as TEST_REDIS_URL: a variable of the tests only (the server reads
# REDIS_URL), so that whatever else runs under this script stays a single instance.
#
#   scripts/with-dynamodb-local.sh go test -race ./...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state="$here/../.local"
mkdir -p "$state"
"$here/dynamodb-local.sh" install
"$here/redis.sh" install
port=$("$here/dynamodb-local.sh" freeport)
pidfile="$state/ddb-$port.pid"
redis_pidfile=""
trap '"$here/dynamodb-local.sh" stop "$pidfile"; [[ -z "$redis_pidfile" ]] || "$here/redis.sh" stop "$redis_pidfile"' EXIT
"$here/dynamodb-local.sh" start "$port" "$pidfile" isolated
# Chosen once DynamoDB Local listens, so that the two never get the same port.
redis_port=$("$here/dynamodb-local.sh" freeport)
redis_pidfile="$state/redis-$redis_port.pid"
"$here/redis.sh" start "$redis_port" "$redis_pidfile"
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$port"
export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION="${AWS_REGION:-us-east-1}"
export TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
"$@"
