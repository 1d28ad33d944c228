package apperr

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// Classify turns any error into an *Error, the one rule for what an error that is not ours
// means to a client. An *Error anywhere in the chain is kept as it is. A cancelled or timed-out
// request, a throttled or failing database (after the SDK's own retries) and an unreachable one
// become UNAVAILABLE: the client may retry. Anything else is INTERNAL_SERVER_ERROR. op names what
// was being done, for the log; no message carries the cause's text. A nil err gives nil (an
// untyped nil, so the result can be returned as an error as it is).
//
// The database errors are recognised by the methods the AWS SDK's errors have (ErrorCode and
// HTTPStatusCode), so this package needs no SDK import and the storage layer stays the only
// package that knows the SDK.
func Classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return classify(op, err)
}

// classify is Classify for an error that has no code.
func classify(op string, err error) *Error {
	cause := fmt.Errorf("%s: %w", op, err)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Wrap(CodeUnavailable, "the request was cancelled or timed out", cause)
	}
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ProvisionedThroughputExceededException", "RequestLimitExceeded", "ThrottlingException":
			return Wrap(CodeUnavailable, "the database is busy; retry later", cause)
		case "ServiceUnavailable", "InternalServerError", "InternalFailure":
			return Wrap(CodeUnavailable, "the database is unavailable; retry later", cause)
		}
		return Wrap(CodeInternal, "internal error", cause)
	}
	var netErr net.Error
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &netErr) || (errors.As(err, &status) && status.HTTPStatusCode() >= 500) {
		return Wrap(CodeUnavailable, "the database is unreachable; retry later", cause)
	}
	return Wrap(CodeInternal, "internal error", cause)
}
