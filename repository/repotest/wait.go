package repotest

import (
	"testing"
	"time"
)

// Wait bounds every wait of a test for something that happens in the background (a change
// arriving from the table's stream, an outage being noticed). Tests wait for the event, never
// sleep and then assert.
const Wait = 30 * time.Second

// WaitFor polls cond until it holds, or fails the test after Wait.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
