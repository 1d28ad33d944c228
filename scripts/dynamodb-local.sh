#!/usr/bin/env bash
# DynamoDB Local: AWS's own engine (DynamoDBLocal.jar), taken from the npm package
# amplify-dynamodb-simulator (folder emulator/) because the npm registry is the one place every
# machine of ours can download from. Unpacked once into a user cache folder so fresh clones reuse it.
#
#   scripts/dynamodb-local.sh install          fetch the jar (npm) and Java 17 (apt) if missing
#   scripts/dynamodb-local.sh start PORT PIDFILE [isolated]
#                                               start in memory on 127.0.0.1:PORT, wait until it answers
#   scripts/dynamodb-local.sh stop PIDFILE     stop what start started
#   scripts/dynamodb-local.sh freeport         print a TCP port nobody listens on
#
# Databases: with -sharedDb (make run, the default) every client sees one database whatever its
# credentials. `isolated` (the tests) leaves it out: DynamoDB Local then keeps one in-memory
# database per access key and region, each served by a single SQLite thread of its own, and the
# tests give every table a key of its own (repository.Config.LocalDatabase). That is what keeps
# `make test` fast: DynamoDB Local keeps a table's stream records after the table is deleted, in
# one SQLite table per database with no index on the stream, and every stream write or read
# scans from the oldest record of any stream in the database. In one shared database each write
# got slower with every test that came before it (a 25-item batch from ~20 ms to ~800 ms after
# 40,000 retained records), and a GetItem of one test queued on the one thread behind another
# test's stream polling. Old databases are never freed, so a process's memory grows slowly with
# the tables it served; a test run is short enough for that not to matter.
set -euo pipefail

PKG_VERSION=2.9.30
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/singletable/dynamodb-local"
DIR="$CACHE_ROOT/amplify-dynamodb-simulator-$PKG_VERSION/emulator"

log() { echo "dynamodb-local: $*" >&2; }
# shellcheck source=scripts/daemon.sh
. "$(dirname "$0")/daemon.sh"

have_java17() {
  command -v java >/dev/null 2>&1 || return 1
  local v
  v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
  [[ -n "$v" && "$v" -ge 17 ]]
}

install_java() {
  have_java17 && return 0
  log "installing openjdk-17-jre-headless with apt"
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  have_java17 || { log "java 17 is still missing after apt-get install"; exit 1; }
}

install_jar() {
  [[ -f "$DIR/DynamoDBLocal.jar" ]] && return 0
  command -v npm >/dev/null 2>&1 || { log "npm is needed to fetch DynamoDB Local"; exit 1; }
  log "fetching amplify-dynamodb-simulator@$PKG_VERSION from the npm registry into $CACHE_ROOT"
  mkdir -p "$CACHE_ROOT"
  local tmp
  tmp=$(mktemp -d "$CACHE_ROOT/.tmp.XXXXXX")
  # npm checks the tarball against the registry's integrity hash.
  (cd "$tmp" && npm pack --silent "amplify-dynamodb-simulator@$PKG_VERSION" >/dev/null)
  tar -xzf "$tmp"/amplify-dynamodb-simulator-$PKG_VERSION.tgz -C "$tmp" package/emulator
  [[ -f "$tmp/package/emulator/DynamoDBLocal.jar" ]] || { log "the package holds no emulator/DynamoDBLocal.jar"; exit 1; }
  mkdir -p "$(dirname "$DIR")"
  # A rename is atomic: two concurrent installs never leave a half-unpacked folder behind.
  mv "$tmp/package/emulator" "$DIR.partial.$$"
  mv -T "$DIR.partial.$$" "$DIR" 2>/dev/null || rm -rf "$DIR.partial.$$"
  rm -rf "$tmp"
}

start() {
  local port=$1 pidfile=$2 shared=(-sharedDb)
  [[ "${3:-}" == isolated ]] && shared=()
  install_java
  install_jar
  if port_open "$port"; then
    log "port $port is already in use; set AWS_ENDPOINT_URL_DYNAMODB to use a DynamoDB that already runs"
    exit 1
  fi
  # Absolute: java runs from $DIR, and the pid file may be relative (make passes .local/…).
  local logfile
  logfile=$(log_file "$pidfile")
  (cd "$DIR" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
      -inMemory "${shared[@]}" -disableTelemetry -port "$port" >"$logfile" 2>&1) &
  echo $! >"$pidfile"
  await_listening "$port" "$pidfile" "$logfile" 150
}

# Below the kernel's ephemeral range (32768.. by default): an outgoing connection of a busy
# machine cannot take the port between this check and the bind.
freeport() {
  local p lo
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
  for _ in $(seq 1 200); do
    p=$((10000 + RANDOM % (lo - 10000)))
    port_open "$p" || { echo "$p"; return 0; }
  done
  log "found no free port"; exit 1
}

case "${1:-}" in
  install) install_java; install_jar ;;
  start) start "$2" "$3" "${4:-}" ;;
  stop) stop "$2" ;;
  freeport) freeport ;;
  *) echo "usage: $0 install | start PORT PIDFILE [isolated] | stop PIDFILE | freeport" >&2; exit 2 ;;
esac
