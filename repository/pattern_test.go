package repository

import (
	"strings"
	"testing"
)

// TestEveryPatternIsWellFormed checks what a declaration must say: a unique name, a number, a
// partition key for every read that calls, and as many sort key operands as its condition takes.
func TestEveryPatternIsWellFormed(t *testing.T) {
	names := map[string]bool{}
	numbers := map[int]bool{}
	for _, p := range patterns {
		if names[p.Name] {
			t.Errorf("%s is declared twice", p.Name)
		}
		names[p.Name] = true
		n := patternNumber(p.ID)
		if n == 0 || p.What == "" || p.Fields == "" {
			t.Errorf("%s: ID %q, what %q, fields %q", p.Name, p.ID, p.What, p.Fields)
		}
		numbers[n] = true
		if p.Operation == NoCall {
			continue
		}
		if p.PartitionKey == "" || p.Calls == 0 {
			t.Errorf("%s: no partition key or no scaling", p.Name)
		}
		if got, want := len(p.SortKey), sortOperands[p.Sort]; got != want {
			t.Errorf("%s: %d sort key operands, its condition takes %d", p.Name, got, want)
		}
		if (p.Operation == Query) == (p.Sort == SortKeyIs) {
			t.Errorf("%s: a Query names a range, a lookup one key (operation %s, sort %d)", p.Name, p.Operation, p.Sort)
		}
	}
	for n := 1; n <= len(numbers); n++ {
		if !numbers[n] {
			t.Errorf("no access pattern AP%d (the numbers run from 1 without a gap)", n)
		}
	}
}

var sortOperands = map[SortCondition]int{WholePartition: 0, SortKeyIs: 1, SortKeyBeginsWith: 1, SortKeyBetween: 2, SortKeyAtLeast: 1, SortKeyAtMost: 1, SortKeyAfter: 1}

func TestKeyConditionSpellsEachSortCondition(t *testing.T) {
	for _, c := range []struct {
		p          AccessPattern
		doc, expr  string
		pk         string
		sk         []string
		wantValues []string
	}{
		{AccessPattern{PartitionKey: "ORG#<o>"}, "PK = ORG#<o>", "PK = :pk", "ORG#1", nil, []string{":pk"}},
		{AccessPattern{Index: GSI1, PartitionKey: "A#<a>", Sort: SortKeyBeginsWith, SortKey: []string{"T#"}}, `GSI1PK = A#<a> AND begins_with(GSI1SK, "T#")`, "GSI1PK = :pk AND begins_with(GSI1SK, :sk)", "A#1", []string{"T#"}, []string{":pk", ":sk"}},
		{AccessPattern{Index: GSI3, PartitionKey: "S#<s>", Sort: SortKeyBetween, SortKey: []string{"<lo>", "<hi>"}}, "GSI3PK = S#<s> AND GSI3SK BETWEEN <lo> AND <hi>", "GSI3PK = :pk AND GSI3SK BETWEEN :lo AND :hi", "S#1", []string{"a", "b"}, []string{":pk", ":lo", ":hi"}},
		{AccessPattern{Index: GSI2, PartitionKey: "TYPE#E", Sort: SortKeyAtLeast, SortKey: []string{"<since>"}}, "GSI2PK = TYPE#E AND GSI2SK >= <since>", "GSI2PK = :pk AND GSI2SK >= :sk", "TYPE#E", []string{"x"}, []string{":pk", ":sk"}},
		{AccessPattern{PartitionKey: "U#<u>", Sort: SortKeyAtMost, SortKey: []string{"USER#<u>"}}, "PK = U#<u> AND SK <= USER#<u>", "PK = :pk AND SK <= :sk", "U#1", []string{"USER#1"}, []string{":pk", ":sk"}},
		{AccessPattern{PartitionKey: "C#<c>", Sort: SortKeyAfter, SortKey: []string{"<n>"}}, "PK = C#<c> AND SK > <n>", "PK = :pk AND SK > :sk", "C#1", []string{"5"}, []string{":pk", ":sk"}},
		{AccessPattern{Operation: BatchGetItem, PartitionKey: "DEPT#<d>", Sort: SortKeyIs, SortKey: []string{"DEPT#<d>"}}, "PK = SK = DEPT#<d>", "PK = :pk AND SK = :sk", "DEPT#1", []string{"DEPT#1"}, []string{":pk", ":sk"}},
		{AccessPattern{Operation: BatchGetItem, PartitionKey: "ORG#<o>", Sort: SortKeyIs, SortKey: []string{"USER#<u>"}}, "PK = ORG#<o>, SK = USER#<u>", "PK = :pk AND SK = :sk", "ORG#1", []string{"USER#2"}, []string{":pk", ":sk"}},
	} {
		if got := c.p.KeyCondition(); got != c.doc {
			t.Errorf("KeyCondition() = %q, want %q", got, c.doc)
		}
		if got := c.p.keyExpression(); got != c.expr {
			t.Errorf("keyExpression() = %q, want %q", got, c.expr)
		}
		values := c.p.keyValues(c.pk, c.sk...)
		if len(values) != len(c.wantValues) {
			t.Errorf("%s: values %v, want %v", c.expr, values, c.wantValues)
		}
		for _, v := range c.wantValues {
			if values[v] == nil {
				t.Errorf("%s: no value %s", c.expr, v)
			}
		}
	}
}

// FuzzKeyExpressionNamesItsValues: whatever the keys, the expression of every declared pattern
// names exactly the values it is given, so DynamoDB never refuses a request for a missing or an
// unused value.
func FuzzKeyExpressionNamesItsValues(f *testing.F) {
	f.Add("ORG#1", "USER#", "USER#~")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, pk, lo, hi string) {
		for _, p := range patterns {
			if p.Operation == NoCall {
				continue
			}
			sk := []string{lo, hi}[:sortOperands[p.Sort]]
			in := p.Input("table", pk, sk...)
			expr := *in.KeyConditionExpression
			for name := range in.ExpressionAttributeValues {
				if !strings.Contains(expr, name) {
					t.Fatalf("%s: value %s not in %q", p.Name, name, expr)
				}
			}
			for _, name := range []string{":pk", ":sk", ":lo", ":hi"} {
				if strings.Contains(expr, name) && in.ExpressionAttributeValues[name] == nil {
					t.Fatalf("%s: %q names %s without a value", p.Name, expr, name)
				}
			}
			if (in.IndexName == nil) != (p.Index == "") || *in.ScanIndexForward == p.Backward {
				t.Fatalf("%s: index or direction not the declaration's", p.Name)
			}
		}
	})
}
