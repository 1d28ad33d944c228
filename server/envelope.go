package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"singletable/apperr"
	"singletable/repository"
)

// withErrorEnvelope keeps the API's contract for the few errors gqlgen's transports write by
// themselves, outside the error presenter: a mutation sent with GET, a body that is not JSON or is
// too large, an unsupported content type. Those answers have a 4xx status and errors without
// extensions; this middleware buffers only such answers and adds extensions.code
// (BAD_USER_INPUT for 4xx, INTERNAL_SERVER_ERROR for 5xx) and extensions.dynamodb. Successful
// responses stream through untouched.
func withErrorEnvelope(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxRequestBody {
			writeError(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxRequestBody))
			return
		}
		ew := &envelopeWriter{ResponseWriter: w}
		next.ServeHTTP(ew, r)
		if ew.buf == nil {
			return
		}
		body := ew.buf.Bytes()
		if fixed, ok := addErrorCodes(body, ew.status, requestInfoFrom(r.Context())); ok {
			body = fixed
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(ew.status)
		_, _ = w.Write(body)
	})
}

// writeError answers with a GraphQL error response of our own making.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]any{{"message": msg}}})
	body, _ = addErrorCodes(body, status, requestInfoFrom(r.Context()))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

type envelopeWriter struct {
	http.ResponseWriter
	status int
	buf    *bytes.Buffer // non-nil once an error status was written
}

func (w *envelopeWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	if code >= 400 {
		w.buf = &bytes.Buffer{}
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *envelopeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.buf != nil {
		return w.buf.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *envelopeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func addErrorCodes(body []byte, status int, ri *requestInfo) ([]byte, bool) {
	var resp struct {
		Data       json.RawMessage  `json:"data,omitempty"`
		Errors     []map[string]any `json:"errors"`
		Extensions map[string]any   `json:"extensions,omitempty"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Errors) == 0 {
		return nil, false
	}
	code := apperr.CodeBadUserInput
	if status >= 500 {
		code = apperr.CodeInternal
	}
	for _, e := range resp.Errors {
		ext, _ := e["extensions"].(map[string]any)
		if ext == nil {
			ext = map[string]any{}
			e["extensions"] = ext
		}
		if ext["code"] == nil {
			ext["code"] = string(code)
		}
	}
	if resp.Extensions == nil {
		resp.Extensions = map[string]any{}
	}
	if resp.Extensions["dynamodb"] == nil {
		var u repository.Usage
		if ri != nil {
			u = ri.meter.Usage()
		}
		resp.Extensions["dynamodb"] = u
	}
	out, err := json.Marshal(resp)
	return out, err == nil
}
