# The lifecycle of a local service a script starts in the background (DynamoDB Local, Redis),
# sourced by scripts/dynamodb-local.sh and scripts/redis.sh: whether a port answers, the wait
# until the service listens, and its stop. Each caller defines log().

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# log_file PIDFILE: the absolute path of the log next to the pid file (the caller may change its
# working directory, and make passes relative paths).
log_file() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "${1%.pid}").log"; }

# await_listening PORT PIDFILE LOGFILE TRIES: waits up to TRIES × 0.2 s for the process of PIDFILE
# to answer on PORT; exits with its log when it ends or does not answer in time.
await_listening() {
  local port=$1 pidfile=$2 logfile=$3 tries=$4
  for _ in $(seq 1 "$tries"); do
    if port_open "$port"; then
      log "listening on 127.0.0.1:$port (pid $(cat "$pidfile"), log $logfile)"
      return 0
    fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      log "exited at start:"; cat "$logfile" >&2; exit 1
    fi
    sleep 0.2
  done
  log "did not answer on port $port in time"; cat "$logfile" >&2
  stop "$pidfile"; exit 1
}

# stop PIDFILE: stops what start started (SIGTERM, then SIGKILL after 5 s).
stop() {
  local pidfile=$1
  [[ -f "$pidfile" ]] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}
