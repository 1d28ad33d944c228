package server

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestLimiterKeyHonoursForwardedForOnlyFromTrustedProxies(t *testing.T) {
	trusted, err := ParseTrustedProxies("10.0.0.0/8, 192.0.2.7 ,fd00::/8")
	if err != nil || len(trusted) != 3 {
		t.Fatalf("%v %v", trusted, err)
	}
	cases := []struct {
		name, peer, xff, want string
	}{
		{"no proxy", "203.0.113.5:4000", "", "ip:203.0.113.5"},
		{"an untrusted peer's header is ignored", "203.0.113.5:4000", "198.51.100.1", "ip:203.0.113.5"},
		{"a trusted proxy names the client", "10.1.2.3:4000", "198.51.100.1", "ip:198.51.100.1"},
		{"a chain of trusted proxies", "10.1.2.3:4000", "198.51.100.1, 192.0.2.7, 10.9.9.9", "ip:198.51.100.1"},
		{"a spoofed left entry is not believed", "10.1.2.3:4000", "1.1.1.1, 198.51.100.1", "ip:198.51.100.1"},
		{"a garbled entry stops at the last trusted hop", "10.1.2.3:4000", "198.51.100.1, garbage", "ip:10.1.2.3"},
		{"only proxies: the leftmost", "10.1.2.3:4000", "10.0.0.9", "ip:10.0.0.9"},
		{"IPv6 clients by their /64", "[2001:db8:1:2:aaaa::1]:4000", "", "ip:2001:db8:1:2::/64"},
		{"IPv4-mapped IPv6 is IPv4", "[::ffff:203.0.113.5]:4000", "", "ip:203.0.113.5"},
		{"a peer that is not an address", "pipe", "", "peer:pipe"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/query", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := limiterKey(r, trusted); got != c.want {
			t.Errorf("%s: key %q, want %q", c.name, got, c.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.local", "10.0.0.1/8/8", "::g"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// FuzzParseTrustedProxies: any input is parsed or refused without panicking, and every block
// accepted contains its own base address.
func FuzzParseTrustedProxies(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8", "192.0.2.7, fd00::/8", "", " , ", "::ffff:1.2.3.4", "1.2.3.4/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseTrustedProxies(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if !p.IsValid() || !p.Contains(p.Addr()) || p != p.Masked() {
				t.Fatalf("%q gave %v", s, p)
			}
			_ = netip.Prefix.String(p)
		}
	})
}
