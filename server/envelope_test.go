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
