package model

import (
	"testing"

	"singletable/repository"
)

// An empty page has no cursors: startCursor and endCursor are null, not "".
func TestEmptyPageInfoHasNullCursors(t *testing.T) {
	pi := &PageInfo{Empty: true}
	if pi.StartCursor() != nil || pi.EndCursor() != nil {
		t.Fatalf("cursors of an empty page: %v, %v", pi.StartCursor(), pi.EndCursor())
	}
	var zero repository.Cursor
	if zero.String() != "" || (Cursored{}).Cursor() != "" {
		t.Fatal("the zero position must seal to the empty string")
	}
}
