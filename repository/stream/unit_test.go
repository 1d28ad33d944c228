package stream

import (
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Every kind of attribute value converts from the stream's Go type to the client's, nested
// kinds recursively: the image has one attribute of each of the ten kinds of the union (S, N,
// B, BOOL, NULL, SS, NS, BS, M, L).
func TestStreamImageConversionCoversEveryKind(t *testing.T) {
	img := map[string]stypes.AttributeValue{
		"s":    &stypes.AttributeValueMemberS{Value: "text"},
		"n":    &stypes.AttributeValueMemberN{Value: "12.5"},
		"b":    &stypes.AttributeValueMemberB{Value: []byte{1, 2}},
		"bool": &stypes.AttributeValueMemberBOOL{Value: true},
		"null": &stypes.AttributeValueMemberNULL{Value: true},
		"ss":   &stypes.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":   &stypes.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs":   &stypes.AttributeValueMemberBS{Value: [][]byte{{3}, {4}}},
		"m": &stypes.AttributeValueMemberM{Value: map[string]stypes.AttributeValue{
			"inner": &stypes.AttributeValueMemberL{Value: []stypes.AttributeValue{&stypes.AttributeValueMemberS{Value: "x"}}},
		}},
		"l": &stypes.AttributeValueMemberL{Value: []stypes.AttributeValue{
			&stypes.AttributeValueMemberN{Value: "1"},
			&stypes.AttributeValueMemberM{Value: map[string]stypes.AttributeValue{"k": &stypes.AttributeValueMemberBOOL{Value: false}}},
		}},
	}
	want := map[string]types.AttributeValue{
		"s":    &types.AttributeValueMemberS{Value: "text"},
		"n":    &types.AttributeValueMemberN{Value: "12.5"},
		"b":    &types.AttributeValueMemberB{Value: []byte{1, 2}},
		"bool": &types.AttributeValueMemberBOOL{Value: true},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{3}, {4}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
		}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "1"},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberBOOL{Value: false}}},
		}},
	}
	got, err := fromStreamImage(img)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("converted %#v\nwant %#v", got, want)
	}
	if _, err := fromStreamImage(map[string]stypes.AttributeValue{"x": &stypes.UnknownUnionMember{Tag: "NEW"}}); err == nil {
		t.Fatal("an unknown kind must be an error, not a silent drop")
	}
}

func shard(id, parent string, closed bool) stypes.Shard {
	s := stypes.Shard{ShardId: aws.String(id), SequenceNumberRange: &stypes.SequenceNumberRange{StartingSequenceNumber: aws.String("1")}}
	if parent != "" {
		s.ParentShardId = aws.String(parent)
	}
	if closed {
		s.SequenceNumberRange.EndingSequenceNumber = aws.String("9")
	}
	return s
}

// The shard plan: at start, closed shards are history and open ones are read from their newest
// record; later shards are read from their oldest, each only after its parent is read to its end;
// shards done and no longer listed are forgotten.
func TestStreamShardPlanFollowsLineage(t *testing.T) {
	p := newShardPlan()
	p.update([]stypes.Shard{shard("a", "", true), shard("b", "a", false), shard("c", "", false)}, true, none)
	if got := p.ready(); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("ready at start %v, want the open shards b and c", got)
	}
	if p.shards["b"].start != stypes.ShardIteratorTypeLatest || p.shards["c"].start != stypes.ShardIteratorTypeLatest || !p.shards["a"].done {
		t.Fatalf("start positions %+v %+v, a done %v", *p.shards["b"], *p.shards["c"], p.shards["a"].done)
	}
	// b splits into d and e, which appear before b is read to its end; f's parent was trimmed.
	p.update([]stypes.Shard{shard("a", "", true), shard("b", "a", true), shard("c", "", false),
		shard("d", "b", false), shard("e", "b", false), shard("f", "gone", false)}, false, none)
	if got := p.ready(); !slices.Equal(got, []string{"f"}) {
		t.Fatalf("ready while b is read %v, want f alone", got)
	}
	p.finished("b")
	if got := p.ready(); !slices.Equal(got, []string{"d", "e"}) {
		t.Fatalf("ready after b %v, want d and e", got)
	}
	for _, id := range []string{"d", "e", "f"} {
		if p.shards[id].start != stypes.ShardIteratorTypeTrimHorizon {
			t.Fatalf("%s starts at %s, want TRIM_HORIZON", id, p.shards[id].start)
		}
	}
	if len(p.awaiting) != 1 || !p.awaiting["b"] {
		t.Fatalf("awaiting %v", p.awaiting)
	}
	// a and b trimmed from the description: forgotten; the children are what b awaited. f
	// vanished while it was read: its reader must stop.
	vanished := p.update([]stypes.Shard{shard("c", "", false), shard("d", "b", false), shard("e", "b", false)}, false, none)
	if _, ok := p.shards["a"]; ok || len(p.awaiting) != 0 || len(p.shards) != 3 || !slices.Equal(vanished, []string{"f"}) {
		t.Fatalf("after trimming: shards %v, awaiting %v, vanished %v", p.shards, p.awaiting, vanished)
	}
	if p.allDone() {
		t.Fatal("open shards are not done")
	}
}

// At start, an open shard whose parent is still open waits for it and then reads from its
// oldest record, not its newest: what was written to it meanwhile is not skipped.
func TestStreamShardPlanOpenChildOfOpenParent(t *testing.T) {
	p := newShardPlan()
	p.update([]stypes.Shard{shard("child", "parent", false), shard("parent", "", false)}, true, none)
	if got := p.ready(); !slices.Equal(got, []string{"parent"}) {
		t.Fatalf("ready %v", got)
	}
	p.finished("parent")
	if got := p.ready(); !slices.Equal(got, []string{"child"}) || p.shards["child"].start != stypes.ShardIteratorTypeTrimHorizon {
		t.Fatalf("ready %v, child starts at %s", got, p.shards["child"].start)
	}
}

// none is the continued of a reader that finds no checkpoint and no start mark.
func none(string) bool { return false }

// At start, a shard a previous reader read (a checkpoint or a start mark) is read on even when it
// has closed since (its last records may not be in the log yet), and so are its descendants, from
// their oldest records; a closed shard of no reader's lineage stays history, and an open shard of
// none is read from its newest record.
func TestStreamShardPlanContinuesAPreviousReadersShards(t *testing.T) {
	p := newShardPlan()
	continued := func(id string) bool { return id == "read" }
	p.update([]stypes.Shard{shard("read", "", true), shard("child", "read", true), shard("grandchild", "child", false),
		shard("history", "", true), shard("open", "history", false)}, true, continued)
	if got := p.ready(); !slices.Equal(got, []string{"open", "read"}) {
		t.Fatalf("ready at start %v, want the previous reader's closed shard and the open shard of no lineage", got)
	}
	if !p.shards["history"].done || p.shards["child"].done || p.shards["open"].start != stypes.ShardIteratorTypeLatest {
		t.Fatalf("history done %v, child done %v, open starts at %s", p.shards["history"].done, p.shards["child"].done, p.shards["open"].start)
	}
	p.finished("read")
	p.finished(p.ready()[0])
	if got := p.ready(); !slices.Equal(got, []string{"grandchild"}) || p.shards["child"].start != stypes.ShardIteratorTypeTrimHorizon ||
		p.shards["grandchild"].start != stypes.ShardIteratorTypeTrimHorizon {
		t.Fatalf("ready %v; child starts at %s, grandchild at %s: want their oldest records", got, p.shards["child"].start, p.shards["grandchild"].start)
	}
}

func TestStreamSequenceOrder(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		after bool
	}{
		{"100", "99", true}, {"99", "100", false}, {"000000000000000000012", "000000000000000000011", true}, {"5", "5", false},
	} {
		if got := sequenceAfter(c.a, c.b); got != c.after {
			t.Errorf("sequenceAfter(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
