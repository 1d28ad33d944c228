// Package graph holds the GraphQL schema (*.graphqls) and the executable schema gqlgen generates
// from it. Regenerate with `make generate`.
package graph

//go:generate sh -c "cd .. && go run github.com/99designs/gqlgen generate --config gqlgen.yml"
