#!/usr/bin/env bash
# Installs DIR/node_modules with `npm ci` from DIR's committed package-lock.json (exact versions
# from the npm registry), only when the lock file changed since the last install: a copy of the
# lock file inside node_modules records what is installed.
#
#   scripts/npm-ci.sh e2e
#   scripts/npm-ci.sh scripts/schema-check
set -euo pipefail
dir=${1:?usage: npm-ci.sh DIR}
stamp="$dir/node_modules/.package-lock.json.installed"
if ! cmp -s "$dir/package-lock.json" "$stamp" 2>/dev/null; then
  command -v npm >/dev/null || { echo "npm-ci: node and npm are needed for $dir" >&2; exit 1; }
  echo "npm ci ($dir/package-lock.json)" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$dir/package-lock.json" "$stamp"
fi
