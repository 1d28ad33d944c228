package auth

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// signRaw signs a header and a payload given as JSON text, byte for byte, with the test secret:
// a JSON library would merge repeated names before they reach the token.
func signRaw(header, payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	input := enc([]byte(header)) + "." + enc([]byte(payload))
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(input))
	return input + "." + enc(m.Sum(nil))
}

// A correctly signed token whose header or claims repeat a name, at any depth, is refused; the
// same token without the repetition passes. jwx alone keeps the last value: a token that says
// "roles": [] first and "roles": ["admin"] last would be an admin to us and no one to a reader
// that keeps the first.
func TestTokensRepeatingANameAreRefused(t *testing.T) {
	v := hsVerifier(t, Config{})
	const hs = `{"alg":"HS256","typ":"JWT"}`
	exp := fmt.Sprint(now.Add(time.Hour).Unix())
	ok := func(header, payload string) {
		t.Helper()
		if _, err := v.Verify(context.Background(), signRaw(header, payload)); err != nil {
			t.Fatalf("%s.%s refused: %v", header, payload, err)
		}
	}
	ok(hs, `{"sub":"alice","roles":["admin"],"exp":`+exp+`}`)
	// The same name in different objects, and names that differ only in case, are distinct.
	ok(hs, `{"sub":"alice","exp":`+exp+`,"ext":{"sub":"x","a":{"sub":"y"}},"list":[{"k":1},{"k":2}],"Sub":"z"}`)
	for name, tok := range map[string]string{
		"sub twice":               signRaw(hs, `{"sub":"alice","roles":["admin"],"sub":"bob","exp":`+exp+`}`),
		"roles twice":             signRaw(hs, `{"sub":"alice","roles":[],"exp":`+exp+`,"roles":["admin"]}`),
		"a name spelled two ways": signRaw(hs, `{"sub":"alice","s\u0075b":"bob","exp":`+exp+`}`),
		"nested object":           signRaw(hs, `{"sub":"alice","exp":`+exp+`,"ext":{"tenant":"a","tenant":"b"}}`),
		"object inside an array":  signRaw(hs, `{"sub":"alice","exp":`+exp+`,"list":[1,{"k":1,"k":2}]}`),
		"header repeats alg":      signRaw(`{"alg":"HS256","alg":"none"}`, `{"sub":"alice","exp":`+exp+`}`),
		"header repeats typ":      signRaw(`{"alg":"HS256","typ":"JWT","typ":"JWT"}`, `{"sub":"alice","exp":`+exp+`}`),
	} {
		t.Run(name, func(t *testing.T) { wantRefused(t, v, tok, "repeats a claim or header name") })
	}
}

// refRepeated is a second, recursive reading of the same rule, for FuzzRepeatedMemberName to
// compare against: each object's members are read one by one, each value kept raw and read again.
func refRepeated(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		_, _ = dec.Token()
		seen := map[string]bool{}
		for dec.More() {
			tok, _ := dec.Token()
			name, _ := tok.(string)
			if seen[name] {
				return true
			}
			seen[name] = true
			var value json.RawMessage
			if dec.Decode(&value) != nil || refRepeated(value) {
				return true
			}
		}
	case '[':
		var items []json.RawMessage
		_ = json.Unmarshal(raw, &items)
		for _, it := range items {
			if refRepeated(it) {
				return true
			}
		}
	}
	return false
}

// FuzzRepeatedMemberName: on any input of a token's size, repeatedMemberName refuses what is not
// one JSON value, and on JSON it finds a repeated name exactly when the recursive reading does.
func FuzzRepeatedMemberName(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1},"c":{"b":1}}`, `[{"x":[{"y":1,"y":2}]}]`, `{"\u0061":1,"a":2}`,
		`{}`, `[]`, `"s"`, `1 2`, `{"a":1}{"a":1}`, `{"a":[1,2,{"b":null}],"b":true}`, ``, `{"a"}`, `{"a":1,}`, `"" [`, `{"a":[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > maxTokenLen {
			return
		}
		err := repeatedMemberName(doc)
		switch {
		case !json.Valid(doc):
			if err == nil {
				t.Fatalf("accepted invalid JSON %q", doc)
			}
		case refRepeated(doc):
			if !errors.Is(err, errRepeatedName) {
				t.Fatalf("%q repeats a name; got %v", doc, err)
			}
		case err != nil:
			t.Fatalf("%q repeats no name; got %v", doc, err)
		}
	})
}

// The check reads the segments as the token carries them: padding is tolerated, a segment that
// is not base64url is not a token.
func TestCheckSegmentNamesReadsBothSegments(t *testing.T) {
	tok := signRaw(`{"alg":"HS256"}`, `{"sub":"a"}`)
	if err := checkSegmentNames(tok); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	if err := checkSegmentNames(parts[0] + "==." + parts[1] + "." + parts[2]); err != nil {
		t.Fatalf("padded header: %v", err)
	}
	if err := checkSegmentNames("*." + parts[1] + "." + parts[2]); err == nil || errors.Is(err, errRepeatedName) {
		t.Fatalf("a header that is not base64url: %v", err)
	}
}
