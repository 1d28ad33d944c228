// Package apperr holds the one error type of the API: a value with a code a client can act on and
// a message that is safe to show. Every layer returns these; the server turns them into GraphQL
// errors with `extensions.code` in one place. The package has no dependencies beyond the standard
// library, so the model, resolvers, loaders and server need not import the storage layer to
// create or inspect an error.
package apperr

import (
	"errors"
	"fmt"
)

// Code classifies an error for API clients. The values are the `extensions.code` strings of the
// GraphQL API, so the server maps an error to a response without a lookup table.
type Code string

// The codes an error can carry. Anything without a code is an internal error.
const (
	CodeBadUserInput    Code = "BAD_USER_INPUT"
	CodeNotFound        Code = "NOT_FOUND"
	CodeConflict        Code = "CONFLICT"
	CodeUnauthenticated Code = "UNAUTHENTICATED"
	CodeForbidden       Code = "FORBIDDEN"
	CodeRateLimited     Code = "RATE_LIMITED"
	CodeUnavailable     Code = "UNAVAILABLE"
	// CodeCursorExpired: a delta-sync cursor older than the change log keeps; refetch.
	CodeCursorExpired Code = "CURSOR_EXPIRED"
	CodeInternal      Code = "INTERNAL_SERVER_ERROR"
)

// Error is an error with a code and a message that is safe to show to API clients. Cause holds
// what went wrong underneath (an SDK error, say); it is logged, never shown.
type Error struct {
	Code    Code
	Message string
	// Field names the input field at fault, for BAD_USER_INPUT (e.g. "input.email"); may be empty.
	Field string
	// Reason says why a stream or a request ended or was refused, for a client that acts on it
	// (extensions.reason: "slow", "gap", "stock" for an order that lacks stock); Limit names the limit that refused it
	// (extensions.limit: "capacity", "subscriptions"). Both may be empty.
	Reason string
	Limit  string
	// Count, when set, is how many things stand in the way of a CONFLICT (the employees of a
	// department that cannot be removed yet): extensions.count.
	Count *int
	// Cursor, when set, is where a subscription that ended may be resumed (extensions.cursor:
	// its `after:` when subscribing again), so the client's retry needs no refetch.
	Cursor string
	Cause  error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// New returns an *Error with the given code and client-safe message.
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an *Error with the given code and a formatted, client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with the given code and client-safe message that keeps cause for the
// log.
func Wrap(code Code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// InvalidInput returns a BAD_USER_INPUT error about one input field.
func InvalidInput(field, format string, args ...any) *Error {
	return &Error{Code: CodeBadUserInput, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns a NOT_FOUND error for an entity of the given kind.
func NotFound(kind string) *Error {
	return &Error{Code: CodeNotFound, Message: kind + " not found"}
}

// Internal wraps an unexpected error: clients see only INTERNAL_SERVER_ERROR, the log sees op
// and err.
func Internal(op string, err error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error", Cause: fmt.Errorf("%s: %w", op, err)}
}

// CodeOf returns the code of err: the Code of the first *Error in its chain, or CodeInternal for
// anything else.
func CodeOf(err error) Code {
	if err == nil {
		// Before errors.As, whose target escapes: callers check codes on hot paths with nil.
		return CodeInternal
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
