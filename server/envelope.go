package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"singletable/apperr"
)

// withErrorEnvelope keeps the API's contract for the few errors gqlgen's transports write by
// themselves, outside the error presenter: a mutation sent with GET, a body that is not JSON or is
// too large, an unsupported content type. Those answers have a 4xx status and errors without
// extensions; this middleware buffers only such answers and adds extensions.code
// (BAD_USER_INPUT for 4xx, INTERNAL_SERVER_ERROR for 5xx) and extensions.dynamodb, and gives
// the statuses GraphQL over HTTP asks for (requestErrorStatus). It also drops the "data": null
// gqlgen writes into the answer of an explain, which ran nothing and so has no data entry.
// Other successful responses stream through untouched.
func withErrorEnvelope(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := requestInfoFrom(r.Context())
		ew := &envelopeWriter{ResponseWriter: w, ri: ri}
		next.ServeHTTP(ew, r)
		if ew.buf == nil {
			return
		}
		body := ew.buf.Bytes()
		if ew.plan {
			body = withoutData(body)
		} else if fixed, ok := addErrorCodes(body, ew.status, ri); ok {
			body = fixed
		}
		status := requestErrorStatus(ew.status, w.Header().Get("Content-Type"))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// writeError answers with a GraphQL error response of our own making, coded by its status.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	writeCodedError(w, r, status, "", msg)
}

// writeCodedError answers with a GraphQL error response of our own making with the given
// extensions.code (by status when empty).
func writeCodedError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	writeLimitError(w, r, status, code, "", msg)
}

// writeLimitError is writeCodedError for a refusal by a limit, named in extensions.limit
// (none when empty).
func writeLimitError(w http.ResponseWriter, r *http.Request, status int, code, limit, msg string) {
	e := map[string]any{"message": msg}
	ext := map[string]any{}
	if code != "" {
		ext["code"] = code
	}
	if limit != "" {
		ext["limit"] = limit
	}
	if len(ext) > 0 {
		e["extensions"] = ext
	}
	body, _ := json.Marshal(map[string]any{"errors": []map[string]any{e}})
	if fixed, ok := addErrorCodes(body, status, requestInfoFrom(r.Context())); ok {
		body = fixed
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

type envelopeWriter struct {
	http.ResponseWriter
	ri     *requestInfo
	status int
	buf    *bytes.Buffer // non-nil once an error status was written, or an explain's answer
	plan   bool          // buf holds an explain's answer
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
	if w.status == 0 && w.ri != nil && w.ri.isExplained() {
		w.status, w.plan, w.buf = http.StatusOK, true, &bytes.Buffer{}
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.buf != nil {
		return w.buf.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *envelopeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush implements http.Flusher for Server-Sent Events; a buffered error answer is not flushed.
func (w *envelopeWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.buf == nil {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// requestErrorStatus is the status of an answer gqlgen refused before execution, by the media type
// it is sent as (GraphQL over HTTP): a document that does not parse or validate, or variables that
// do not coerce, is 422 from gqlgen; under application/json it is 200 (the legacy media type says a
// well-formed request gets 200, errors or not); under application/graphql-response+json it is
// 400, which gqlgen already sends.
func requestErrorStatus(status int, contentType string) int {
	if status != http.StatusUnprocessableEntity {
		return status
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && mt == "application/json" {
		return http.StatusOK
	}
	return status
}

// withoutData is an answer without its data entry.
func withoutData(body []byte) []byte {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(body, &resp); err != nil {
		return body
	}
	delete(resp, "data")
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}

// addErrorCodes gives every error of a refused request its extensions.code, adds the cost
// extension, and drops the "data": null entry: a request refused before execution has no data
// entry at all (GraphQL over HTTP: clients tell a request error from a field error by it).
func addErrorCodes(body []byte, status int, ri *requestInfo) ([]byte, bool) {
	var resp struct {
		Data       json.RawMessage  `json:"data,omitempty"`
		Errors     []map[string]any `json:"errors"`
		Extensions map[string]any   `json:"extensions,omitempty"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Errors) == 0 {
		return nil, false
	}
	if string(resp.Data) == "null" {
		resp.Data = nil
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
		resp.Extensions["dynamodb"] = dynamoDBOf(ri)
	}
	out, err := json.Marshal(resp)
	return out, err == nil
}

// withRequestBody reads a request's body before anything parses it, so that:
//   - a body over maxRequestBody bytes gets 413, whether it declares its length or is sent
//     chunked (the reader stops at the limit; nothing past it is buffered);
//   - a JSON body that is not a GraphQL request object gets 400 with a short message. gqlgen's
//     own message would quote the whole body back, up to a megabyte of it.
func withRequestBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tooLarge := fmt.Sprintf("The request body is larger than %d bytes.", maxRequestBody)
		if r.ContentLength > maxRequestBody {
			writeError(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return
		}
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeError(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return
		case err != nil:
			writeError(w, r, http.StatusBadRequest, "The request body could not be read.")
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" && r.Method == http.MethodPost {
			if msg := checkRequestJSON(body); msg != "" {
				writeError(w, r, http.StatusBadRequest, msg)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// checkRequestJSON says what is wrong with a POSTed GraphQL request body, in a sentence that
// never quotes the body, or "" when it is well formed.
func checkRequestJSON(body []byte) string {
	if !json.Valid(body) {
		return "The request body is not valid JSON."
	}
	var req struct {
		Query         *string        `json:"query"`
		OperationName *string        `json:"operationName"`
		Variables     map[string]any `json:"variables"`
		Extensions    map[string]any `json:"extensions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return `The request body must be a JSON object with a string "query", and optional "operationName" (a string), "variables" and "extensions" (objects).`
	}
	return ""
}
