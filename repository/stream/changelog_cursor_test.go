package stream

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"singletable/repository"
)

// A change cursor carries the change's position; a cursor of the log's earlier form (a stream
// record's sequence number, sealed by this server) is CURSOR_EXPIRED, not BAD_USER_INPUT: the
// client refetches, as for an expired one. An altered one is BAD_USER_INPUT.
func TestChangeCursorCarriesAPosition(t *testing.T) {
	repo, err := repository.New(context.Background(), repository.Config{Table: "t", Region: "us-east-1", Endpoint: "http://127.0.0.1:9", CursorSecret: []byte("secret"), ChangeRetention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r := New(repo)
	scope := TicketChangeScope("o1", "")
	logged := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	pos, err := r.OpenChangeCursor(r.ChangeCursorAt(scope, ChangePosition{Position: 42, Logged: logged}).String())
	if err != nil || pos.Position != 42 || pos.Scope != scope || !pos.Logged.Equal(logged) {
		t.Fatalf("opened %+v, %v", pos, err)
	}
	ms := strconv.FormatInt(logged.UnixMilli(), 10)
	old := r.NewCursor(changeCursorScope, scope.Log, "", "000000000000000000123456789", ms)
	if _, err := r.OpenChangeCursor(old.String()); !errors.Is(err, ErrCursorRetired) {
		t.Fatalf("a sequence number's cursor: %v, want CURSOR_EXPIRED", err)
	}
	bad := r.NewCursor(changeCursorScope, scope.Log, "", "pX", ms)
	if _, err := r.OpenChangeCursor(bad.String()); !errors.Is(err, repository.ErrBadCursor) {
		t.Fatalf("a position that is no number: %v, want BAD_USER_INPUT", err)
	}
}
