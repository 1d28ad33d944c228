package server

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// withLoopbackHost refuses, when on, every request whose Host header is not a loopback name or
// address (loopbackHost), with 421 Misdirected Request and a FORBIDDEN error, before any route
// runs. It defends a development server whose playground page carries an admin token against DNS
// rebinding: a web page on attacker.example can make its own name resolve to 127.0.0.1 and then
// read the server's answers as same-origin, but the browser still sends Host: attacker.example.
// 421 rather than 403: the request is not forbidden to its sender, it is addressed to an
// authority this server does not serve (RFC 9110 §15.5.20).
func withLoopbackHost(on bool, next http.Handler) http.Handler {
	if !on {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			writeCodedError(w, r, http.StatusMisdirectedRequest, "FORBIDDEN",
				"This development server answers only requests addressed to localhost, 127.0.0.1 or [::1].")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header value names this machine only: localhost or a name
// under .localhost (RFC 6761 §6.3: such names never leave the machine, and browsers resolve them
// to the loopback without asking DNS, so no one can rebind them), an address in 127.0.0.0/8, or
// ::1 (bracketed), each with or without a port. Names are case-insensitive and may end in a dot.
func loopbackHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
		if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
			host = host[1 : len(host)-1]
		}
	}
	if strings.Trim(port, "0123456789") != "" {
		return false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Zone() == "" && ip.Unmap().IsLoopback()
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	return name == "localhost" || (strings.HasSuffix(name, ".localhost") && !strings.HasPrefix(name, "."))
}
