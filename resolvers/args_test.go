package resolvers

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestIDArg(t *testing.T) {
	for _, c := range []struct {
		args map[string]any
		id   string
		ok   bool
	}{
		{map[string]any{"id": "VGlja2V0OjE="}, "VGlja2V0OjE=", true},
		{map[string]any{"id": int64(7)}, "7", true}, // an Int literal, as the resolver gets it
		{map[string]any{"id": json.Number("12")}, "12", true},
		{map[string]any{"id": nil}, "", false},
		{map[string]any{}, "", false},
		{map[string]any{"id": []any{"a"}}, "", false},
	} {
		id, ok := idArg(c.args, "id")
		if id != c.id || ok != c.ok {
			t.Errorf("idArg(%v) = %q, %v; want %q, %v", c.args, id, ok, c.id, c.ok)
		}
	}
}

func TestIDsArg(t *testing.T) {
	for _, c := range []struct {
		args map[string]any
		ids  []string
		ok   bool
	}{
		{map[string]any{"ids": []any{"a", int64(2)}}, []string{"a", "2"}, true},
		{map[string]any{"ids": "a"}, []string{"a"}, true}, // a single value is a list of one
		{map[string]any{"ids": []any{}}, []string{}, true},
		{map[string]any{"ids": []any{"a", nil}}, nil, false},
		{map[string]any{}, nil, false},
	} {
		ids, ok := idsArg(c.args, "ids")
		if !slices.Equal(ids, c.ids) || ok != c.ok {
			t.Errorf("idsArg(%v) = %q, %v; want %q, %v", c.args, ids, ok, c.ids, c.ok)
		}
	}
}

// FuzzIDArg: whatever JSON a variable holds, idArg answers without a panic, and an ID it accepts
// is what idsArg makes of the same value as a list of one.
func FuzzIDArg(f *testing.F) {
	for _, s := range []string{`"x"`, `7`, `null`, `[1]`, `{"a":1}`, `1.5`, `true`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		id, ok := idArg(map[string]any{"id": v}, "id")
		ids, okList := idsArg(map[string]any{"ids": []any{v}}, "ids")
		if ok != okList || (ok && (len(ids) != 1 || ids[0] != id)) {
			t.Fatalf("%s: idArg %q %v, idsArg %q %v", raw, id, ok, ids, okList)
		}
	})
}
