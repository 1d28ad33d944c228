#!/usr/bin/env bash
# The breaking-change check of the GraphQL API (make test, make schema-check): compares the last
# released schema, graph/testdata/schema.released.graphql, with the current one,
# graph/testdata/schema.graphql (the snapshot that TestSchemaSnapshot keeps equal to the served
# schema), with graphql-inspector's `diff`. The tool is pinned in scripts/schema-check/ and
# installed there with `npm ci` when its lock file changed.
#
# Exit status: 0 when every operation that is valid against the released schema stays valid and
# keeps its meaning; 1 on a breaking change (a type, field, argument, enum value or union member
# removed, a field's type changed incompatibly, a new required argument or input field, …) and
# when a schema does not load. "Dangerous" changes (a new enum value, a new optional argument, a
# changed default value, a new member of a union or implementation of an interface) are listed
# with a warning and pass: they are how the API grows, and clients are told to expect them
# (docs/api.md, "Schema evolution").
#
# Releasing the schema is an explicit act: copy the snapshot over the released file in the commit
# that makes the change, and the check passes again:
#
#   cp graph/testdata/schema.graphql graph/testdata/schema.released.graphql
#
#   scripts/schema-check.sh                          released vs current
#   scripts/schema-check.sh OLD.graphql NEW.graphql  any two schema files (the tests' way)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
released=${1:-$root/graph/testdata/schema.released.graphql}
current=${2:-$root/graph/testdata/schema.graphql}
for f in "$released" "$current"; do
  [[ -f $f ]] || { echo "schema-check: $f: no such file" >&2; exit 1; }
done

tool="$root/scripts/schema-check"
"$root/scripts/npm-ci.sh" "$tool"

if ! "$tool/node_modules/.bin/graphql-inspector" diff "$released" "$current"; then
  cat >&2 <<EOF

schema-check: the current schema breaks clients of the released one (or a schema did not load).
Retire a field with @deprecated(reason: "...") instead of removing it. If the break is intended,
release the schema in the same commit:
  cp graph/testdata/schema.graphql graph/testdata/schema.released.graphql
EOF
  exit 1
fi
