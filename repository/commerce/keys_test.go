package commerce

import (
	"fmt"
	"testing"
)

// Order lines are numbered with at least three digits, exactly as %03d spells them, so that the
// items of an order keep sorting in line order.
func TestLineNumberIsZeroPadded(t *testing.T) {
	for n := 0; n <= 2000; n++ {
		if pad, digits := lineNumber(n); pad+digits != fmt.Sprintf("%03d", n) {
			t.Fatalf("lineNumber(%d) = %q %q, want %03d", n, pad, digits, n)
		}
	}
}
