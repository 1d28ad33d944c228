package resolvers

import "github.com/99designs/gqlgen/graphql"

// Root arguments read before their resolvers run (a root lookup planned ahead, an explain) are
// read as gqlgen's generated argument code reads them, through the scalar's own unmarshaler: an
// ID given as an Int literal (`ticket(id: 7)`) is the ID "7" here as it is to the resolver, so a
// plan and its execution never read one argument two ways.

// idArg is the ID argument name of args (f.ArgumentMap), as the resolver receives it; ok is false
// when it is absent, null or not an ID (gqlgen then refuses the operation before any resolver).
func idArg(args map[string]any, name string) (id string, ok bool) {
	v, present := args[name]
	if !present || v == nil {
		return "", false
	}
	id, err := graphql.UnmarshalID(v)
	return id, err == nil
}

// idsArg is the [ID!] argument name of args, as the resolver receives it (a single ID is a list
// of one, as GraphQL's input coercion makes it); ok is false when it is absent or holds a value
// that is not an ID.
func idsArg(args map[string]any, name string) (ids []string, ok bool) {
	v, present := args[name]
	if !present || v == nil {
		return nil, false
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	ids = make([]string, len(list))
	for i, e := range list {
		if e == nil { // gqlgen's UnmarshalID would make it "null"; [ID!] refuses it
			return nil, false
		}
		id, err := graphql.UnmarshalID(e)
		if err != nil {
			return nil, false
		}
		ids[i] = id
	}
	return ids, true
}
