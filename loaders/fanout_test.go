package loaders

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"singletable/apperr"
)

func TestEachKeepsErrorsByIndexAndTurnsPanicsIntoErrors(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int32
	errs := each(4, "test", func(i int) error {
		ran.Add(1)
		switch i {
		case 1:
			return boom
		case 2:
			panic("kaboom")
		}
		return nil
	})
	if ran.Load() != 4 {
		t.Fatalf("%d calls ran, want 4: a failing call must not stop its siblings", ran.Load())
	}
	if errs[0] != nil || errs[3] != nil {
		t.Errorf("errors of the calls that succeeded: %v, %v", errs[0], errs[3])
	}
	if !errors.Is(errs[1], boom) {
		t.Errorf("errs[1] = %v, want boom", errs[1])
	}
	if apperr.CodeOf(errs[2]) != apperr.CodeInternal || !strings.Contains(errs[2].Error(), "kaboom") {
		t.Errorf("errs[2] = %v, want an internal error carrying the panic for the log", errs[2])
	}
	var e *apperr.Error
	if errors.As(errs[2], &e) && strings.Contains(e.Message, "kaboom") {
		t.Errorf("the client-facing message shows the panic: %q", e.Message)
	}
	if len(each(0, "none", func(int) error { panic("not called") })) != 0 {
		t.Error("each(0) returned errors")
	}
}
