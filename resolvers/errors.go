package resolvers

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
)

// FieldError is the one place a field's error gets its code: errors of ours carry theirs (as do
// gqlgen's with an extensions code); anything else (a library's error, say) is classified by
// apperr.Classify. gqlgen's introspection resolvers refuse with a plain error when introspection
// is off: that is FORBIDDEN. The server's field interceptor calls it for every field's error, and
// nodes(ids:) for the errors of its entries, which it adds itself.
func FieldError(ctx context.Context, err error) error {
	var coded *apperr.Error
	var gerr *gqlerror.Error
	if err == nil || errors.As(err, &coded) || (errors.As(err, &gerr) && gerr.Extensions["code"] != nil) {
		return err
	}
	if fc := graphql.GetFieldContext(ctx); fc != nil && (fc.Field.Name == "__schema" || fc.Field.Name == "__type") {
		return apperr.Wrap(apperr.CodeForbidden, "introspection is disabled on this server", err)
	}
	return apperr.Classify("resolver", err)
}
