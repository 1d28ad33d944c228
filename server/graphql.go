package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/graph"
	"singletable/repository"
	"singletable/resolvers"
)

// newGraphQL builds the GraphQL endpoint. handler.NewDefaultServer is deprecated and not meant
// for production; everything here is explicit:
//   - transports: POST (JSON), GET (queries only: gqlgen refuses mutations over GET), OPTIONS;
//   - a parsed-query cache and automatic persisted queries (Apollo Client, urql, Relay);
//   - a parser token limit and a complexity limit that multiplies lists by `first`;
//   - introspection only when configured;
//   - one error presenter that sets extensions.code and hides internals, and a recover function
//     that turns a resolver panic into one field error while the server keeps serving;
//   - the extensions.dynamodb cost entry on every response.
func newGraphQL(repo *repository.Repo, cfg Config) http.Handler {
	if cfg.ComplexityLimit <= 0 {
		cfg.ComplexityLimit = DefaultComplexityLimit
	}
	if cfg.ParserTokenLimit <= 0 {
		cfg.ParserTokenLimit = DefaultParserTokenLimit
	}
	srv := handler.New(graph.NewExecutableSchema(graph.Config{
		Resolvers:  &resolvers.Resolver{Repo: repo},
		Complexity: complexity(),
	}))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.SetParserTokenLimit(cfg.ParserTokenLimit)
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	srv.Use(extension.FixedComplexityLimit(cfg.ComplexityLimit))
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(newOperationTelemetry(cfg))
	srv.SetErrorPresenter(presentError(cfg.Logger))
	srv.SetRecoverFunc(recoverPanic(cfg.Logger))
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if ri := requestInfoFrom(ctx); ri != nil {
			ri.setOperation(operationName(graphql.GetOperationContext(ctx)))
		}
		return next(ctx)
	})
	srv.AroundFields(codeResolverErrors)
	srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		resp := next(ctx)
		if resp == nil {
			return nil
		}
		var usage repository.Usage
		if ri := requestInfoFrom(ctx); ri != nil {
			usage = ri.meter.Usage()
		}
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		resp.Extensions["dynamodb"] = usage
		return resp
	})
	return srv
}

// codeResolverErrors makes sure every error a resolver returns has a code: errors of ours already
// do; anything else (a library's error, say) is an internal error. Errors that gqlgen raises
// itself while coercing arguments never pass through here, which is how presentError tells them
// apart as client mistakes.
func codeResolverErrors(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	if err == nil {
		return res, nil
	}
	var coded *repository.Error
	var gerr *gqlerror.Error
	if errors.As(err, &coded) || (errors.As(err, &gerr) && gerr.Extensions["code"] != nil) {
		return res, err
	}
	if name := graphql.GetFieldContext(ctx).Field.Name; name == "__schema" || name == "__type" {
		// gqlgen's introspection resolvers refuse with a plain error when introspection is off.
		return res, &repository.Error{Code: repository.CodeForbidden, Message: "introspection is disabled on this server", Cause: err}
	}
	return res, &repository.Error{Code: repository.CodeInternal, Message: "internal error", Cause: err}
}

// presentError is the one place errors become GraphQL errors (DESIGN.md §3):
//   - our errors carry their code, client-safe message and the input field at fault;
//   - internal and unavailable errors are logged once, with their cause, and shown without it;
//   - gqlgen's own parse, validation and limit errors keep their standard codes;
//   - any other error comes from coercing arguments (a malformed Time, an out-of-range Int) and is
//     BAD_USER_INPUT.
func presentError(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		if gerr.Extensions == nil {
			gerr.Extensions = map[string]any{}
		}
		var coded *repository.Error
		if errors.As(err, &coded) {
			gerr.Message = coded.Message
			gerr.Extensions["code"] = string(coded.Code)
			if coded.Field != "" {
				gerr.Extensions["field"] = coded.Field
			}
			switch coded.Code {
			case repository.CodeInternal, repository.CodeUnavailable:
				level := slog.LevelError
				if coded.Code == repository.CodeUnavailable {
					level = slog.LevelWarn
				}
				reqID := ""
				if ri := requestInfoFrom(ctx); ri != nil {
					reqID = ri.id
				}
				cause := coded.Error()
				log.LogAttrs(ctx, level, "operation error", slog.String("requestId", reqID),
					slog.String("code", string(coded.Code)), slog.String("error", cause), slog.Any("path", gerr.Path))
				if reqID != "" {
					gerr.Extensions["requestId"] = reqID
				}
			}
			return gerr
		}
		if gerr.Extensions["code"] != nil {
			return gerr
		}
		gerr.Extensions["code"] = string(repository.CodeBadUserInput)
		return gerr
	}
}

// recoverPanic logs a resolver panic with its stack and turns it into an internal error of the one
// field that panicked; the other fields and the server carry on.
func recoverPanic(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "resolver panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return &repository.Error{Code: repository.CodeInternal, Message: "internal error", Cause: fmt.Errorf("panic: %v", p)}
	}
}
