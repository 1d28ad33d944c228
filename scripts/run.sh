#!/usr/bin/env bash
# `make run`: the API on PORT (8080) over a DynamoDB Local of its own on DYNAMODB_LOCAL_PORT (8000),
# with the table created and the sample data loaded. With AWS_ENDPOINT_URL_DYNAMODB set, it uses
# that DynamoDB instead and starts none.
#
# The server binary is built into .local/bin and exec'd: it takes this script's process, so Ctrl-C
# and SIGTERM (make forwards SIGTERM to its recipe) reach the server itself, which drains and exits;
# a second signal stops it at once. A watcher stops the DynamoDB Local this script started when
# the server is gone, so nothing is left running.
#
#   RUN_FLAGS       server flags (default "-create-table -seed -dev-tokens": the server prints
#                   tokens for sample principals and puts the admin's in the playground)
#   DYNAMODB_LOCAL_PORT, PORT and every variable the server reads (go run ./cmd/server -h)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ddb="$root/scripts/dynamodb-local.sh"
state="$root/.local"
mkdir -p "$state/bin"

RUN_FLAGS=${RUN_FLAGS:--create-table -seed -dev-tokens}
# Loopback only by default: with -dev-tokens the playground page carries an admin token.
export HOST=${HOST:-127.0.0.1}
DYNAMODB_LOCAL_PORT=${DYNAMODB_LOCAL_PORT:-8000}

# Dummy credentials and a region for a DynamoDB on this machine, which accepts any; only where the
# user set none, and never for a remote endpoint (real AWS needs real credentials).
local_defaults() {
  export AWS_REGION="${AWS_REGION:-${AWS_DEFAULT_REGION:-us-east-1}}"
  if [[ -z "${AWS_ACCESS_KEY_ID:-}" && -z "${AWS_PROFILE:-}" ]]; then
    export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local
  fi
}

is_local_endpoint() {
  local host
  host=$(sed -E 's#^[a-zA-Z]+://##; s#/.*$##; s#:[0-9]+$##; s#^\[(.*)\]$#\1#' <<<"$1")
  [[ "$host" == localhost || "$host" == 127.0.0.1 || "$host" == ::1 ]]
}

# ---------------------------------------------------------------------------------------------
# AUTH_HS256_SECRET: a fresh development secret for this run when none is set. The server signs
# and checks development tokens with it; it changes on every run, so old tokens stop working.
# ---------------------------------------------------------------------------------------------
if [[ -z "${AUTH_HS256_SECRET:-}" ]]; then
  AUTH_HS256_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '\n/+=' | head -c 48)
  export AUTH_HS256_SECRET
fi

pidfile=""
if [[ -n "${AWS_ENDPOINT_URL_DYNAMODB:-}" ]]; then
  echo "run: using the DynamoDB at $AWS_ENDPOINT_URL_DYNAMODB" >&2
  if is_local_endpoint "$AWS_ENDPOINT_URL_DYNAMODB"; then local_defaults; fi
else
  pidfile="$state/run-ddb-$DYNAMODB_LOCAL_PORT.pid"
  # Until the exec below, this shell stops DynamoDB Local itself if anything fails.
  trap '"$ddb" stop "$pidfile"' EXIT
  "$ddb" start "$DYNAMODB_LOCAL_PORT" "$pidfile"
  export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$DYNAMODB_LOCAL_PORT"
  local_defaults
fi

echo "run: building the server into .local/bin/server" >&2
go build -o "$state/bin/server" ./cmd/server

if [[ -n "$pidfile" ]]; then
  # The watcher outlives this shell's exec: it waits for the server (which takes this pid) to exit,
  # then stops DynamoDB Local. Background jobs of a script ignore SIGINT, so Ctrl-C reaches only
  # the server and DynamoDB Local is stopped after the server has drained.
  server_pid=$$
  (
    trap '' INT TERM HUP
    while kill -0 "$server_pid" 2>/dev/null && [[ "$(ps -o stat= -p "$server_pid" 2>/dev/null)" != Z* ]]; do sleep 0.3; done
    "$ddb" stop "$pidfile"
  ) </dev/null >/dev/null 2>&1 &
  echo $! >"$state/run-watcher-$DYNAMODB_LOCAL_PORT.pid"
  trap - EXIT
fi
# shellcheck disable=SC2086 # RUN_FLAGS is a list of flags
exec "$state/bin/server" $RUN_FLAGS "$@"
