package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// compose runs a fleet: Redis on a pinned image, and a second instance of the server, both
// instances pointed at that Redis, waiting for it, on ports of their own on the loopback only.
func TestComposeRunsAFleetOfTwoInstancesOnRedis(t *testing.T) {
	c := readCompose(t)
	redis, ok := c.Services["redis"]
	if !ok || !strings.HasPrefix(redis.Image, "redis:") || strings.HasSuffix(redis.Image, ":latest") || !strings.Contains(redis.Image, ":") {
		t.Fatalf("no redis service on a pinned image: %+v", redis)
	}
	published := map[string]string{}
	for _, name := range []string{"server", "server2"} {
		srv, ok := c.Services[name]
		if !ok || srv.Image != c.Services["server"].Image {
			t.Fatalf("no %s service running the server's image", name)
		}
		cfg := composeServiceConfig(t, c, name)
		u, err := url.Parse(cfg.redisURL)
		if err != nil || u.Hostname() != "redis" {
			t.Errorf("%s: REDIS_URL %q does not name the redis service", name, cfg.redisURL)
		}
		if _, waits := srv.DependsOn["redis"]; !waits {
			t.Errorf("%s does not wait for redis: %v", name, srv.DependsOn)
		}
		for _, p := range srv.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s: port %q is not published on the loopback interface only", name, p)
			}
			host := strings.Split(p, ":")[1]
			if other, dup := published[host]; dup {
				t.Errorf("host port %s is published by %s and %s", host, other, name)
			}
			published[host] = name
		}
	}
	if !slices.Contains(c.Services["server2"].Command, "-create-table") {
		t.Errorf("server2 may start first: it must create the table too (idempotent), command %v", c.Services["server2"].Command)
	}
}
