package server

import "net/http"

// FrameAncestorsNone is the Content-Security-Policy directive that forbids every page from
// framing a response (clickjacking); a page that sets its own policy appends it.
const FrameAncestorsNone = "frame-ancestors 'none'"

// SetSecurityHeaders sets the headers every response carries: browsers must not guess a content
// type other than the declared one (a JSON error echoing input must never run as HTML or
// script), must not frame the response, and send no referrer from it.
func SetSecurityHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	DenyFraming(h)
	h.Set("Referrer-Policy", "no-referrer")
}

// DenyFraming forbids framing for browsers that only know X-Frame-Options; pages with a
// Content-Security-Policy add FrameAncestorsNone to it as well.
func DenyFraming(h http.Header) {
	h.Set("X-Frame-Options", "DENY")
}

// setAPIHeaders is for /query answers: they are per-user data that no cache may keep, and they
// are never a document to render, so they allow no content and no framing at all.
func setAPIHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; "+FrameAncestorsNone)
}

// withSecurityHeaders sets SetSecurityHeaders on every response of next.
func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetSecurityHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}

// withAPIHeaders sets setAPIHeaders on every /query answer.
func withAPIHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setAPIHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}
