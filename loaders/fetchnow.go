package loaders

import (
	"context"
	"log/slog"
	"sync"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// FetchNow starts looking keys up at once, in the background (see fetchNow); the resolvers that
// ask for them then find them in the key loader. The per-parent baseline reads nothing ahead: its
// lookups wait until a resolver awaits them.
func (l *Loaders) FetchNow(ctx context.Context, keys ...repository.Key) {
	if len(keys) > 0 {
		l.byKey.Now(ctx, keys)
	}
}

// FetchLevel looks keys up at once, in one batch, as the objects of levels (the selections of the
// field whose objects they are): once read, what those levels need next (their to-one targets,
// their lists) is reserved and read ahead before a resolver could ask for any of it alone. For a
// place that learns every key of a level from a read that is not a level's own (a ranking's
// entries name their reps).
func (l *Loaders) FetchLevel(ctx context.Context, keys []repository.Key, levels ...Level) {
	if len(keys) == 0 {
		return
	}
	if _, batched := l.byKey.(batchedKeys); !batched {
		l.FetchNow(ctx, keys...)
		return
	}
	b := l.newKeyBatch(ctx)
	b.reserveFollowed(keys)
	if len(levels) > 0 {
		b.then = func(ctx context.Context, get func(repository.Key) (repository.Entity, bool)) {
			var objects []repository.Entity
			seen := make(map[repository.Key]bool, len(keys))
			for _, k := range keys {
				if e, ok := get(k); ok && !seen[k] {
					seen[k] = true
					objects = append(objects, e)
				}
			}
			next := make([]LevelObjects, 0, len(levels))
			for _, lv := range levels {
				next = append(next, LevelObjects{Level: lv, Objects: objects})
			}
			l.ReadAhead(ctx, next...)
		}
	}
	b.send(ctx)
}

// fetchNow looks keys up at once, without the key loader's batch window, for the places that hold
// every key of their level themselves: nodes(ids:) (all its ids) and the HR lists' fetcher (all
// the employees, relation items and targets of the level). Waiting for the window there only adds
// its length to the level; nothing else would join the batch.
//
// It reserves a pending entry for every key not cached yet in the request's entity cache before it
// sends anything (atomically per key, see entityCache), so that resolvers looking those keys up
// meanwhile wait for this fetch instead of fetching again, and sends ⌈keys / 100⌉ BatchGetItem
// calls concurrently in the background. It returns one thunk per key, in key order; a missing item
// is errMissing, as from the loader.
func (l *Loaders) fetchNow(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	b := l.newKeyBatch(ctx)
	thunks := b.reserve(keys)
	b.send(ctx)
	return thunks
}

// A keyBatch is lookups gathered to be sent together: each key is reserved in the request's
// entity cache as it joins (resolvers asking for it meanwhile wait for the batch instead of
// fetching it again), and send sends all of them at once, ⌈keys / 100⌉ BatchGetItem calls
// concurrently, in the background. A level of lists uses one to hand each list to its resolvers
// as soon as it is back while its elements' lookups still go out in one batch when the last one
// is.
//
// A batch also carries what comes after it (follow): the to-one fields' targets of the levels
// whose lookups it holds are read ahead, and a level's next step of relations is reserved, once
// its keys are read and before any caller sees them (done closes after follow). So every key of
// the next level is known and reserved, in one batch, before a resolver could ask for one of them
// alone: no timer decides which keys share a call, and the calls and rounds are the plan's
// whatever the machine's load. A key of such a level that another place reads or has read (the
// customer asked for by ID that is also an order's customer) is taken over (entityCache.take):
// its later callers wait for this batch's follow too, as for those of the batches that took it
// before. A key that a batch of a later round is reading (a deeper chain that got there first) is
// read again here instead of waited for: what follows the batch stays one round after its own.
type keyBatch struct {
	l       *Loaders
	fetched chan struct{} // closes when every key fetched here is read
	done    chan struct{} // closes after follow: the batch's callers are released

	mu      sync.Mutex
	fetch   []repository.Key
	waiting map[repository.Key]*keyResult
	sent    bool

	// asked are the keys of the levels and steps that follow reads, values their entities as soon
	// as they are read; levels the levels whose step-0 lookups the batch holds (reserveLevel);
	// then what else follows (a level's next step of relations).
	asked  []repository.Key
	values []dataloader.Thunk[repository.Entity]
	early  map[repository.Key]repository.Entity // keys read already when reserved: followed at once
	// at is the round the batch reads in (one after its context's), when atKnown: a batch that
	// would wait for the read of a later round reads the key itself (entityCache.take).
	at      int
	atKnown bool
	// from are the batches reading the keys taken over (nil: a key loader's); round is the round
	// of the batch's own read, known when its context knows it (repository.WithRound).
	from       []*keyBatch
	round      int
	roundKnown bool
	levels     []LevelObjects
	deeper     []deeperLevel
	then       func(ctx context.Context, found func(repository.Key) (repository.Entity, bool))
}

type keyResult struct {
	v   repository.Entity
	err error
}

// newKeyBatch is a batch to be sent with ctx (send).
func (l *Loaders) newKeyBatch(ctx context.Context) *keyBatch {
	at, known := repository.RoundOf(ctx)
	return &keyBatch{l: l, fetched: make(chan struct{}), done: make(chan struct{}), waiting: map[repository.Key]*keyResult{},
		early: map[repository.Key]repository.Entity{}, at: at + 1, atKnown: known}
}

// readsAfter reports whether b reads in a round known to come after the one other reads in.
func (b *keyBatch) readsAfter(other *keyBatch) bool {
	return b.atKnown && other.atKnown && b.at > other.at
}

// reserve adds keys to the batch (those not cached yet) and returns one thunk per key, in key
// order; a missing item is errMissing, as from the loader. It must come before send.
func (b *keyBatch) reserve(keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	return b.add(keys, false)
}

// reserveFollowed is reserve for keys whose objects follow reads (a level's lookups): a key
// another place reads is taken over, and the entities are kept for follow.
func (b *keyBatch) reserveFollowed(keys []repository.Key) {
	b.add(keys, true)
}

func (b *keyBatch) add(keys []repository.Key, followed bool) []dataloader.Thunk[repository.Entity] {
	thunks := make([]dataloader.Thunk[repository.Entity], len(keys))
	results := make([]keyResult, len(keys)) // one allocation for the batch's results
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, k := range keys {
		fresh := func() cacheEntry {
			r := &results[i]
			b.waiting[k] = r
			b.fetch = append(b.fetch, k)
			return cacheEntry{owner: b, reader: b, read: b.fetched,
				th:    func() (repository.Entity, error) { <-b.done; return r.v, r.err },
				value: func() (repository.Entity, error) { <-b.fetched; return r.v, r.err }}
		}
		if !followed {
			// The caller keeps its own thunk: the cache entry may be replaced meanwhile (Remember).
			thunks[i], _ = b.l.entities.getOrReserveEntry(k, fresh)
			continue
		}
		t := b.l.entities.take(k, b, fresh)
		thunks[i] = t.th
		if t.read {
			if e, err := t.value(); err == nil && e != nil {
				b.early[k] = e
			}
			continue
		}
		if t.adopted {
			b.from = append(b.from, t.from)
		}
		b.asked = append(b.asked, k)
		b.values = append(b.values, t.value)
	}
	return thunks
}

// reserveLevel reserves the step-0 lookups of objects of level (what their to-one fields, items
// and relations ask for), so that what those return is read ahead when the batch is back, and
// returns their keys.
func (b *keyBatch) reserveLevel(ctx context.Context, level Level, objects []repository.Entity) []repository.Key {
	if level == nil || len(objects) == 0 {
		return nil
	}
	keys := level.Lookups(0, objects)
	b.reserveFollowed(keys)
	b.mu.Lock()
	b.levels = append(b.levels, LevelObjects{Level: level, Objects: objects, ListsStarted: true})
	b.mu.Unlock()
	// What is read already (an item a Query primed, the object another place read) is followed at
	// once: its callers may have it now, so what it needs next joins this batch, and its lists
	// start, before they can ask for it alone.
	for _, t := range level.Targets(objects, b.readAlready) {
		t.Level.Start(ctx, t.Objects)
		tk := b.reserveLevel(ctx, t.Level, t.Objects)
		if t.Level.Steps() > 1 {
			// Its relations' next steps follow this batch (follow), as ReadAhead's would.
			b.mu.Lock()
			b.deeper = append(b.deeper, deeperLevel{LevelObjects{Level: t.Level, Objects: t.Objects, ListsStarted: true}, tk})
			b.mu.Unlock()
		}
	}
	return keys
}

// A deeperLevel is a level whose step 0 a batch holds for objects read already (reserveLevel's
// targets), with the keys of that step: the batch's follow reads its next steps ahead.
type deeperLevel struct {
	LevelObjects
	keys []repository.Key
}

// readAlready answers a key the batch found read already when it reserved it.
func (b *keyBatch) readAlready(k repository.Key) (repository.Entity, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.early[k]; ok {
		return e, true
	}
	return b.l.entities.readNow(k) // primed by the objects' own read (an order's items)
}

// follow does what comes after the batch, once its keys are read and before its callers are
// released: the to-one targets of its levels are read ahead (their lookups reserved and sent,
// their lists started), and then runs. It waits only for reads (the values of keys another place
// reads), never for another batch's follow, and itself only reserves and sends.
func (b *keyBatch) follow(ctx context.Context) {
	if len(b.levels) == 0 && b.then == nil && len(b.deeper) == 0 {
		return
	}
	found := make(map[repository.Key]repository.Entity, len(b.asked))
	for i, k := range b.asked {
		if e, err := b.values[i](); err == nil && e != nil {
			found[k] = e
		}
	}
	get := func(k repository.Key) (repository.Entity, bool) { e, ok := found[k]; return e, ok }
	var next []LevelObjects
	for _, lo := range b.levels {
		next = append(next, lo.Level.Targets(lo.Objects, get)...)
	}
	ctx = b.followRound(ctx)
	// A level's next step reads from everything its step found, what was read already too
	// (relation items an inverse list primed); the targets above were followed at reserve.
	all := func(k repository.Key) (repository.Entity, bool) {
		if e, ok := found[k]; ok {
			return e, true
		}
		return b.readAlready(k)
	}
	if b.then != nil {
		b.then(ctx, all)
	}
	b.followDeeper(ctx, all)
	if len(next) > 0 {
		b.l.ReadAhead(ctx, next...)
	}
}

// followDeeper reads ahead the next steps of the deeper levels (reserveLevel's targets with
// relations), all in one batch: what step 0 found for each, through all.
func (b *keyBatch) followDeeper(ctx context.Context, all func(repository.Key) (repository.Entity, bool)) {
	if len(b.deeper) == 0 {
		return
	}
	levels := make([]LevelObjects, len(b.deeper))
	found := make([][]repository.Entity, len(b.deeper))
	for i, d := range b.deeper {
		levels[i] = d.LevelObjects
		for _, k := range d.keys {
			if e, ok := all(k); ok {
				found[i] = append(found[i], e)
			}
		}
	}
	b.l.readAheadFrom(ctx, levels, 1, found)
}

// send sends the batch's keys, once, in the background; a batch without keys to fetch only
// follows.
func (b *keyBatch) send(ctx context.Context) {
	b.mu.Lock()
	fetch, sent := b.fetch, b.sent
	b.sent = true
	b.mu.Unlock()
	if sent {
		return
	}
	if len(fetch) > 0 {
		// A batch that fetches nothing (its keys read already, or taken over from the batches
		// reading them: from) adds no round of its own to what follows it.
		ctx = repository.NextRound(ctx)
	}
	b.round, b.roundKnown = repository.RoundOf(ctx)
	go func() {
		defer close(b.done)
		b.read(ctx, fetch)
		close(b.fetched)
		b.followSafely(ctx)
	}()
}

// followRound is ctx for what follows the batch: the round of the latest read its data comes from
// (its own, or that of a batch whose keys it took over), unknown when one of them is.
func (b *keyBatch) followRound(ctx context.Context) context.Context {
	round, known := b.round, b.roundKnown
	for _, f := range b.from {
		if f == nil || !f.roundKnown {
			known = false
			break
		}
		round = max(round, f.round)
	}
	if !known {
		return repository.WithoutRound(ctx)
	}
	return repository.WithRound(ctx, round)
}

// read fetches keys and sets their results; a panic fails them with an internal error.
func (b *keyBatch) read(ctx context.Context, fetch []repository.Key) {
	if len(fetch) == 0 {
		return
	}
	var found map[repository.Key]repository.Entity
	var err error
	ctx, end := b.l.startBatch(ctx, BatchFetchNow, len(fetch))
	defer end()
	defer func() {
		if p := recover(); p != nil {
			err = panicError("batch get", p)
		}
		for _, k := range fetch {
			r := b.waiting[k]
			switch e, ok := found[k]; {
			case err != nil:
				r.err = err
			case !ok:
				r.err = errMissing
			default:
				r.v = e
			}
		}
	}()
	found, err = b.l.repo.BatchGet(ctx, fetch)
}

// followSafely is follow; a panic in it is logged, never a crash, and never keeps the batch's
// callers waiting (they are released after it): what was not read ahead is read by its
// resolvers, slower but answered.
func (b *keyBatch) followSafely(ctx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(ctx, "loaders: read ahead failed", "error", panicError("read ahead", p))
		}
	}()
	b.follow(ctx)
}
