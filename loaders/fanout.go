package loaders

import (
	"fmt"
	"runtime/debug"

	"golang.org/x/sync/errgroup"

	"singletable/apperr"
)

// each runs fn(0) … fn(n-1) concurrently, waits for all of them and returns their errors by
// index. The calls are independent (one list's failure is that list's answer, not its
// siblings'), so nothing is cancelled when one fails.
func each(n int, what string, fn func(i int) error) []error {
	errs := make([]error, n)
	var g errgroup.Group
	for i := range n {
		g.Go(func() error {
			errs[i] = safely(what, func() error { return fn(i) })
			return nil
		})
	}
	_ = g.Wait() // every call reports through errs
	return errs
}

// safely calls fn and turns a panic in it into an internal error. It is the one way the loaders
// handle panics: their work runs on goroutines of their own, which gqlgen's recovery does not
// cover, and a panic there must fail the fields waiting for that work (with the stack in the
// logged cause), not the process, nor leave them blocked.
func safely(what string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(what, p)
		}
	}()
	return fn()
}

// panicError is the internal error a panic recovered on a loader's goroutine becomes: the cause,
// with the stack, is for the log; the client sees "internal error".
func panicError(what string, p any) error {
	return apperr.Internal("loaders: "+what, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
}
