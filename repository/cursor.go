package repository

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"

	"singletable/apperr"
)

// Cursors are opaque and tamper-evident: a client can neither read nor forge one. A cursor holds the key attributes of the
// last item a page returned, which is exactly the ExclusiveStartKey DynamoDB needs to continue
// after it (the LastEvaluatedKey of a Query that stopped there).
//
// Tamper-evident: an HMAC-SHA256 tag, keyed from CURSOR_SECRET, covers the encoded key and the
// scope of the list it belongs to (index, partition, key range, filter), so a forged cursor, or
// one from another list, fails the check and gets BAD_USER_INPUT.
//
// Opaque: the encoded key is also encrypted (AES-256-CTR) so that clients cannot read key
// formats out of cursors. The construction is SIV: the tag, computed over the plaintext, is the
// IV, so the same position always yields the same cursor and decryption is checked by
// recomputing the tag.
//
// Layout, base64url without padding:
//
//	version(1) | tag(16) | AES-CTR(for each key attribute: uvarint(len) value)

const (
	cursorVersion = 1
	cursorTagSize = 16
	// maxCursorLen bounds the work spent on a client-supplied cursor before the tag is checked.
	maxCursorLen = 2048
)

var ErrBadCursor = &apperr.Error{Code: apperr.CodeBadUserInput, Field: "after", Message: "invalid cursor: pass an endCursor or edge cursor from the same list"}

type cursorCodec struct {
	macKey []byte
	block  cipher.Block
}

// newCursorCodec derives separate MAC and encryption keys from secret.
func newCursorCodec(secret []byte) cursorCodec {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("singletable cursor encryption"))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	return cursorCodec{macKey: derive("singletable cursor authentication"), block: block}
}

func (c cursorCodec) tag(scope string, plain []byte) []byte {
	m := hmac.New(sha256.New, c.macKey)
	m.Write([]byte{cursorVersion})
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(plain)
	return m.Sum(nil)[:cursorTagSize]
}

func (c cursorCodec) xor(iv, dst, src []byte) {
	cipher.NewCTR(c.block, iv).XORKeyStream(dst, src)
}

// encode returns the cursor for the key attribute values vals (in the order of the list's key
// attributes) within scope.
func (c cursorCodec) encode(scope string, vals []string) string {
	n := 0
	for _, v := range vals {
		n += binary.MaxVarintLen64 + len(v)
	}
	plain := make([]byte, 0, n)
	for _, v := range vals {
		plain = binary.AppendUvarint(plain, uint64(len(v)))
		plain = append(plain, v...)
	}
	tag := c.tag(scope, plain)
	out := make([]byte, 1+cursorTagSize+len(plain))
	out[0] = cursorVersion
	copy(out[1:], tag)
	c.xor(tag, out[1+cursorTagSize:], plain)
	return base64.RawURLEncoding.EncodeToString(out)
}

// Decode checks a cursor against scope and returns its n key attribute values. Every failure is
// the same BAD_USER_INPUT error: the client learns nothing about why a cursor was refused.
func (c cursorCodec) Decode(scope, cursor string, n int) ([]string, error) {
	if len(cursor) == 0 || len(cursor) > maxCursorLen {
		return nil, ErrBadCursor
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(cursor)
	// The decoder skips newlines: accept only the canonical spelling.
	if err != nil || len(raw) < 1+cursorTagSize || raw[0] != cursorVersion || base64.RawURLEncoding.EncodeToString(raw) != cursor {
		return nil, ErrBadCursor
	}
	tag := raw[1 : 1+cursorTagSize]
	plain := make([]byte, len(raw)-1-cursorTagSize)
	c.xor(tag, plain, raw[1+cursorTagSize:])
	if !hmac.Equal(tag, c.tag(scope, plain)) {
		return nil, ErrBadCursor
	}
	vals, err := parseCursorPayload(plain, n)
	if err != nil {
		return nil, ErrBadCursor
	}
	return vals, nil
}

func parseCursorPayload(rest []byte, n int) ([]string, error) {
	vals := make([]string, 0, n)
	for range n {
		l, k := binary.Uvarint(rest)
		if k <= 0 || l > uint64(len(rest)-k) {
			return nil, errors.New("cursor length")
		}
		rest = rest[k:]
		vals = append(vals, string(rest[:l]))
		rest = rest[l:]
	}
	if len(rest) != 0 {
		return nil, errors.New("cursor trailing bytes")
	}
	return vals, nil
}

// NewCursor is a cursor of the Repo's codec over vals, valid for decoding in scope only: what a
// read that pages by something other than a table key (the change log's positions) hands out.
func (r *Repo) NewCursor(scope string, vals ...string) Cursor {
	return Cursor{codec: r.Cursors, scope: scope, vals: vals}
}

// DecodeCursor checks a cursor of scope made by NewCursor (by this process, or by any instance
// sharing the cursor secret) and returns its n values (ErrBadCursor when it is not one).
func (r *Repo) DecodeCursor(scope, cursor string, n int) ([]string, error) {
	return r.Cursors.Decode(scope, cursor, n)
}
