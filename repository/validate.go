package repository

import (
	"math"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"singletable/apperr"
)

// Input rules shared by every entity. They live here, next to the writes, so that no caller can
// store a value the rules refuse.

// CleanText trims s and checks that it has between minLen and maxLen characters and no control
// characters (newlines and tabs are allowed where multiline is true).
func CleanText(field, s string, minLen, maxLen int, multiline bool) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", apperr.InvalidInput(field, "%s is not valid UTF-8", field)
	}
	// One spelling per text: "José" typed as é or as e and a combining accent is one name, one
	// key, found by either (Unicode NFC, the form keyboards produce).
	s = norm.NFC.String(s)
	n := utf8.RuneCountInString(s)
	if n < minLen {
		if minLen == 1 {
			return "", apperr.InvalidInput(field, "%s must not be empty", field)
		}
		return "", apperr.InvalidInput(field, "%s must have at least %d characters", field, minLen)
	}
	if n > maxLen {
		return "", apperr.InvalidInput(field, "%s must have at most %d characters", field, maxLen)
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t' || r == '\r')) {
			return "", apperr.InvalidInput(field, "%s must not contain control characters", field)
		}
		if !multiline && invisible(r) {
			return "", apperr.InvalidInput(field, "%s must not contain bidirectional controls or zero-width characters (U+%04X)", field, r)
		}
	}
	return s, nil
}

// invisible reports the characters a one-line text (a name, a title, an email, a SKU) may not
// hold: bidirectional controls, which make a name display as another (U+202E turns "txt.exe"
// around), and zero-width characters, which make two names that look alike two keys.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space, non-joiner, joiner; LRM, RLM
		r >= 0x202A && r <= 0x202E, // embeddings and overrides
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069, // isolates
		r == 0x061C, r == 0x180E, r == 0xFEFF:
		return true
	}
	return false
}

// Length limits of text fields, in characters: one set for every domain, so that a field means
// the same wherever it appears (a state is a state, in a mailing address or a location).
const (
	MaxNameLen     = 200
	MaxTitleLen    = 200
	MaxBodyLen     = 10000
	maxEmailLen    = 254
	MaxJobTitleLen = 100
	// MaxAddressLen bounds a location's one-line address.
	MaxAddressLen = 300
	// The parts of a place. A location's country, state, city and postal code are also parts of
	// its key and of its global ID, so they are short: the largest key stays well inside
	// DynamoDB's key size limits even when every character is escaped (see the key tests).
	MaxCountryLen    = 60
	MaxStateLen      = 60
	MaxCityLen       = 100
	MaxPostalCodeLen = 20
	// A mailing address's label and lines.
	MaxAddressLabelLen = 50
	MaxAddressLineLen  = 200
	// An order line's SKU and a placeOrder idempotency key.
	MaxSKULen            = 64
	MaxIdempotencyKeyLen = 100
)

func CleanName(field, s string) (string, error) { return CleanText(field, s, 1, MaxNameLen, false) }

// CleanEmail accepts a bare address (no display name), at most 254 characters, and returns it
// trimmed. Uniqueness compares the case-folded form (see emailGuardKey).
func CleanEmail(field, s string) (string, error) {
	s, err := CleanText(field, s, 1, maxEmailLen, false)
	if err != nil {
		return "", err
	}
	a, perr := mail.ParseAddress(s)
	if perr != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return "", apperr.InvalidInput(field, "%s is not a valid email address", field)
	}
	return s, nil
}

// CheckID validates an entity id taken from a client.
func CheckID(field, id string) error {
	if !ValidID(id) {
		return apperr.InvalidInput(field, "%s is not a valid id", field)
	}
	return nil
}

// MaxMailingAddresses bounds a customer's mailing addresses: 20 covers almost every customer and
// keeps the customer item (which holds them) far below DynamoDB's 400 KB item limit.
const MaxMailingAddresses = 20

// Limits of an order.
const (
	// MaxOrderLines is the most lines one order may have: placeOrder writes the order in ONE
	// TransactWriteItems of at most 100 actions, three of which are the customer check, the
	// idempotency guard and the order itself.
	MaxOrderLines = MaxTransactItems - 3
	// MaxLineQuantity bounds the quantity of one line.
	MaxLineQuantity = 10000
	// MaxOrderTotalCents bounds an order's total: the API returns it as a GraphQL Int, which is a
	// signed 32-bit integer, so a larger total could not be represented.
	MaxOrderTotalCents = math.MaxInt32
	// MaxUnitPriceCents bounds the price of one unit, for the same reason.
	MaxUnitPriceCents = math.MaxInt32
)

// CleanNameAndEmail checks a new person's (a user's, a customer's) name and email as CleanName
// and CleanEmail do, in that order.
func CleanNameAndEmail(name, email string) (string, string, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return "", "", err
	}
	email, err = CleanEmail("email", email)
	return name, email, err
}

func NotFoundField(field, kind string) *apperr.Error {
	return &apperr.Error{Code: apperr.CodeNotFound, Field: field, Message: kind + " not found"}
}
