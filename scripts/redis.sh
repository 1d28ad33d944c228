#!/usr/bin/env bash
# Redis for a fleet of instances (REDIS_URL), run like DynamoDB Local: redis-server from the OS
# packages (installed with apt when missing), in memory (no snapshot, no append-only file), on
# 127.0.0.1 only, with a memory bound that evicts the least recently used keys.
#
#   scripts/redis.sh install              install redis-server with apt if missing
#   scripts/redis.sh start PORT PIDFILE   start on 127.0.0.1:PORT, wait until it answers
#   scripts/redis.sh stop PIDFILE         stop what start started
set -euo pipefail

log() { echo "redis: $*" >&2; }
# shellcheck source=scripts/daemon.sh
. "$(dirname "$0")/daemon.sh"

install() {
  command -v redis-server >/dev/null 2>&1 && return 0
  log "installing redis-server with apt"
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
  command -v redis-server >/dev/null 2>&1 || { log "redis-server is still missing after apt-get install"; exit 1; }
}

start() {
  local port=$1 pidfile=$2
  install
  if port_open "$port"; then
    log "port $port is already in use; set REDIS_URL to use a Redis that already runs"
    exit 1
  fi
  local logfile
  logfile=$(log_file "$pidfile")
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --maxmemory "${REDIS_MAXMEMORY:-256mb}" --maxmemory-policy allkeys-lru >"$logfile" 2>&1 &
  echo $! >"$pidfile"
  await_listening "$port" "$pidfile" "$logfile" 50
}

case "${1:-}" in
  install) install ;;
  start) start "$2" "$3" ;;
  stop) stop "$2" ;;
  *) echo "usage: $0 install | start PORT PIDFILE | stop PIDFILE" >&2; exit 2 ;;
esac
