package repository

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"singletable/apperr"
)

// Input rules shared by every entity. They live here, next to the writes, so that no caller can
// store a value the rules refuse.

// cleanText trims s and checks that it has between minLen and maxLen characters and no control
// characters (newlines and tabs are allowed where multiline is true).
func cleanText(field, s string, minLen, maxLen int, multiline bool) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", apperr.InvalidInput(field, "%s is not valid UTF-8", field)
	}
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
	}
	return s, nil
}

// Length limits of text fields.
const (
	maxNameLen  = 200
	maxTitleLen = 200
	maxBodyLen  = 10000
	maxEmailLen = 254
)

func cleanName(field, s string) (string, error) { return cleanText(field, s, 1, maxNameLen, false) }

// cleanEmail accepts a bare address (no display name), at most 254 characters, and returns it
// trimmed. Uniqueness compares the case-folded form (see emailGuardKey).
func cleanEmail(field, s string) (string, error) {
	s, err := cleanText(field, s, 1, maxEmailLen, false)
	if err != nil {
		return "", err
	}
	a, perr := mail.ParseAddress(s)
	if perr != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return "", apperr.InvalidInput(field, "%s is not a valid email address", field)
	}
	return s, nil
}

// checkID validates an entity id taken from a client.
func checkID(field, id string) error {
	if !validID(id) {
		return apperr.InvalidInput(field, "%s is not a valid id", field)
	}
	return nil
}
