// Package fleettest gives tests a Redis: the one scripts/with-dynamodb-local.sh starts for the
// whole run (TEST_REDIS_URL), or one of the test's own that it can stop and start again.
package fleettest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
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

// Redis is a redis-server of the test's own, in memory, on a port that stays its own across
// Stop and Start.
type Redis struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
}

// Start starts a Redis of the test's own (skipped or fatal as URL is without the run's Redis,
// which says redis-server is installed); it is stopped when the test ends.
func Start(t testing.TB) *Redis {
	t.Helper()
	URL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Redis{t: t, port: ln.Addr().(*net.TCPAddr).Port}
	_ = ln.Close()
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is this Redis's address.
func (r *Redis) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// Start starts the server again (empty: it keeps nothing in memory across a stop).
func (r *Redis) Start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.port)); err == nil {
			_ = c.Close()
			return
		}
	}
	r.t.Fatalf("redis-server did not listen on %d", r.port)
}

// Stop kills the server.
func (r *Redis) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}
