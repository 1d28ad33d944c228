package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"singletable/auth"
)

// limiterKey returns the key a request is rate-limited under: the principal that sent it. That is
// the verified token's subject (authentication runs before the limiter), so one user gets one
// bucket whichever addresses it calls from. A request without a subject (AUTH_DISABLED) is keyed
// by the client's IP address, an IPv6 client by its /64, the block one subscriber gets, so that
// rotating addresses inside it does not buy a fresh bucket.
func limiterKey(r *http.Request, trusted []netip.Prefix) string {
	if p, ok := auth.FromContext(r.Context()); ok && p.Subject != "" {
		return subjectKey(p.Subject)
	}
	return addressKey(r, trusted)
}

// subjectKey is limiterKey of a principal with a subject.
func subjectKey(subject string) string { return "sub:" + subject }

// addressKey is limiterKey of a request without a subject: its client's address.
func addressKey(r *http.Request, trusted []netip.Prefix) string {
	ip := clientIP(r, trusted)
	if !ip.IsValid() {
		return "peer:" + r.RemoteAddr
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + ip.String()
}

type principalKeyCtx struct{}

// withPrincipalKey puts the request's limiterKey into its context, once authentication has put
// the principal there: the rate limiter and the persisted-query cache (perPrincipal) key on it.
func withPrincipalKey(trusted []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKeyCtx{}, limiterKey(r, trusted))))
	})
}

// principalKey is the key of the principal ctx acts for: the subject of the token verified for
// it, wherever the token came from (a request's Authorization header, or a WebSocket's
// connection_init, which arrives after the upgrade withPrincipalKey saw without a token), else
// the key withPrincipalKey stored (the client's address); ok is false outside its chain.
func principalKey(ctx context.Context) (key string, ok bool) {
	if p, found := auth.FromContext(ctx); found && p.Subject != "" {
		return subjectKey(p.Subject), true
	}
	key, ok = ctx.Value(principalKeyCtx{}).(string)
	return key, ok
}

// clientIP is the address of the client that sent r. X-Forwarded-For is believed only when the
// direct peer is a trusted proxy: then the entries are read from the right (the hop nearest to
// us), skipping trusted proxies, and the first untrusted address is the client. Anyone can write
// an X-Forwarded-For header, so an untrusted peer's is ignored.
func clientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHostAddr(r.RemoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return client // a garbled entry: the last hop we could trust is as far as we know
		}
		client = hop.Unmap()
		if !isTrusted(client, trusted) {
			return client
		}
	}
	return client
}

func parseHostAddr(hostport string) netip.Addr {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}

func isTrusted(ip netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies parses TRUSTED_PROXIES: a comma-separated list of IP addresses and CIDR
// blocks (10.0.0.0/8, 192.0.2.7, fd00::/8). Empty means no proxy is trusted.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or CIDR block", part)
			}
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR block", part)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}
