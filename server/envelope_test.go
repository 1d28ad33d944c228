package server

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestRequestErrorStatusByMediaType(t *testing.T) {
	cases := []struct {
		status      int
		contentType string
		want        int
	}{
		{http.StatusUnprocessableEntity, "application/json", http.StatusOK},
		{http.StatusUnprocessableEntity, "application/json; charset=utf-8", http.StatusOK},
		{http.StatusUnprocessableEntity, "application/graphql-response+json", http.StatusUnprocessableEntity},
		{http.StatusUnprocessableEntity, "", http.StatusUnprocessableEntity},
		{http.StatusBadRequest, "application/json", http.StatusBadRequest}, // malformed JSON stays 400
		{http.StatusBadRequest, "application/graphql-response+json", http.StatusBadRequest},
		{http.StatusNotAcceptable, "application/json", http.StatusNotAcceptable},
		{http.StatusRequestEntityTooLarge, "application/json", http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		if got := requestErrorStatus(c.status, c.contentType); got != c.want {
			t.Errorf("requestErrorStatus(%d, %q) = %d, want %d", c.status, c.contentType, got, c.want)
		}
	}
}

func TestAddErrorCodesDropsOnlyANullDataEntry(t *testing.T) {
	for body, wantData := range map[string]bool{
		`{"data":null,"errors":[{"message":"x"}]}`:                 false,
		`{"errors":[{"message":"x"}]}`:                             false,
		`{"data":{"a":1},"errors":[{"message":"x","path":["a"]}]}`: true,
	} {
		out, ok := addErrorCodes([]byte(body), http.StatusBadRequest, nil)
		if !ok {
			t.Fatalf("%s: not rewritten", body)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if _, has := got["data"]; has != wantData {
			t.Errorf("%s -> %s: data entry present = %v, want %v", body, out, has, wantData)
		}
		if len(got["extensions"]) == 0 || !json.Valid(got["errors"]) {
			t.Errorf("%s -> %s: no extensions", body, out)
		}
	}
	if _, ok := addErrorCodes([]byte(`not json`), http.StatusBadRequest, nil); ok {
		t.Error("a body that is not JSON was rewritten")
	}
}

// addErrorCodes reads response bodies: whatever it is given, it must not panic, and what it
// returns is JSON whose errors all have a code and that has no null data entry.
func FuzzAddErrorCodes(f *testing.F) {
	f.Add([]byte(`{"data":null,"errors":[{"message":"x"}]}`), 400)
	f.Add([]byte(`{"errors":[{"message":"x","extensions":{"code":"GRAPHQL_PARSE_FAILED"}}],"extensions":{"a":1}}`), 422)
	f.Add([]byte(`{"errors":[]}`), 500)
	f.Add([]byte(`[1,2]`), 400)
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		out, ok := addErrorCodes(body, status, nil)
		if !ok {
			return
		}
		var top map[string]json.RawMessage
		var resp struct {
			Errors []struct {
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		if json.Unmarshal(out, &top) != nil || json.Unmarshal(out, &resp) != nil {
			t.Fatalf("output is not a JSON object with errors: %s", out)
		}
		if d, has := top["data"]; has && string(d) == "null" {
			t.Fatalf("null data entry kept: %s", out)
		}
		for _, e := range resp.Errors {
			if e.Extensions["code"] == nil {
				t.Fatalf("an error without a code: %s", out)
			}
		}
	})
}
