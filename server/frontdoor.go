package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-viper/mapstructure/v2"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/auth"
)

// The front door: every operation, whichever transport brought it (GET, POST, Server-Sent
// Events, a WebSocket's subscribe), passes one gate, frontDoor, which decides on it:
//   - its principal (principalOf): the one Authorization it carries, an HTTP header or a member
//     of connection_init spelled in any case (two are refused), verified by the one Authenticator;
//   - its request rate and its capacity budget (admit), keyed by that principal (principalKey);
//   - its document (decide): what names it is read by documentRequestOf, the one reader of those
//     members, as gqlgen reads them (a member in any case; spelled twice: refused), and judged by
//     the trusted-documents policy; the persisted-query cache gqlgen then consults reads the very
//     members this reader read, and keys them by the principal (perPrincipal), on every
//     transport;
//   - its complexity and the capacity its plan reserves: operationPlan, once it is validated.
//
// Every operation reaches gqlgen as one graphql.RawParams, and frontDoor is the operation
// parameter mutator that runs first on it: there it decides the rate, the budget and the
// document of an operation no HTTP middleware decided on (a WebSocket's subscribe), with the same
// functions. The HTTP middleware (withAdmission, withTrustedDocuments) calls them earlier, to
// answer with a status code and before the body is read, and marks the request (admittedKey,
// documentsCheckedKey) so that nothing is decided, taken or counted twice; they never judge a
// request this extension would judge otherwise.
type frontDoor struct {
	policy trustPolicy
	// allow takes a token from a principal's request bucket (nil: no rate limit); store holds
	// the capacity budgets (nil: no budget); onLimited counts a refusal by its reason.
	allow     func(ctx context.Context, key string) (bool, time.Duration)
	budget    *capacityBudget
	store     budgetStore
	onLimited func(reason string)
}

// newFrontDoor is the gate of the server cfg configures (New sets its limiter and budget).
func newFrontDoor(cfg Config) frontDoor {
	return frontDoor{policy: newTrustPolicy(cfg), allow: cfg.allow, budget: cfg.budget, store: cfg.store, onLimited: cfg.OnRateLimited}
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = frontDoor{}

func (frontDoor) ExtensionName() string                   { return "FrontDoor" }
func (frontDoor) Validate(graphql.ExecutableSchema) error { return nil }

func (f frontDoor) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	if admitted, _ := ctx.Value(admittedKey{}).(bool); !admitted {
		key, _ := principalKey(ctx)
		account, r := f.admit(ctx, key)
		if r != nil {
			return r.gqlError()
		}
		if account != nil {
			// A subscribe's account ends here: each of its events keeps one of its own
			// (eventMeter), which reserves the subscription's price before it runs.
			account.settle(0, false)
		}
	}
	req, err := documentRequestOf(raw, "")
	if err != nil {
		return codedError(string(apperr.CodeBadUserInput), err.Error())
	}
	if !f.policy.active() {
		return nil
	}
	v := f.policy.decide(req, bypasses(ctx, raw.Headers))
	if checked, _ := ctx.Value(documentsCheckedKey{}).(bool); !checked {
		f.policy.report(ctx, v, req)
	}
	if v.code != "" {
		return codedError(v.code, v.message)
	}
	if v.text != "" {
		raw.Query = v.text
	}
	return nil
}

// admittedKey marks the context of an HTTP request the front door admitted (withAdmission): its
// operation took its token and passed the budget there. A WebSocket's upgrade is never marked:
// each of its subscribes is admitted on its own.
type admittedKey struct{}

// refusal is the front door's answer to a request it turns away: its code, the limit that
// refused it (extensions.limit, "" for none), its message, the HTTP status it gets where there is
// one, and how long to wait before trying again (Retry-After; zero for none).
type refusal struct {
	status       int
	code, limit  string
	message      string
	wait         time.Duration
	retryAfterOn bool
}

// gqlError is the refusal as a GraphQL error (a WebSocket's subscribe has no status).
func (r *refusal) gqlError() *gqlerror.Error {
	err := codedError(r.code, r.message)
	if r.limit != "" {
		err.Extensions["limit"] = r.limit
	}
	return err
}

// write answers an HTTP request with the refusal.
func (r *refusal) write(w http.ResponseWriter, req *http.Request) {
	if r.retryAfterOn {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(r.wait)))
	}
	writeLimitError(w, req, r.status, r.code, r.limit, r.message)
}

// admit decides on an operation of the principal key before its document is read: it takes a
// token from the principal's request bucket (RATE_LIMITED, extensions.limit "rate", when there is
// none), then checks that its capacity budget holds capacity (RATE_LIMITED, "capacity", while it
// is spent: Retry-After is the wait once the operations in flight settled) and opens the request's
// account with it, which its caller settles: each operation reserves its plan's price from it
// once it is planned (operationPlan). A refusal is counted by its reason.
func (f frontDoor) admit(ctx context.Context, key string) (*requestBudget, *refusal) {
	if f.allow != nil {
		if ok, wait := f.allow(ctx, key); !ok {
			return nil, f.limited(RefusedRate, wait, "Too many requests from this client; retry after %d s.")
		}
	}
	if f.budget == nil {
		return nil, nil
	}
	account := &requestBudget{store: f.store, local: f.budget, key: key}
	if ok, wait := account.reserve(ctx, 0); !ok {
		return nil, f.limited(RefusedCapacity, wait, "This client has used its DynamoDB capacity budget; retry after %d s.")
	}
	return account, nil
}

func (f frontDoor) limited(reason string, wait time.Duration, format string) *refusal {
	if f.onLimited != nil {
		f.onLimited(reason)
	}
	secs := retryAfterSeconds(wait)
	return &refusal{status: http.StatusTooManyRequests, code: string(apperr.CodeRateLimited), limit: reason,
		message: strings.Replace(format, "%d", strconv.Itoa(secs), 1), wait: wait, retryAfterOn: true}
}

// principalOf is the front door's decision on who sends a request, from every Authorization it
// carries (where names them in messages: the Authorization header, or connection_init's
// Authorization, a member in any case): two are refused (BAD_USER_INPUT: which one counts would
// depend on who reads them, and a proxy that reads the first would see another caller than a
// server that reads the last); one that is not a string, or not of the Bearer scheme, is
// UNAUTHENTICATED; the token is verified by a, as on every transport.
func principalOf(ctx context.Context, a auth.Authenticator, where string, values []any) (auth.Principal, error) {
	if len(values) > 1 {
		return auth.Principal{}, errAmbiguousCredentials
	}
	if a == nil {
		return auth.Principal{}, apperr.New(apperr.CodeUnauthenticated, "this server has no token verifier configured")
	}
	header := ""
	if len(values) == 1 {
		s, ok := values[0].(string)
		if !ok {
			return auth.Principal{}, apperr.New(apperr.CodeUnauthenticated, where+" must be a string")
		}
		header = s
	}
	token, ok := bearerToken(header)
	if !ok {
		return auth.Principal{}, apperr.New(apperr.CodeUnauthenticated, where+" must use the Bearer scheme")
	}
	return a.Verify(ctx, token)
}

// errAmbiguousCredentials refuses a request, or a connection_init, that carries Authorization
// twice (two headers, or two spellings of the member): HTTP 400, or a close with 4400.
var errAmbiguousCredentials = apperr.New(apperr.CodeBadUserInput, "Send one Authorization: this request carries two.")

func codedError(code, message string) *gqlerror.Error {
	return &gqlerror.Error{Message: message, Extensions: map[string]any{"code": code}}
}

// persistedQueryMember is the member of extensions automatic persisted queries use.
const persistedQueryMember = "persistedQuery"

// documentRequestOf is what a request, as gqlgen decoded it, says about its document; id is the
// documentId or doc_id member only GraphQL over HTTP carries ("" elsewhere). The hash is read
// as gqlgen's persisted-query extension reads it (mapstructure: a member's name in any case),
// and a request that spells persistedQuery or one of its members twice (in two cases) is
// refused: which one gqlgen would take follows a map's order.
func documentRequestOf(raw *graphql.RawParams, id string) (documentRequest, error) {
	req := documentRequest{query: raw.Query, operationName: raw.OperationName, id: id}
	pq, err := soleMember(raw.Extensions, persistedQueryMember)
	if err != nil || pq == nil {
		return req, err
	}
	if members, ok := pq.(map[string]any); ok {
		for _, name := range []string{"sha256Hash", "version"} {
			if _, err := soleMember(members, name); err != nil {
				return req, err
			}
		}
	}
	if pq, ok := raw.Extensions[persistedQueryMember]; ok {
		var ext struct {
			Sha256 string `mapstructure:"sha256Hash"`
		}
		_ = mapstructure.Decode(pq, &ext) // a malformed member is gqlgen's to refuse
		req.apqHash = ext.Sha256
		return req, nil
	}
	// Another case of persistedQuery, which gqlgen's extension does not read: neither do we,
	// beyond refusing it under enforce (a hash-only request then has no document).
	return req, nil
}

// soleMember is m's member named name in any case, or an error when m has it twice.
func soleMember(m map[string]any, name string) (any, error) {
	found := members(m, name)
	if len(found) > 1 {
		return nil, errors.New("The request spells " + name + " more than once (in two cases): send it once.")
	}
	if len(found) == 0 {
		return nil, nil
	}
	return found[0], nil
}

// members are m's members named name in any case.
func members(m map[string]any, name string) []any {
	var found []any
	for k, v := range m {
		if strings.EqualFold(k, name) {
			found = append(found, v)
		}
	}
	return found
}
