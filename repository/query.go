package repository

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// Paging limits of every connection of the API.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// PageArgs are a connection's `first` and `after` arguments.
type PageArgs struct {
	First int
	After string
}

// Validate checks First (1..100) and fills in the default.
func (a *PageArgs) Validate() error {
	if a.First == 0 {
		a.First = DefaultPageSize
	}
	if a.First < 1 || a.First > MaxPageSize {
		return apperr.InvalidInput("first", "first must be between 1 and %d", MaxPageSize)
	}
	return nil
}

// Page is one page of a list, ready to become a Relay connection.
type Page[T any] struct {
	Items []T
	// Cursors[i] is the position of Items[i], sealed into its opaque form only when asked for.
	Cursors         []Cursor
	HasNextPage     bool
	HasPreviousPage bool
}

// PageQuery describes one list: a Query on the table or an index, its key condition, and the
// scope that binds its cursors.
type PageQuery struct {
	index string // "" for the table itself
	// Scope identifies the list: index, partition and sort key range, filter. Cursors are only
	// valid within the scope they were made in.
	Scope      string
	keyCond    string
	Filter     string
	Names      map[string]string
	Values     map[string]types.AttributeValue
	descending bool
}

// KeyAttrs are the attributes that make up an item's position in an index: the index key
// followed by the table key, as ExclusiveStartKey requires.
func KeyAttrs(index string) []string {
	for _, ix := range tableIndexes {
		if ix.name == index {
			return []string{ix.pk, ix.sk, AttrPK, AttrSK}
		}
	}
	return []string{AttrPK, AttrSK}
}

// QueryPage reads one page of q: at most args.First items of type T after the cursor args.After,
// plus one more item to learn whether a next page exists. Without a filter that is a single Query
// with Limit = first+1; with a filter DynamoDB may return fewer matches than it read, and the
// Query continues from LastEvaluatedKey until the page is full or the range is exhausted.
func QueryPage[T Entity](ctx context.Context, r *Repo, q PageQuery, args PageArgs) (Page[T], error) {
	if err := args.Validate(); err != nil {
		return Page[T]{}, err
	}
	attrs := KeyAttrs(q.index)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		KeyConditionExpression:    aws.String(q.keyCond),
		ExpressionAttributeNames:  q.Names,
		ExpressionAttributeValues: q.Values,
		ScanIndexForward:          aws.Bool(!q.descending),
		Limit:                     aws.Int32(int32(args.First + 1)),
	}
	if q.index != "" {
		in.IndexName = aws.String(q.index)
	}
	if q.Filter != "" {
		in.FilterExpression = aws.String(q.Filter)
		// A filter drops items after they are read; read more per call so that a selective
		// filter does not turn one page into many round trips.
		in.Limit = aws.Int32(int32(min(4*(args.First+1), 1000)))
	}
	if args.After != "" {
		vals, err := r.Cursors.Decode(q.Scope, args.After, len(attrs))
		if err != nil {
			return Page[T]{}, err
		}
		in.ExclusiveStartKey = make(map[string]types.AttributeValue, len(attrs))
		for i, a := range attrs {
			in.ExclusiveStartKey[a] = &types.AttributeValueMemberS{Value: vals[i]}
		}
	}
	raw, err := r.QueryItems(ctx, in, args.First+1)
	if err != nil {
		return Page[T]{}, err
	}
	items, err := DecodeAll[T](raw)
	if err != nil {
		return Page[T]{}, err
	}
	return FinishPage(r, q.Scope, attrs, items, raw, args), nil
}

// FinishPage trims a page read with one extra item and computes the cursors of the rest.
func FinishPage[T any](r *Repo, scope string, attrs []string, items []T, raw []map[string]types.AttributeValue, args PageArgs) Page[T] {
	p := Page[T]{HasPreviousPage: args.After != ""}
	if len(items) > args.First {
		p.HasNextPage = true
		items, raw = items[:args.First], raw[:args.First]
	}
	p.Items = items
	p.Cursors = make([]Cursor, len(items))
	// The key values of all the cursors, in one allocation.
	n := len(attrs)
	vals := make([]string, len(raw)*n)
	for i, item := range raw {
		v := vals[i*n : (i+1)*n : (i+1)*n]
		for j, a := range attrs {
			v[j] = StringAttr(item, a)
		}
		p.Cursors[i] = Cursor{codec: r.Cursors, scope: scope, vals: v}
	}
	return p
}

// Cursor is the position of one item of a page. Sealing it (encryption and MAC) is most of the
// cost of a page that the API adds to the Query, and most operations never ask for cursors; so
// it is sealed only when String is called: a GraphQL response serializes only the cursors its
// operation selects (graph/model's edges and PageInfo call String from their cursor fields).
type Cursor struct {
	codec cursorCodec
	scope string
	vals  []string
}

// String is the opaque, tamper-evident cursor ("" for the zero Cursor).
func (c Cursor) String() string {
	if c.vals == nil {
		return ""
	}
	return c.codec.encode(c.scope, c.vals)
}

func StringAttr(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// IntAttr is a number attribute as an int; 0 when absent or not an integer.
func IntAttr(item map[string]types.AttributeValue, name string) int {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(v.Value)
	return n
}

// QueryItems runs a Query until it has read want items or the key range is exhausted, following
// LastEvaluatedKey (a Query stops at its Limit, at 1 MB, or, with a filter, with fewer matches
// than it read). It returns at most want items.
func (r *Repo) QueryItems(ctx context.Context, in *dynamodb.QueryInput, want int) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for {
		out, err := r.DB.Query(ctx, in)
		if err != nil {
			return nil, apperr.Classify("query", err)
		}
		if items == nil {
			items = out.Items // most Queries take one call: no copy
		} else {
			items = append(items, out.Items...)
		}
		if len(items) >= want {
			return items[:want], nil
		}
		if out.LastEvaluatedKey == nil {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// ParentWithPage runs read p (its key: pk, sk) for a parent together with the first page of one
// of its lists, in ONE Query: Limit first+2 (the page, one more to learn whether a next page
// exists, and the parent's own item). The caller finds the parent among the items by where its
// pattern sorts it, and finishes the page with the args returned.
func (r *Repo) ParentWithPage(ctx context.Context, p AccessPattern, first int, pk string, sk ...string) ([]map[string]types.AttributeValue, PageArgs, error) {
	args := PageArgs{First: first}
	if err := args.Validate(); err != nil {
		return nil, args, err
	}
	in := p.Input(r.Table(), pk, sk...)
	in.Limit = aws.Int32(int32(args.First + 2))
	items, err := r.QueryItems(ctx, in, args.First+2)
	return items, args, err
}

// DecodeAll decodes items that must all be T.
func DecodeAll[T Entity](items []map[string]types.AttributeValue) ([]T, error) {
	out := make([]T, len(items))
	for i, item := range items {
		v, err := DecodeAs[T](item)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// ListPattern declares the list of every entity of one type (AP7): a Query of the type's
// partition of the entity-type index GSI2, sorted by its GSI2SK (a case-folded name and the id),
// never a Scan.
func ListPattern(name, entityType, fields string) AccessPattern {
	return Declare(AccessPattern{ID: "AP7", Name: name, What: "every " + entityType + ", by name", Fields: fields,
		Operation: Query, Index: GSI2, PartitionKey: TypePK(entityType), Calls: PerParent,
		Notes: "ascending by `<name>#<id>`"})
}

// ListByType pages through every entity of one type, as its list pattern p says (AP7).
func ListByType[T Entity](ctx context.Context, r *Repo, p AccessPattern, args PageArgs) (Page[T], error) {
	return QueryPage[T](ctx, r, p.Query(Join("list", p.PartitionKey), p.PartitionKey), args)
}

// EachPage calls fn for every item of the list read page by page by page.
func EachPage[T any](page func(PageArgs) (Page[T], error), fn func(T) error) error {
	args := PageArgs{First: MaxPageSize}
	for {
		p, err := page(args)
		if err != nil {
			return err
		}
		for _, item := range p.Items {
			if err := fn(item); err != nil {
				return err
			}
		}
		if !p.HasNextPage || len(p.Cursors) == 0 {
			return nil
		}
		args.After = p.Cursors[len(p.Cursors)-1].String()
	}
}
