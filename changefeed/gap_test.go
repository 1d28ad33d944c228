package changefeed_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"singletable/apperr"
	"singletable/changefeed"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// gapSource is the table's stream reader, with a gap reported when the test says so (as the
// reader reports records trimmed before it read them).
type gapSource struct {
	reader *stream.StreamReader
	gap    chan struct{}
}

func (s gapSource) Run(ctx context.Context, h stream.StreamHandler) error {
	go func() {
		select {
		case <-s.gap:
			h.Gap("shard-0001", "records were trimmed from the stream before they were read")
		case <-ctx.Done():
		}
	}()
	return s.reader.Run(ctx, h)
}

// A gap ends every open subscription with ErrGap (UNAVAILABLE, reason "gap"), so that clients
// refetch instead of showing a silent hole; the hub keeps reading, and a new subscription gets
// the changes made after.
func TestAGapEndsSubscriptionsWithReasonGap(t *testing.T) {
	repo := storetest.New(t)
	src := gapSource{reader: repo.StreamReader(fast), gap: make(chan struct{})}
	hub := changefeed.New(src, nil, changefeed.Options{})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	select {
	case <-hub.Ready():
	case <-time.After(repotest.Wait):
		t.Fatal("the hub did not start reading the stream")
	}
	sub, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	close(src.gap)
	drain(t, sub)
	var coded *apperr.Error
	if err := sub.Err(); !errors.Is(err, changefeed.ErrGap) || !errors.As(err, &coded) || coded.Code != apperr.CodeUnavailable || coded.Reason != "gap" {
		t.Fatalf("the subscription ended with %v, want ErrGap", err)
	}
	next, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	org, err := repo.CreateOrganization(context.Background(), "after the gap")
	if err != nil {
		t.Fatal(err)
	}
	receiveUntil(t, next, changeOf(org.Key()))
}
