#!/usr/bin/env bash
# Tests that `make run` leaves nothing running: it starts `make run` on free ports (its own
# session, so every process it starts can be found), waits until /readyz answers 200, then stops
# it as a user would — SIGTERM to make, then in a second round Ctrl-C (SIGINT to the whole
# foreground group) — and asserts that make exits, that the API and DynamoDB Local ports are both
# closed and that no process of the session remains.
#
#   scripts/test-make-run.sh        (make test runs it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ddb="$root/scripts/dynamodb-local.sh"
mkdir -p .local
"$ddb" install

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
session_procs() { ps -eo pid=,sid=,args= | awk -v s="$1" '$2 == s { print }'; }
fail() { echo "test-make-run: FAIL: $*" >&2; exit 1; }

run_once() {
  local how=$1 api ddbport log pid
  api=$("$ddb" freeport)
  ddbport=$("$ddb" freeport)
  [[ "$api" != "$ddbport" ]] || ddbport=$((ddbport + 1))
  log="$root/.local/test-make-run-$how.log"
  # A clean environment for make run: no endpoint (it starts its own DynamoDB Local).
  env -u AWS_ENDPOINT_URL_DYNAMODB PORT="$api" DYNAMODB_LOCAL_PORT="$ddbport" \
    setsid make --no-print-directory run >"$log" 2>&1 </dev/null &
  pid=$!
  # Whatever happens, nothing of this session outlives the test.
  trap 'kill -KILL -- -'"$pid"' 2>/dev/null || true' EXIT

  local ready=""
  for _ in $(seq 1 600); do
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$api/readyz" || true)" == 200 ]]; then ready=1; break; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "make run exited before it was ready"; }
    sleep 0.3
  done
  [[ -n "$ready" ]] || { cat "$log" >&2; fail "/readyz did not answer 200 within 180 s"; }
  port_open "$ddbport" || fail "DynamoDB Local is not listening on DYNAMODB_LOCAL_PORT=$ddbport"
  [[ "$(curl -s "http://127.0.0.1:$api/query" -H 'Content-Type: application/json' \
        -d '{"query":"{ organizations(first: 1) { edges { node { name } } } }"}')" == *'"name"'* ]] \
    || fail "the sample data is not served"

  case "$how" in
    sigterm) kill -TERM "$pid" ;;            # what a service manager does to make
    ctrl-c) kill -INT -- "-$pid" ;;          # what a terminal does: the whole foreground group
  esac

  local gone=""
  for _ in $(seq 1 100); do
    if ! kill -0 "$pid" 2>/dev/null && [[ -z "$(session_procs "$pid")" ]]; then gone=1; break; fi
    sleep 0.3
  done
  if [[ -z "$gone" ]]; then
    session_procs "$pid" >&2
    cat "$log" >&2
    fail "$how: processes of make run remain after 30 s"
  fi
  wait "$pid" 2>/dev/null || true
  ! port_open "$api" || fail "$how: the API port $api is still open"
  ! port_open "$ddbport" || fail "$how: the DynamoDB Local port $ddbport is still open"
  grep -q '"msg":"stopped"' "$log" || { cat "$log" >&2; fail "$how: the server did not shut down gracefully"; }
  trap - EXIT
  echo "test-make-run: $how: make, the server and DynamoDB Local all stopped; ports $api and $ddbport closed" >&2
}

run_once sigterm
run_once ctrl-c
echo "2 passed, 0 failed"
