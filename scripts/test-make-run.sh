#!/usr/bin/env bash
# Tests that `make run` leaves nothing running: it starts `make run` on free ports (its own
# session, so every process it starts can be found), waits until /readyz answers 200, then stops
# it as a user would — SIGTERM to make, then in a second round Ctrl-C (SIGINT to the whole
# foreground group), and in a third round with AWS_ENDPOINT_URL_DYNAMODB naming a DynamoDB Local
# on localhost and no credentials set — and asserts that make exits, that the API and DynamoDB Local ports are both
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
# A free port below the kernel's ephemeral range, so that no outgoing connection of this busy
# machine takes it between this check and the server's bind.
freeport() {
  local lo p
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
  for _ in $(seq 1 200); do
    p=$((10000 + RANDOM % (lo - 10000)))
    port_open "$p" || { echo "$p"; return 0; }
  done
  fail "found no free port"
}
session_procs() { ps -eo pid=,sid=,args= | awk -v s="$1" '$2 == s { print }'; }
fail() { echo "test-make-run: FAIL: $*" >&2; exit 1; }

run_once() {
  local how=$1 api ddbport log pid
  api=$(freeport)
  ddbport=$(freeport)
  [[ "$api" != "$ddbport" ]] || ddbport=$((ddbport + 1))
  log="$root/.local/test-make-run-$how.log"
  local -a envset=(-u AWS_ENDPOINT_URL_DYNAMODB -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN
    -u AWS_PROFILE -u AWS_REGION -u AWS_DEFAULT_REGION AWS_EC2_METADATA_DISABLED=true PORT="$api" ADMIN_ADDR=127.0.0.1:0)
  if [[ "$how" == endpoint ]]; then
    # A DynamoDB that already runs, named by a localhost endpoint and no credentials: make run
    # must supply dummy ones and a region, start no DynamoDB Local and stop nothing it did not start.
    "$ddb" start "$ddbport" "$root/.local/test-make-run-$ddbport.pid"
    envset+=(AWS_ENDPOINT_URL_DYNAMODB="http://localhost:$ddbport")
  else
    envset+=(DYNAMODB_LOCAL_PORT="$ddbport")
  fi
  env "${envset[@]}" setsid make --no-print-directory run >"$log" 2>&1 </dev/null &
  pid=$!
  # Whatever happens, nothing of this session outlives the test.
  trap 'kill -KILL -- -'"$pid"' 2>/dev/null || true; "$ddb" stop "$root/.local/test-make-run-'"$ddbport"'.pid"' EXIT

  local ready=""
  for _ in $(seq 1 600); do
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$api/readyz" || true)" == 200 ]]; then ready=1; break; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      if grep -q 'address already in use' "$log"; then
        # Another program took a port between the check and the bind: try other ports.
        echo "test-make-run: $how: a port was taken meanwhile; again with other ports" >&2
        [[ "$how" != endpoint ]] || "$ddb" stop "$root/.local/test-make-run-$ddbport.pid"
        trap - EXIT
        return 75
      fi
      cat "$log" >&2
      fail "make run exited before it was ready"
    fi
    sleep 0.3
  done
  [[ -n "$ready" ]] || { cat "$log" >&2; fail "/readyz did not answer 200 within 180 s"; }
  port_open "$ddbport" || fail "DynamoDB Local is not listening on DYNAMODB_LOCAL_PORT=$ddbport"
  # make run prints development tokens, the admin's first: the sample data is served with it.
  local token
  token=$(grep -A1 -m1 -E '^  admin' "$log" | tail -n1 | tr -d ' ')
  [[ -n "$token" ]] || { cat "$log" >&2; fail "make run printed no admin token"; }
  [[ "$(curl -s "http://127.0.0.1:$api/query" -H 'Content-Type: application/json' \
        -H "Authorization: Bearer $token" \
        -d '{"query":"{ organizations(first: 1) { edges { node { name } } } }"}')" == *'"name"'* ]] \
    || fail "the sample data is not served"

  case "$how" in
    sigterm | endpoint) kill -TERM "$pid" ;; # what a service manager does to make
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
  if [[ "$how" == endpoint ]]; then
    port_open "$ddbport" || fail "$how: make run stopped a DynamoDB it did not start"
    "$ddb" stop "$root/.local/test-make-run-$ddbport.pid"
  fi
  ! port_open "$ddbport" || fail "$how: the DynamoDB Local port $ddbport is still open"
  grep -q '"msg":"stopped"' "$log" || { cat "$log" >&2; fail "$how: the server did not shut down gracefully"; }
  trap - EXIT
  echo "test-make-run: $how: make, the server and DynamoDB Local all stopped; ports $api and $ddbport closed" >&2
}

for how in sigterm ctrl-c endpoint; do
  rc=0
  run_once "$how" || rc=$?
  if [[ $rc -eq 75 ]]; then run_once "$how"; elif [[ $rc -ne 0 ]]; then exit "$rc"; fi
done
echo "3 passed, 0 failed"
