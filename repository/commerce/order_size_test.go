package commerce_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/repotest"
)

// An order whose lines take stock writes more than a line each: 97 lines of one product's stock
// need 102 writes, and the refusal names the real bound and how many lines fit (95), which then
// place.
func TestOrderSizeRefusalTellsHowManyLinesFit(t *testing.T) {
	w := newStockWorld(t, 1000, &repotest.Throttler{})
	ctx := context.Background()
	var lines []commerce.OrderLine
	for range repository.MaxOrderLines {
		lines = append(lines, w.line(1)...)
	}
	_, _, err := w.repo.PlaceOrder(ctx, w.customer, lines, "too-large")
	var coded *apperr.Error
	if !errors.As(err, &coded) || coded.Code != apperr.CodeBadUserInput || coded.Field != "items" || coded.Count == nil || *coded.Count != 95 ||
		!strings.Contains(coded.Message, "stock") || !strings.Contains(coded.Message, "the first 95 of these lines fit") {
		t.Fatalf("97 stocked lines: %#v", err)
	}
	if _, _, err := w.repo.PlaceOrder(ctx, w.customer, lines[:*coded.Count], "fits"); err != nil {
		t.Fatalf("the lines that fit: %v", err)
	}
}
