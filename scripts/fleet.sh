#!/usr/bin/env bash
# `make fleet`: three instances of the API behind no load balancer, on ports PORT, PORT+1 and
# PORT+2 (8080–8082; admin ports ADMIN_PORT.., 9090–9092), sharing one DynamoDB Local (DYNAMODB_LOCAL_PORT, 8000)
# and one Redis (REDIS_PORT, 6379), each started by this script, as `make run` starts DynamoDB
# Local. The first instance creates the table, loads the sample data and prints development
# tokens, which every instance accepts (one secret for the fleet). One instance reads the table's
# stream for all (the lease); stop it (kill its pid, printed below) to watch another take over.
# Ctrl-C or SIGTERM stops every instance (each drains), then Redis and DynamoDB Local.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ddb="$root/scripts/dynamodb-local.sh"
redis="$root/scripts/redis.sh"
state="$root/.local"
mkdir -p "$state/bin"
log() { echo "fleet: $*" >&2; }
# shellcheck source=scripts/daemon.sh
. "$root/scripts/daemon.sh"

PORT=${PORT:-8080}
DYNAMODB_LOCAL_PORT=${DYNAMODB_LOCAL_PORT:-8000}
REDIS_PORT=${REDIS_PORT:-6379}
ADMIN_PORT=${ADMIN_PORT:-9090}
export HOST=${HOST:-127.0.0.1}
if [[ -z "${AUTH_HS256_SECRET:-}" ]]; then
  AUTH_HS256_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '\n/+=' | head -c 48)
  export AUTH_HS256_SECRET
fi
# One cursor secret for the fleet: a cursor from one instance pages on another.
export CURSOR_SECRET=${CURSOR_SECRET:-$(head -c 32 /dev/urandom | base64 | tr -d '\n/+=')}

ddb_pid="$state/fleet-ddb-$DYNAMODB_LOCAL_PORT.pid"
redis_pid="$state/fleet-redis-$REDIS_PORT.pid"
pids=()
signalled=""
cleanup() {
  trap - EXIT INT TERM
  # Ctrl-C reaches every instance itself (one process group), and a second signal would stop
  # them before they drained: only other ends are passed on, once.
  if [[ "$signalled" != INT ]]; then
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  fi
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  "$redis" stop "$redis_pid"
  "$ddb" stop "$ddb_pid"
}
trap cleanup EXIT
trap 'signalled=INT; exit 130' INT
trap 'signalled=TERM; exit 143' TERM

"$ddb" start "$DYNAMODB_LOCAL_PORT" "$ddb_pid"
"$redis" start "$REDIS_PORT" "$redis_pid"
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$DYNAMODB_LOCAL_PORT"
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"

log "building the server into .local/bin/server"
go build -o "$state/bin/server" ./cmd/server

for i in 0 1 2; do
  flags=(-create-table)
  [[ $i -eq 0 ]] && flags+=(-seed -dev-tokens)
  PORT=$((PORT + i)) ADMIN_ADDR="127.0.0.1:$((ADMIN_PORT + i))" "$state/bin/server" "${flags[@]}" &
  pids+=($!)
  log "instance $((i + 1)) on http://127.0.0.1:$((PORT + i))/ (pid $!)"
  # The first instance creates the table before the others start.
  if [[ $i -eq 0 ]]; then
    for _ in $(seq 1 300); do port_open "$PORT" && break; sleep 0.2; done
  fi
done
# Stops when any instance ends, or on Ctrl-C: the trap stops the rest.
wait -n "${pids[@]}"
