package loaders

import (
	"context"

	"singletable/repository"
)

// The fetchers of the list loaders are built here from the one read each kind of list makes (its
// Query, in the domain files): the lists of a level (levelList), a root list (rootList, rootRead)
// and a parent read with its children (withChildren). What a read's elements need once read (to
// be primed in the key loader, their Level read ahead) is done here, the same way for every list.

// levelList is the fetcher of a child list whose lists of one level are read together: read
// reads one list (one Query); readLevel does the rest. what names the read in a panic's error.
func levelList[K listKey, T repository.Entity](l *Loaders, what string, read func(context.Context, K) (repository.Page[T], error)) fetchBatch[K, repository.Page[T]] {
	return func(ctx context.Context, keys []K, whole bool, answer func(int, repository.Page[T], error)) ([]repository.Page[T], []error) {
		return readLevel(ctx, l, keys, whole, what, read, answer)
	}
}

// primed is read with the items of every page it reads primed in the key loader, so that looking
// them up by key later costs nothing.
func primed[K any, T repository.Entity](l *Loaders, read func(context.Context, K) (repository.Page[T], error)) func(context.Context, K) (repository.Page[T], error) {
	return func(ctx context.Context, k K) (repository.Page[T], error) {
		p, err := read(ctx, k)
		prime(ctx, l, p.Items...)
		return p, err
	}
}

// rootRead is the fetcher of a root list: read reads one page (one Query, or one per shard); its
// items are primed and what their level needs is read ahead at once (a root list is its whole
// level).
func rootRead[K listKey, T repository.Entity](l *Loaders, read func(context.Context, K) (repository.Page[T], error)) fetchEach[K, repository.Page[T]] {
	return func(ctx context.Context, k K) (repository.Page[T], error) {
		p, err := read(ctx, k)
		prime(ctx, l, p.Items...)
		l.ReadAhead(ctx, LevelObjects{Level: k.listLevel(), Objects: entities(p.Items)})
		return p, err
	}
}

// rootList is rootRead of a root list without arguments beyond its page: list reads the page.
func rootList[T repository.Entity](l *Loaders, list func(context.Context, repository.PageArgs) (repository.Page[T], error)) fetchEach[listPage, repository.Page[T]] {
	return rootRead(l, func(ctx context.Context, k listPage) (repository.Page[T], error) {
		return list(ctx, k.page.args())
	})
}

// parentWith is a parent read together with its children (the first page of them, or all).
type parentWith[P, C repository.Entity] struct {
	parent   P
	children repository.Page[C]
}

// withChildren is the fetcher of a parent read with its children in one Query (read); it primes
// the parent and the children.
func withChildren[P, C repository.Entity](l *Loaders, read func(context.Context, withChildrenKey) (P, repository.Page[C], error)) fetchEach[withChildrenKey, parentWith[P, C]] {
	return func(ctx context.Context, k withChildrenKey) (parentWith[P, C], error) {
		p, children, err := read(ctx, k)
		if err != nil {
			return parentWith[P, C]{}, err
		}
		prime(ctx, l, p)
		prime(ctx, l, children.Items...)
		return parentWith[P, C]{p, children}, nil
	}
}

// readLevel reads the lists of keys concurrently (read, one Query each) and then does what their
// elements need (the key's listLevel). For a whole level, a list whose level is flat is answered as
// soon as its Query is back, its elements' lookups reserved in the level's one batch, sent when
// the last list is back; the others wait for the whole level (ReadAhead: their child lists start
// together, their relations are followed step by step). A list read on its own has its lookups
// join the key loader's window. what names the read in a panic's error.
func readLevel[K listKey, T repository.Entity](ctx context.Context, l *Loaders, keys []K, whole bool, what string,
	read func(context.Context, K) (repository.Page[T], error), answer func(int, repository.Page[T], error)) ([]repository.Page[T], []error) {
	if whole && len(keys) > 1 {
		var end func()
		ctx, end = l.startBatch(ctx, BatchLevel, len(keys))
		defer end()
	}
	batch := l.newKeyBatch(ctx)
	defer batch.send(ctx)
	early := make([]bool, len(keys))
	pages := make([]repository.Page[T], len(keys))
	errs := each(len(keys), what, func(i int) (err error) {
		pages[i], err = read(ctx, keys[i])
		if lv := keys[i].listLevel(); err == nil && whole && flat(lv) {
			batch.reserveLevel(ctx, lv, entities(pages[i].Items))
			early[i] = true
			answer(i, pages[i], nil)
		}
		return err
	})
	objects := make([]LevelObjects, 0, len(keys))
	for i, k := range keys {
		switch {
		case errs[i] != nil || len(pages[i].Items) == 0 || early[i]:
		case !whole:
			l.prefetchAhead(ctx, k.listLevel(), entities(pages[i].Items))
		default:
			objects = appendLevel(objects, k.listLevel(), entities(pages[i].Items))
		}
	}
	l.ReadAhead(ctx, objects...)
	return pages, errs
}

// appendLevel adds objects of level to levels, joining those of the same level.
func appendLevel(levels []LevelObjects, level Level, objects []repository.Entity) []LevelObjects {
	if level == nil {
		return levels
	}
	for i := range levels {
		if levels[i].Level == level {
			levels[i].Objects = append(levels[i].Objects, objects...)
			return levels
		}
	}
	return append(levels, LevelObjects{Level: level, Objects: objects})
}
