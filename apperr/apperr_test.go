package apperr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
)

// apiError has the method the AWS SDK's service errors have.
type apiError struct{ code string }

func (e apiError) Error() string     { return "api error " + e.code + ": table app, request id 123" }
func (e apiError) ErrorCode() string { return e.code }

// statusError has the method the SDK's HTTP response errors have.
type statusError struct{ status int }

func (e statusError) Error() string {
	return fmt.Sprintf("http %d from https://dynamodb/app", e.status)
}
func (e statusError) HTTPStatusCode() int { return e.status }

func TestClassify(t *testing.T) {
	ours := InvalidInput("input.name", "name is too long")
	cases := []struct {
		name string
		err  error
		want Code
	}{
		{"ours, wrapped", fmt.Errorf("context: %w", ours), CodeBadUserInput},
		{"deadline", fmt.Errorf("op: %w", context.DeadlineExceeded), CodeUnavailable},
		{"cancelled", context.Canceled, CodeUnavailable},
		{"throttled", fmt.Errorf("op: %w", apiError{"ThrottlingException"}), CodeUnavailable},
		{"throughput exceeded", apiError{"ProvisionedThroughputExceededException"}, CodeUnavailable},
		{"request limit", apiError{"RequestLimitExceeded"}, CodeUnavailable},
		{"service unavailable", apiError{"ServiceUnavailable"}, CodeUnavailable},
		{"validation", apiError{"ValidationException"}, CodeInternal},
		{"network", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, CodeUnavailable},
		{"http 503", statusError{503}, CodeUnavailable},
		{"http 400", statusError{400}, CodeInternal},
		{"anything else", errors.New("boom"), CodeInternal},
	}
	for _, c := range cases {
		got := Classify("read", c.err)
		var e *Error
		if !errors.As(got, &e) {
			t.Fatalf("%s: Classify = %T, want *Error", c.name, got)
		}
		if e.Code != c.want {
			t.Errorf("%s: code %s, want %s", c.name, e.Code, c.want)
		}
		if strings.Contains(e.Message, "app") || strings.Contains(e.Message, "123") {
			t.Errorf("%s: message %q leaks the cause", c.name, e.Message)
		}
		if e != ours && !errors.Is(got, c.err) {
			t.Errorf("%s: the cause is not kept for the log: %v", c.name, got)
		}
	}
	if got := Classify("read", fmt.Errorf("x: %w", ours)); got != error(ours) {
		t.Errorf("Classify of a wrapped *Error = %v, want the *Error itself", got)
	}
	if got := Classify("read", nil); got != nil {
		t.Errorf("Classify(nil) = %#v, want an untyped nil", got)
	}
}

func TestCodeOf(t *testing.T) {
	if got := CodeOf(fmt.Errorf("wrapped: %w", NotFound("user"))); got != CodeNotFound {
		t.Errorf("CodeOf(wrapped NotFound) = %s", got)
	}
	if got := CodeOf(errors.New("plain")); got != CodeInternal {
		t.Errorf("CodeOf(plain) = %s, want %s", got, CodeInternal)
	}
	if CodeOf(Errorf(CodeConflict, "taken")) != CodeConflict {
		t.Error("CodeOf(Errorf(CodeConflict)) is not CONFLICT")
	}
}

func TestErrorText(t *testing.T) {
	e := Internal("decode item", errors.New("bad type"))
	if e.Message != "internal error" || e.Code != CodeInternal {
		t.Errorf("Internal = %+v", e)
	}
	if got, want := e.Error(), "INTERNAL_SERVER_ERROR: internal error: decode item: bad type"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := NotFound("mentor").Error(), "NOT_FOUND: mentor not found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	f := InvalidInput("input.email", "email %q is not valid", "x")
	if f.Field != "input.email" || f.Code != CodeBadUserInput || f.Message != `email "x" is not valid` {
		t.Errorf("InvalidInput = %+v", f)
	}
	if New(CodeRateLimited, "slow down").Code != CodeRateLimited {
		t.Error("New lost its code")
	}
}
