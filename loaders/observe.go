package loaders

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// BatchObserver is told the size of every batch a request's loaders send (the metrics' batch size
// histogram hangs on it): loader is "keys" (the key loader's BatchGetItem batches), "fetchNow"
// (lookups sent without waiting for the window), "relationLists" (HR's inverse-relation lists of
// one level) or "level" (the child lists a level starts together: a page's users, tickets or
// orders); size is how many keys
// or lists went out together. It must be safe for concurrent use and quick.
type BatchObserver func(loader string, size int)

// Names of the batches, as BatchObserver and the batch spans report them.
const (
	BatchKeys          = "keys"
	BatchFetchNow      = "fetchNow"
	BatchRelationLists = "relationLists"
	BatchLevel         = "level"
)

const tracerName = "singletable/loaders"

// startBatch reports a batch of size to the observer and opens its span ("dataloader.<loader>",
// with the batch size); the DynamoDB calls made with the returned context hang under it. end
// closes the span.
func (l *Loaders) startBatch(ctx context.Context, loader string, size int) (_ context.Context, end func()) {
	if l.onBatch != nil {
		l.onBatch(loader, size)
	}
	ctx, span := l.tracer.Start(ctx, "dataloader."+loader, trace.WithAttributes(
		attribute.String("dataloader.name", loader), attribute.Int("dataloader.batch_size", size)))
	return ctx, func() { span.End() }
}

func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(tracerName)
}
