#!/usr/bin/env bash
# Regenerates the trusted-documents manifests of server/testdata/trusted/ with the client tools
# themselves, pinned in scripts/trusted-manifests/package-lock.json: relay-compiler's persistConfig
# output (persisted_queries.json, MD5 ids) from relay/*.js, and
# @apollo/generate-persisted-query-manifest's manifest from apollo/*.js. TestClientManifestsLoadAndServe
# loads both and serves each the way its client names documents.
#
#   scripts/trusted-manifests.sh          (make trusted-manifests)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir="$here/trusted-manifests"
out="$here/../server/testdata/trusted"
"$here/npm-ci.sh" "$dir"
cd "$dir"
# relay-compiler wants its output file and artifact folder to exist; both are scratch here.
trap 'rm -rf relay/__generated__ persisted_queries.json persisted-query-manifest.json' EXIT
rm -rf relay/__generated__ && mkdir relay/__generated__
echo '{}' >persisted_queries.json
npx --no-install relay-compiler
npx --no-install generate-persisted-query-manifest
mkdir -p "$out"
cp persisted_queries.json "$out/relay-persisted_queries.json"
cp persisted-query-manifest.json "$out/apollo-persisted-query-manifest.json"
echo "trusted-manifests: wrote $out/relay-persisted_queries.json and $out/apollo-persisted-query-manifest.json" >&2
