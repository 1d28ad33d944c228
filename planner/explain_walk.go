package planner

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"singletable/repository/commerce"

	"github.com/vektah/gqlparser/v2/ast"
)

// walker walks one operation for Explain, recording its steps and counting its calls.
type walker struct {
	plan   *Plan
	ex     Execution
	out    *Explanation
	record bool
	vars   map[string]any
	// batches are the lookups by key made so far, closed (counted) when the walk ends: the
	// lookups found later in the walk may still join one.
	batches []*batch
	// deferred are the paths of the deferred fields met (@defer), with their payload's label.
	deferred map[string]string
}

// A batch is lookups by key sent together: in each of its groups, ⌈keys / 100⌉ BatchGetItem
// calls. groups are the separate sends of one place of the operation (the lists read one by one
// of a level, say); keys are counted per group.
type batch struct {
	id, round, groups, keys int
	steps                   []int // the recorded steps that share it
}

// newBatch opens a batch of lookups sent in round, once per group.
func (w *walker) newBatch(round, groups int) *batch {
	b := &batch{round: round, groups: max(groups, 1)}
	w.batches = append(w.batches, b)
	return b
}

// lookup adds keys (per group of b) of read r, at path, to batch b.
func (w *walker) lookup(b *batch, path string, r Read, keys int) {
	if keys <= 0 {
		return
	}
	keys *= r.KeysPerObject()
	b.keys += keys
	if !w.record {
		return
	}
	if b.id == 0 {
		b.id = len(w.batches) // any number unique to the batch
	}
	calls := b.groups * ceilDiv(keys, maxBatchKeys)
	b.steps = append(b.steps, len(w.out.Steps))
	w.out.Steps = append(w.out.Steps, stepOf(path, r, b.round, &calls, b.groups*keys, b.id))
}

// closeBatch counts b's calls.
func (w *walker) closeBatch(b *batch) {
	if b.keys > 0 {
		w.count(BatchGetItem, b.groups*ceilDiv(b.keys, maxBatchKeys), b.round, false)
	}
}

// maxBatchKeys is BatchGetItem's limit of keys per call.
const maxBatchKeys = 100

// calls records calls of read r at path in round: a Query per parent and page, say. page says
// they read pages of a list (Price).
func (w *walker) calls(path string, r Read, round, calls int, page bool) {
	if calls <= 0 {
		return
	}
	w.count(r.Operation, calls, round, page)
	if w.record {
		s := stepOf(path, r, round, &calls, 0, 0)
		s.page = page
		w.out.Steps = append(w.out.Steps, s)
	}
}

// count adds calls of operation op, made in round, to the plan's bounds and price.
func (w *walker) count(op Operation, calls, round int, page bool) {
	w.out.MaxCalls[op] += calls
	w.out.MaxRounds = max(w.out.MaxRounds, round)
	if page {
		w.out.pageCalls += calls
	} else {
		w.out.otherCalls += calls
	}
}

// fail records an error execution reports at path without reading.
func (w *walker) fail(path ast.Path, err error) {
	w.out.Errors = append(w.out.Errors, FieldError{Path: path, Err: err})
}

// stepOf is a recorded step of read r.
func stepOf(path string, r Read, round int, calls *int, keys, batch int) Step {
	s := Step{Path: path, Operation: r.Operation, KeyCondition: r.KeyCondition(), Round: round, MaxCalls: calls, Keys: keys, Batch: batch}
	if r.ID != "" {
		p := r.ID
		s.AccessPattern = &p
	}
	if r.Index != "" {
		ix := r.Index
		s.Index = &ix
	}
	return s
}

// rowOf is the row of field f of objects of type typ, the variant its arguments select; nil for
// a field that reads nothing (an ID-only to-one field too: IDOnly).
func (w *walker) rowOf(typ string, f graphql.CollectedField) *Field {
	if w.plan.IDOnly(typ, f) {
		return nil // answered from the parent's item
	}
	row := FieldOf(typ, f.Name)
	if row == nil || row.Variant == nil {
		return row
	}
	return row.variant(f.ArgumentMap(w.vars))
}

// pathOf is the path of field f under parent (response keys joined by dots), built only when the
// walk records steps.
func (w *walker) pathOf(parent string, f graphql.CollectedField) string {
	if !w.record {
		return ""
	}
	path := f.Alias
	if parent != "" {
		path = parent + "." + f.Alias
	}
	if f.IsDeferred() && parent != "" { // root fields are never deferred
		if w.deferred == nil {
			w.deferred = map[string]string{}
		}
		w.deferred[path] = f.Deferrables[0].Label
	}
	return path
}

// labelPayloads says which payload each step belongs to: the deferred fragment of the nearest
// deferred field at or above its path (the initial payload: none).
func (w *walker) labelPayloads() {
	for i := range w.out.Steps {
		s := &w.out.Steps[i]
		best := -1
		for path, label := range w.deferred {
			if (s.Path == path || strings.HasPrefix(s.Path, path+".")) && len(path) > best {
				best = len(path)
				s.Payload = &label
			}
		}
	}
}

// elementsPath is the path of a connection's elements (a plain list's are at its own path).
func (w *walker) elementsPath(f graphql.CollectedField, conn string) string {
	if !w.record || f.Definition != nil && f.Definition.Type.Elem != nil {
		return conn
	}
	return conn + ".edges.node"
}

// callsPerPage is how many calls one page of read r makes: one, or one per shard (AP20).
func (w *walker) callsPerPage(r Read) int {
	if r.Calls == PerShard {
		return max(w.ex.Shards(), 1)
	}
	if r.Calls == PerMonth {
		return commerce.MaxRankingMonths
	}
	return 1
}

// keysOf is the most keys a ToOne or Items field looks up for one parent object.
func keysOf(row *Field) int { return max(row.MaxKeys, 1) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }
