#!/usr/bin/env bash
# Fetches the playground's third-party files (React, ReactDOM, GraphiQL) from the npm registry into
# server/playground/assets/, where go:embed puts them into the binary. Each package is pinned to a
# version AND to the sha512 integrity of its tarball as the registry published it: a tarball that
# does not match is refused, so re-running this script can only ever reproduce the committed files.
# The script then records each file's sha256 in assets/SHA256SUMS: a Go test checks the embedded
# files against it, so a file edited by hand fails the build's tests.
#
#   scripts/playground-assets.sh          (make playground-assets)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../server/playground/assets"

# package  version  tarball integrity (npm view PKG@VERSION dist.integrity)  files to keep
PACKAGES=(
  "react 18.3.1 sha512-wS+hAgJShR0KhEvPJArfuPVN1+Hz1t0Y6n5jLrGQbkb4urgPE/0Rve+1kMB1v/oWgHgm4WIcV+i7F2pTVj+2iQ== umd/react.production.min.js LICENSE"
  "react-dom 18.3.1 sha512-5m4nQKp+rZRb09LNH59GM4BxTh9251/ylbKIbpe7TpGxfJ+9kv6BLkLBXIjjspbgbnIBNqlI23tRnTWT0snUIw== umd/react-dom.production.min.js LICENSE"
  "graphiql 4.1.2 sha512-rNlzQIAzm6i2KBXmVQWBgLvt0TloxFVB2d18bukvdsvjEuFDHsKx5IVOomL1W1o5WW+tE54+ioHb2AEKzO2cUg== graphiql.min.js graphiql.min.css LICENSE"
)

command -v npm >/dev/null || { echo "playground-assets: npm is needed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
for entry in "${PACKAGES[@]}"; do
  read -r name version integrity files <<<"$entry"
  (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null 2>&1)
  tgz="$tmp/$name-$version.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [[ "$got" != "$integrity" ]]; then
    echo "playground-assets: $name@$version tarball integrity $got, pinned $integrity: refusing it" >&2
    exit 1
  fi
  mkdir -p "$tmp/$name"
  tar -xzf "$tgz" -C "$tmp/$name"
  for f in $files; do
    dest="$(basename "$f")"
    [[ "$dest" == LICENSE ]] && dest="$name.LICENSE"
    cp "$tmp/$name/package/$f" "$out/$dest"
  done
  echo "playground-assets: $name@$version ($integrity)" >&2
done

cd "$out"
sha256sum $(ls *.js *.css | sort) *.LICENSE >SHA256SUMS
