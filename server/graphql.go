package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/graph"
	"singletable/repository/store"
	"singletable/resolvers"
)

// newGraphQL builds the GraphQL endpoint. handler.NewDefaultServer is deprecated and not meant
// for production; everything here is explicit:
//   - transports: POST (JSON), GET (queries only: gqlgen refuses mutations over GET), OPTIONS,
//     multipart/mixed for @defer, and for subscriptions WebSocket and Server-Sent Events
//     (streams.go, subscriptions.go), the latter for @defer too (defer_transport.go);
//   - a parsed-query cache and automatic persisted queries (Apollo Client, urql, Relay), both
//     bounded in bytes, the persisted queries kept apart per principal (cache.go);
//   - trusted documents: ids of a manifest resolved, and with TrustedEnforce nothing else run
//     (trusted*.go; withTrustedDocuments checks HTTP requests before they reach this handler);
//   - bounds on a document's bytes, tokens, depth, fields, aliases and repeated fields, checked
//     before validation (limits.go), and a complexity limit on the price of the operation's plan
//     (plan.go), which an explain request gets instead of running the operation (explain.go);
//   - introspection only when configured, and no "did you mean" suggestions without it;
//   - one error presenter that shows extensions.code and hides internals (the codes themselves are
//     given in one place, resolvers.FieldError), and a recover function
//     that turns a resolver panic into one field error while the server keeps serving;
//   - the extensions.dynamodb cost entry on every response.
func newGraphQL(repo *store.Store, cfg Config) http.Handler {
	if cfg.ComplexityLimit <= 0 {
		cfg.ComplexityLimit = DefaultComplexityLimit
	}
	if cfg.ParserTokenLimit <= 0 {
		cfg.ParserTokenLimit = DefaultParserTokenLimit
	}
	if cfg.QueryCacheBytes <= 0 {
		cfg.QueryCacheBytes = DefaultQueryCacheBytes
	}
	if cfg.APQCacheBytes <= 0 {
		cfg.APQCacheBytes = DefaultAPQCacheBytes
	}
	es := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{Repo: repo, Hub: cfg.Hub}})
	srv := handler.New(es)
	addStreamTransports(srv, cfg, es.Schema())
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(multipartMixed(cfg, es.Schema()))
	srv.AddTransport(transport.POST{})
	queries := newByteCache(cfg.QueryCacheBytes, docSize)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(cfg.ParserTokenLimit)
	// Without introspection the schema is private: validation errors must not suggest names.
	srv.SetDisableSuggestion(!cfg.Introspection)
	// The front door first (trusted documents: a document named by its hash gets its text), then
	// the bounds: a persisted query is only stored once its document passed them.
	srv.Use(newFrontDoor(cfg))
	srv.Use(documentBounds{limits: cfg.Limits.withDefaults(), tokenLimit: cfg.ParserTokenLimit, cache: queries})
	srv.Use(extension.AutomaticPersistedQuery{Cache: perPrincipal{cache: newByteCache(cfg.APQCacheBytes, apqSize), shared: newSharedPersisted(cfg)}})
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(streamOperations{})
	srv.Use(wholeResult{})
	// Planned once introspection is settled: the plan reports introspection refused as
	// execution would.
	srv.Use(operationPlan{limit: cfg.ComplexityLimit, shards: repo.OrderStatusShards()})
	telemetry := newOperationTelemetry(cfg)
	srv.Use(telemetry)
	srv.Use(subscriptionEvents{telemetry: telemetry, repo: repo, loaders: cfg.Loaders, timeout: cfg.OperationTimeout})
	present, recover := presentError(cfg.Logger, !cfg.Introspection), recoverPanic(cfg.Logger)
	srv.SetErrorPresenter(present)
	srv.SetRecoverFunc(recover)
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		op := graphql.GetOperationContext(ctx)
		if ri := requestInfoFrom(ctx); ri != nil {
			ri.setOperation(operationName(op))
		}
		return next(withOperationPlan(ctx, op, cfg.Planner))
	})
	srv.Use(newFieldGuard(telemetry))
	srv.Use(costExtension{})
	srv.Use(explainExtension{present: present, recover: recover})
	return srv
}

// presentError is the one place errors become GraphQL errors:
//   - our errors carry their code, client-safe message and the input field at fault;
//   - internal and unavailable errors are logged once, with their cause, and shown without it;
//   - gqlgen's own parse, validation and limit errors keep their standard codes;
//   - any other error comes from coercing arguments (a malformed Time, an out-of-range Int) and is
//     BAD_USER_INPUT;
//   - with hideSuggestions (introspection off) no message ends in "Did you mean …?": gqlparser's
//     switch for suggestions covers unknown fields only, not unknown arguments, enum values,
//     input fields or types, which would otherwise spell out the private schema.
func presentError(log *slog.Logger, hideSuggestions bool) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		if hideSuggestions {
			if i := strings.Index(gerr.Message, " Did you mean "); i >= 0 {
				gerr.Message = gerr.Message[:i]
			}
		}
		if gerr.Extensions == nil {
			gerr.Extensions = map[string]any{}
		}
		var coded *apperr.Error
		if errors.As(err, &coded) {
			gerr.Message = coded.Message
			gerr.Extensions["code"] = string(coded.Code)
			if coded.Field != "" {
				gerr.Extensions["field"] = coded.Field
			}
			if coded.Reason != "" {
				gerr.Extensions["reason"] = coded.Reason
			}
			if coded.Cursor != "" {
				gerr.Extensions["cursor"] = coded.Cursor
			}
			if coded.Limit != "" {
				gerr.Extensions["limit"] = coded.Limit
			}
			if coded.Count != nil {
				gerr.Extensions["count"] = *coded.Count
			}
			switch coded.Code {
			case apperr.CodeInternal, apperr.CodeUnavailable:
				level := slog.LevelError
				if coded.Code == apperr.CodeUnavailable {
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
		gerr.Extensions["code"] = string(apperr.CodeBadUserInput)
		return gerr
	}
}

// recoverPanic logs a resolver panic with its stack and turns it into an internal error of the one
// field that panicked; the other fields and the server carry on.
func recoverPanic(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "resolver panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return apperr.Internal("resolver", fmt.Errorf("panic: %v", p))
	}
}
