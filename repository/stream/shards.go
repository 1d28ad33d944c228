package stream

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// shardPlan is the reader's picture of a stream's shards: which it reads, from where, and which
// must wait. It does no I/O, so its rules are tested on their own (unit_test.go).
//
// DynamoDB splits a stream into shards; a shard is closed after a while (or when its partition
// splits) and its writes continue in child shards, which name it as their parent. The writes of
// one item go to one shard at a time, so reading a child only once its parent is read to the
// end keeps each item's changes in write order.
type shardPlan struct {
	shards map[string]*shardState
	// awaiting holds the shards read to their end whose children are not listed yet: the
	// reader looks again soon, not after the full describe interval.
	awaiting map[string]bool
}

type shardState struct {
	parent string
	// start is where reading begins when there is no record to continue after.
	start            stypes.ShardIteratorType
	started, done    bool
	closedWhenListed bool
}

func newShardPlan() *shardPlan {
	return &shardPlan{shards: map[string]*shardState{}, awaiting: map[string]bool{}}
}

// update merges a description of the stream's shards (every page of it). With fromLatest (the
// first description of the stream the reader started with), shards already closed are history
// and skipped, and open ones are read from their newest record, except the shards a previous
// reader read (continued: a checkpoint or a start mark in the change log), which are read on
// from there, closed or not, and their descendants, from their oldest records; otherwise a new
// shard is read from its oldest record. Shards no longer listed (trimmed after 24 hours) are
// forgotten, so the plan does not grow with time; vanished are those among them still being
// read, whose readers must stop (what they had not read yet is lost).
func (p *shardPlan) update(desc []stypes.Shard, fromLatest bool, continued func(shard string) bool) (vanished []string) {
	listed := map[string]bool{}
	var added []string
	for _, s := range desc {
		id := aws.ToString(s.ShardId)
		listed[id] = true
		parent := aws.ToString(s.ParentShardId)
		delete(p.awaiting, parent)
		if _, known := p.shards[id]; known {
			continue
		}
		closed := s.SequenceNumberRange != nil && s.SequenceNumberRange.EndingSequenceNumber != nil
		p.shards[id] = &shardState{parent: parent, start: stypes.ShardIteratorTypeTrimHorizon, closedWhenListed: closed}
		added = append(added, id)
	}
	if fromLatest {
		for _, id := range added {
			if st := p.shards[id]; st.closedWhenListed && !p.lineage(id, continued) {
				st.done = true
			}
		}
		for _, id := range added {
			if st := p.shards[id]; !st.done && !p.blocked(st) && !continued(id) {
				st.start = stypes.ShardIteratorTypeLatest
			}
		}
	}
	for id, st := range p.shards {
		if listed[id] {
			continue
		}
		if st.started && !st.done {
			vanished = append(vanished, id)
		}
		delete(p.shards, id)
		delete(p.awaiting, id)
	}
	slices.Sort(vanished)
	return vanished
}

// lineage says a previous reader read id or one of its known ancestors (continued): its records
// are read, not skipped as history.
func (p *shardPlan) lineage(id string, continued func(string) bool) bool {
	for seen := 0; seen <= len(p.shards); seen++ {
		if continued(id) {
			return true
		}
		st, ok := p.shards[id]
		if !ok || st.parent == "" {
			return false
		}
		id = st.parent
	}
	return false
}

// blocked says a shard must wait for its parent, which is known and not read to its end. A
// parent the plan does not know (trimmed, or closed before the reader started) does not block.
func (p *shardPlan) blocked(st *shardState) bool {
	parent, ok := p.shards[st.parent]
	return ok && !parent.done
}

// ready marks the shards that can be read now as started and returns them, in id order.
func (p *shardPlan) ready() []string {
	var ids []string
	for id, st := range p.shards {
		if !st.started && !st.done && !p.blocked(st) {
			st.started = true
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// finished marks a shard read to its end.
func (p *shardPlan) finished(id string) {
	if st, ok := p.shards[id]; ok {
		st.done = true
		p.awaiting[id] = true
	}
}

// allDone says every known shard is read to its end (or was skipped).
func (p *shardPlan) allDone() bool {
	for _, st := range p.shards {
		if !st.done {
			return false
		}
	}
	return true
}

// shardSet runs the readers of one stream's shards after the plan.
type shardSet struct {
	run      *streamRun
	arn      string
	plan     *shardPlan
	finished chan string
	wg       sync.WaitGroup
	// stop ends the reader of each shard being read.
	stop map[string]context.CancelFunc
}

// readStream reads one stream until ctx ends, or the stream is disabled and read to its end, or
// it no longer exists. It describes the stream every DescribeInterval, right after a shard ends,
// and more often while an ended shard's children are not listed yet. It returns whether it got
// to read the stream (announced it).
func (run *streamRun) readStream(ctx context.Context, arn string, fromLatest bool) (announced bool) {
	ctx, cancel := context.WithCancel(ctx)
	set := &shardSet{run: run, arn: arn, plan: newShardPlan(), finished: make(chan string), stop: map[string]context.CancelFunc{}}
	defer func() {
		cancel()
		set.wg.Wait()
	}()
	for attempt := 0; ; {
		status, shards, err := run.describe(ctx, arn)
		wait := run.opts.DescribeInterval
		var missing *stypes.ResourceNotFoundException
		switch {
		case ctx.Err() != nil, errors.As(err, &missing):
			return
		case err != nil:
			run.fail(err)
			wait = run.backoff(attempt)
			attempt++
		default:
			run.ok()
			attempt = 0
			set.stopVanished(set.plan.update(shards, fromLatest && !announced, run.start.continues))
			if !set.startReady(ctx) {
				return
			}
			if !announced {
				announced = true
				run.announce(arn)
			}
			if status != stypes.StreamStatusEnabled && status != stypes.StreamStatusEnabling && set.plan.allDone() {
				return
			}
			if len(set.plan.awaiting) > 0 && status == stypes.StreamStatusEnabled {
				wait = 4 * run.opts.PollInterval
			}
		}
		if !set.wait(ctx, wait) {
			return
		}
	}
}

// describe lists every shard of the stream (DescribeStream, page after page).
func (run *streamRun) describe(ctx context.Context, arn string) (stypes.StreamStatus, []stypes.Shard, error) {
	var shards []stypes.Shard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}
	for {
		out, err := run.repo.Streams.DescribeStream(ctx, in)
		if err != nil {
			return "", nil, err
		}
		d := out.StreamDescription
		shards = append(shards, d.Shards...)
		if aws.ToString(d.LastEvaluatedShardId) == "" {
			return d.StreamStatus, shards, nil
		}
		in.ExclusiveStartShardId = d.LastEvaluatedShardId
	}
}

// startReady starts a reader for every shard the plan says is ready. A shard read from its
// newest record gets its iterator here, before the reader announces the stream, so that a
// subscriber who waited for the announcement misses no write made after it. It returns false
// when ctx ended first.
func (set *shardSet) startReady(ctx context.Context) bool {
	for _, id := range set.plan.ready() {
		s := &shardReader{run: set.run, arn: set.arn, id: id, start: set.plan.shards[id].start}
		set.run.start.position(ctx, set.run.repo, s)
		if s.start == stypes.ShardIteratorTypeLatest && !s.openRetrying(ctx) {
			return false
		}
		shardCtx, stop := context.WithCancel(ctx)
		set.stop[id] = stop
		set.wg.Add(1)
		go func() {
			defer set.wg.Done()
			ended := s.read(shardCtx)
			set.run.forget(id)
			if ended {
				select {
				case set.finished <- id:
				case <-shardCtx.Done():
				}
			}
		}()
	}
	return true
}

// stopVanished stops the readers of shards the stream no longer lists.
func (set *shardSet) stopVanished(ids []string) {
	for _, id := range ids {
		set.stop[id]()
		delete(set.stop, id)
		set.run.gap(id, "the shard was trimmed from the stream before it was read to its end")
	}
}

// wait waits d, or until a shard ends (then its children may start, and the stream is described
// again at once). It returns false when ctx ends.
func (set *shardSet) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case id := <-set.finished:
		set.plan.finished(id)
		if stop, ok := set.stop[id]; ok { // not if it vanished meanwhile
			stop()
			delete(set.stop, id)
		}
		return set.startReady(ctx)
	case <-t.C:
		return true
	}
}
