// Package resolvers implements the GraphQL schema (gqlgen, follow-schema layout: one
// <schema>.resolvers.go per graph/<schema>.graphqls). Resolvers read through the per-request
// loaders and write through the repository; they never build DynamoDB expressions.
package resolvers

import (
	"singletable/changefeed"
	"singletable/repository/store"
)

// Resolver is the root resolver. It holds what every request shares.
type Resolver struct {
	Repo *store.Store
	// Hub fans the table's stream out to subscriptions; nil where subscriptions are not served
	// (they answer UNAVAILABLE).
	Hub *changefeed.Hub
}
