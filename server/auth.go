package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"singletable/apperr"
	"singletable/auth"
	"singletable/resolvers"
)

// withAuthentication verifies the bearer token of every /query request before anything else runs
// and puts its principal into the request's context (auth.FromContext). A missing, malformed,
// expired or badly signed token is answered here: HTTP 401, WWW-Authenticate: Bearer, one error
// with code UNAUTHENTICATED and no data. Without an Authenticator every request is refused (the
// server never runs open by accident; auth.Disabled is the explicit way). CORS preflights
// (OPTIONS) carry no credentials and pass, and so does a WebSocket upgrade without an
// Authorization header, which a browser cannot set on one: its identity is the token of its
// connection_init message, which the WebSocket transport verifies with the same Authenticator
// before it runs anything (streams.go).
func withAuthentication(a auth.Authenticator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions || (isWebSocketUpgrade(r) && len(r.Header.Values("Authorization")) == 0) {
			next.ServeHTTP(w, r)
			return
		}
		var values []any
		for _, v := range r.Header.Values("Authorization") {
			values = append(values, v)
		}
		p, err := principalOf(r.Context(), a, "the Authorization header", values)
		if err != nil {
			if errors.Is(err, errAmbiguousCredentials) {
				writeCodedError(w, r, http.StatusBadRequest, string(apperr.CodeBadUserInput), errAmbiguousCredentials.Message)
				return
			}
			writeAuthError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
}

// bearerToken extracts the token of an "Authorization: Bearer <token>" header (the scheme is
// case-insensitive, RFC 7235); an empty header gives "" and ok, any other scheme not ok.
func bearerToken(h string) (string, bool) {
	if h == "" {
		return "", true
	}
	scheme, token, found := strings.Cut(strings.TrimSpace(h), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// writeAuthError answers a refused request: 401 with WWW-Authenticate for UNAUTHENTICATED, 503
// with Retry-After when the identity provider's keys cannot be fetched.
func writeAuthError(w http.ResponseWriter, r *http.Request, err error) {
	code := apperr.CodeOf(err)
	status := http.StatusUnauthorized
	msg := "unauthenticated"
	var coded *apperr.Error
	if errors.As(err, &coded) {
		msg = coded.Message
	}
	switch code {
	case apperr.CodeUnauthenticated:
		w.Header().Set("WWW-Authenticate", "Bearer")
	case apperr.CodeUnavailable:
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "5")
	default:
		code, msg = apperr.CodeUnauthenticated, "unauthenticated"
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	writeCodedError(w, r, status, string(code), msg)
}

// authorizeRootField refuses, with FORBIDDEN, a root field, mutation or subscription the caller's
// roles do not allow (auth's policy table; a field without a policy is refused for everyone),
// before its resolver runs: a refused mutation writes nothing. A root field sent over the wrong
// transport is refused first (streamAllows). Introspection fields (__schema, __type, __typename)
// follow the introspection setting instead. Nested fields pass, their objects checked where their
// IDs enter the graph (each node type's descriptor, graph/model), except those auth's fieldPolicy
// narrows below their object's scope (a product's stock for a customer): FORBIDDEN.
func authorizeRootField(ctx context.Context, fc *graphql.FieldContext) error {
	if err := resolvers.FieldPolicy(ctx, fc.Object, fc.Field.Name); err != nil {
		return err
	}
	if (fc.Object != "Query" && fc.Object != "Mutation" && fc.Object != "Subscription") || strings.HasPrefix(fc.Field.Name, "__") {
		return nil
	}
	if err := streamAllows(ctx, fc.Object); err != nil {
		return err
	}
	if !auth.Caller(ctx).MayUse(fc.Object, fc.Field.Name) {
		return resolvers.ForbiddenField(fc.Field.Name)
	}
	return nil
}
