#!/usr/bin/env bash
# The Relay compiler (pinned in scripts/relay-check/, installed there with `npm ci` when its lock
# file changed) compiles the operations of scripts/relay-check/src against a schema: the current
# snapshot, graph/testdata/schema.graphql, unless another file is given. It holds the frontend
# conventions of the API: a removal answers `deletedId`, which Relay's @deleteRecord takes.
#
# Exit status: 0 when every operation compiles, 1 otherwise (the compiler's errors on stderr). The
# artifacts are written to a temporary copy, never into the repository.
#
#   scripts/relay-check.sh                 against the snapshot
#   scripts/relay-check.sh SCHEMA.graphql  against another schema (the tests' way)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
schema=${1:-$root/graph/testdata/schema.graphql}
[[ -f $schema ]] || { echo "relay-check: $schema: no such file" >&2; exit 1; }
tool="$root/scripts/relay-check"
"$root/scripts/npm-ci.sh" "$tool"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$tool/src" "$work/src"
cp "$schema" "$work/schema.graphql"
echo '{"src": "./src", "schema": "./schema.graphql", "language": "javascript"}' >"$work/relay.config.json"
cd "$work"
"$tool/node_modules/.bin/relay-compiler" >"$work/out.log" 2>&1 || { cat "$work/out.log" >&2; exit 1; }
