package repository

// SolePage is a page of a list narrowed to the one entity a caller may see (the `organizations`
// of an org role, the `customers` of a customer): item when present is false, else nothing.
// It keeps the list's contract: `first` is validated, the edge's cursor is sealed like any other,
// and a page asked for after that cursor is empty; a cursor of another list is BAD_USER_INPUT. It
// makes no call: the caller read the entity (by key) itself.
func SolePage[T Entity](r *Repo, list string, item T, present bool, args PageArgs) (Page[T], error) {
	if err := args.Validate(); err != nil {
		return Page[T]{}, err
	}
	scope := Join("sole", list)
	p := Page[T]{HasPreviousPage: args.After != ""}
	if args.After != "" {
		if _, err := r.Cursors.Decode(scope, args.After, 1); err != nil {
			return Page[T]{}, err
		}
		return p, nil
	}
	if present {
		p.Items = []T{item}
		p.Cursors = []Cursor{{codec: r.Cursors, scope: scope, vals: []string{"1"}}}
	}
	return p, nil
}
