package stream

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/saas"
)

// A change read from the stream travels to another process and decodes to the same entities,
// kind, key, shard and sequence.
func TestChangeWireRoundTrip(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Wire")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com"); err != nil { // counts it on the organization
		t.Fatal(err)
	}
	got := c.Until(t, func(ch Change) bool { return ch.Kind == ChangeUpdated && ch.Key == org.Key() })
	for _, ch := range got {
		b, err := EncodeChange(ch)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeChange(b)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Shard == "" || back.Shard != ch.Shard || back.Sequence != ch.Sequence || back.Kind != ch.Kind || back.Key != ch.Key || !back.At.Equal(ch.At) {
			t.Errorf("round trip of %+v gave %+v", ch, back)
		}
		if !reflect.DeepEqual(back.New, ch.New) || !reflect.DeepEqual(back.Old, ch.Old) {
			t.Errorf("entities %+v / %+v came back as %+v / %+v", ch.New, ch.Old, back.New, back.Old)
		}
	}
}

// Bytes that are not an encoded change are an error, never a panic.
func TestDecodeChangeRefusesOtherBytes(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("{}"), []byte("\x03\xff\x00garbage")} {
		if _, err := DecodeChange(b); !errors.Is(err, ErrNotWireChange) {
			t.Errorf("DecodeChange(%q) = %v, want ErrNotWireChange", b, err)
		}
	}
	if _, err := EncodeChange(Change{Kind: ChangeCreated, Sequence: "1", Shard: "s"}); !errors.Is(err, ErrNotWireChange) {
		t.Errorf("a change without images encoded: %v", err)
	}
}

func FuzzDecodeChange(f *testing.F) {
	item, err := saas.EncodeTicket(&saas.Ticket{ID: "01J0000000000000000000FUZZ", OrgID: "01J0000000000000000000FUZO", Title: "Fuzz", CreatedAt: time.Unix(0, 0).UTC()})
	if err != nil {
		f.Fatal(err)
	}
	seed, err := EncodeChange(Change{Kind: ChangeCreated, Sequence: "100", Shard: "shard-1", newItem: item})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeChange(b)
		if err != nil {
			return
		}
		again, err := EncodeChange(c)
		if err != nil {
			t.Fatalf("a decoded change does not encode: %v", err)
		}
		c2, err := DecodeChange(again)
		if err != nil || c2.Sequence != c.Sequence || c2.Shard != c.Shard || !reflect.DeepEqual(c2.New, c.New) || !reflect.DeepEqual(c2.Old, c.Old) {
			t.Fatalf("re-encoding changed %+v into %+v (%v)", c, c2, err)
		}
	})
}

// A reader given the last sequence number an earlier reader handed on continues right after it:
// the changes written while no reader ran are delivered, the ones handed on already are not.
func TestStreamResumesAfterASequenceNumber(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	first := CollectStream(t, r.Stream, fastStream)
	first.WaitStream(t)
	a, err := r.CreateOrganization(ctx, "Before")
	if err != nil {
		t.Fatal(err)
	}
	seen := first.Until(t, func(ch Change) bool { return ch.Key == a.Key() })
	last := seen[len(seen)-1]
	b, err := r.CreateOrganization(ctx, "During")
	if err != nil {
		t.Fatal(err)
	}
	resumed := CollectStream(t, r.Stream, StreamOptions{PollInterval: fastStream.PollInterval, DescribeInterval: fastStream.DescribeInterval,
		MaxBackoff: fastStream.MaxBackoff, Resume: func(shard string) string {
			if shard == last.Shard {
				return last.Sequence
			}
			return ""
		}})
	resumed.WaitStream(t)
	got := resumed.Until(t, func(ch Change) bool { return ch.Key == b.Key() })
	for _, ch := range got {
		if ch.Key == a.Key() {
			t.Errorf("the change handed on before the resume point came again: %+v", ch)
		}
	}
}
