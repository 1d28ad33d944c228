// Package fleettest gives tests a Redis: the one scripts/with-dynamodb-local.sh starts for the
// whole run (TEST_REDIS_URL), or one of the test's own that it can stop and start again.
package fleettest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// URL returns the run's Redis. Without one the test is skipped, except in CI (CI set), where the
// tests of the fleet must run.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TEST_REDIS_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_REDIS_URL is not set: run the tests with scripts/with-dynamodb-local.sh (make test)")
		}
		t.Skip("no Redis: run with scripts/with-dynamodb-local.sh (make test)")
	}
	return u
}

// Redis is a Redis of the test's own, started and stopped by scripts/redis.sh (as make fleet's
// and the test run's are), on a port that stays its own across Stop and Start.
type Redis struct {
	t       testing.TB
	port    int
	pidfile string
}

// Start starts a Redis of the test's own (skipped or fatal as URL is without the run's Redis,
// which says the script has installed redis-server); it is stopped when the test ends.
func Start(t testing.TB) *Redis {
	t.Helper()
	URL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Redis{t: t, port: ln.Addr().(*net.TCPAddr).Port, pidfile: filepath.Join(t.TempDir(), "redis.pid")}
	_ = ln.Close()
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is this Redis's address.
func (r *Redis) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// Start starts the server again (empty: it keeps nothing across a stop).
func (r *Redis) Start() {
	r.t.Helper()
	if out, err := exec.Command(script(), "start", fmt.Sprint(r.port), r.pidfile).CombinedOutput(); err != nil {
		r.t.Fatalf("scripts/redis.sh start: %v\n%s", err, out)
	}
}

// Stop stops the server.
func (r *Redis) Stop() {
	if out, err := exec.Command(script(), "stop", r.pidfile).CombinedOutput(); err != nil {
		r.t.Errorf("scripts/redis.sh stop: %v\n%s", err, out)
	}
}

// script is scripts/redis.sh, found from this file's place in the repository.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "redis.sh")
}
