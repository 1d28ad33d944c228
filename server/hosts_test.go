package server

import "testing"

func TestLoopbackHostAcceptsOnlyThisMachine(t *testing.T) {
	for _, h := range []string{
		"localhost", "localhost:8080", "LocalHost:8080", "localhost.", "localhost.:8080", "app.localhost",
		"a.b.localhost:3000", "127.0.0.1", "127.0.0.1:8080", "127.8.9.10:1", "[::1]", "[::1]:8080", "[::1]:",
		"[::ffff:127.0.0.1]:8080",
	} {
		if !loopbackHost(h) {
			t.Errorf("loopbackHost(%q) = false", h)
		}
	}
	for _, h := range []string{
		"", "rebind.attacker.example:8080", "attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io",
		"localhostx", "xlocalhost", ".localhost", "localhost:8080@attacker.example", "localhost:http", "localhost:8080:1",
		"10.0.0.1:8080", "0.0.0.0:8080", "[::]:8080", "[fe80::1%25lo]:8080", "[::2]", "128.0.0.1", "192.168.1.10",
		"2130706433", "0x7f.1", "[::1",
	} {
		if loopbackHost(h) {
			t.Errorf("loopbackHost(%q) = true", h)
		}
	}
}
