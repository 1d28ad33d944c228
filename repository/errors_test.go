package repository

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"singletable/apperr"
)

// sdkError wraps err the way the SDK returns a failed call: an operation error around an HTTP
// response error.
func sdkError(status int, err error) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "Query", Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}}, Err: err},
		RequestID:     "REQ123",
	}}
}

// apperr.Classify recognises the SDK's errors by their methods; this checks it against the real
// types, which apperr cannot import.
func TestClassifySDKErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want apperr.Code
	}{
		{"throughput", sdkError(400, &types.ProvisionedThroughputExceededException{Message: new(string)}), apperr.CodeUnavailable},
		{"request limit", sdkError(400, &types.RequestLimitExceeded{}), apperr.CodeUnavailable},
		{"throttling", sdkError(400, &types.ThrottlingException{}), apperr.CodeUnavailable},
		{"generic 500", sdkError(500, &smithy.GenericAPIError{Code: "InternalServerError"}), apperr.CodeUnavailable},
		{"no API error, 503", sdkError(503, errors.New("EOF")), apperr.CodeUnavailable},
		{"missing table", sdkError(400, &types.ResourceNotFoundException{}), apperr.CodeInternal},
	}
	for _, c := range cases {
		got := apperr.Classify("query", c.err)
		if code := apperr.CodeOf(got); code != c.want {
			t.Errorf("%s: %s, want %s (%v)", c.name, code, c.want, got)
		}
		var e *apperr.Error
		if errors.As(got, &e) && (e.Message == "" || containsAny(e.Message, "REQ123", "Query", "DynamoDB")) {
			t.Errorf("%s: message %q is empty or leaks the cause", c.name, e.Message)
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
