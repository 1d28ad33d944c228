package repository

import (
	"errors"
	"fmt"
)

// Code classifies an error for API clients. The values are the `extensions.code` strings of the
// GraphQL API (DESIGN.md §3), so the server maps an error to a response without a lookup table.
type Code string

// The codes an error can carry. Anything without a code is an internal error.
const (
	CodeBadUserInput Code = "BAD_USER_INPUT"
	CodeNotFound     Code = "NOT_FOUND"
	CodeConflict     Code = "CONFLICT"
	CodeForbidden    Code = "FORBIDDEN"
	CodeUnavailable  Code = "UNAVAILABLE"
	CodeInternal     Code = "INTERNAL_SERVER_ERROR"
)

// CodeUnauthenticated: the request carries no valid bearer token (HTTP 401, answered by the
// server's authentication before any resolver runs).
const CodeUnauthenticated Code = "UNAUTHENTICATED"

// Error is an error with a code and a message that is safe to show to API clients. Cause holds
// what went wrong underneath (an SDK error, say); it is logged, never shown.
type Error struct {
	Code    Code
	Message string
	// Field names the input field at fault, for BAD_USER_INPUT (e.g. "input.email"); may be empty.
	Field string
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with the given code and a formatted, client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidInput returns a BAD_USER_INPUT error about one input field.
func InvalidInput(field, format string, args ...any) *Error {
	return &Error{Code: CodeBadUserInput, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns a NOT_FOUND error for an entity of the given kind.
func NotFound(kind string) *Error {
	return &Error{Code: CodeNotFound, Message: kind + " not found"}
}

// internal wraps an unexpected error: clients see only INTERNAL_SERVER_ERROR.
func internal(op string, err error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error", Cause: fmt.Errorf("%s: %w", op, err)}
}

// ErrorCode returns the code of err: the Code of the first *Error in its chain, or
// CodeInternal for anything else.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
