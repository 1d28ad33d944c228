package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"singletable/server"
)

// TRUSTED_DOCUMENTS loads a manifest and defaults the mode to enforce; without one the mode is
// off, and log or enforce without one, an unknown mode or an unreadable manifest are refused with
// the variable's name. Both binaries read them.
func TestTrustedDocumentsSettings(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "persisted_queries.json")
	if err := os.WriteFile(manifest, []byte(`{"a1":"query A { organizations { edges { cursor } } }"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"a1":"query {"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"AUTH_HS256_SECRET": testSecret}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, flagged := range []bool{false, true} {
		s, problems := load(t, flagged, with())
		if len(problems) > 0 || s.Trusted.Mode != server.TrustedOff || s.Trusted.Docs != nil {
			t.Errorf("flagged=%v: unset: %+v %v", flagged, s.Trusted, problems)
		}
		s, problems = load(t, flagged, with("TRUSTED_DOCUMENTS", manifest))
		if len(problems) > 0 || s.Trusted.Mode != server.TrustedEnforce || s.Trusted.Docs.Len() != 1 {
			t.Errorf("flagged=%v: a manifest: %+v %v", flagged, s.Trusted, problems)
		}
		s, problems = load(t, flagged, with("TRUSTED_DOCUMENTS", manifest, "TRUSTED_DOCUMENTS_MODE", "LOG"))
		if len(problems) > 0 || s.Trusted.Mode != server.TrustedLog {
			t.Errorf("flagged=%v: log: %+v %v", flagged, s.Trusted, problems)
		}
		for name, vars := range map[string]map[string]string{
			"log without a manifest": with("TRUSTED_DOCUMENTS_MODE", "log"),
			"unknown mode":           with("TRUSTED_DOCUMENTS", manifest, "TRUSTED_DOCUMENTS_MODE", "strict"),
			"missing file":           with("TRUSTED_DOCUMENTS", filepath.Join(dir, "none.json")),
			"broken document":        with("TRUSTED_DOCUMENTS", broken),
		} {
			_, problems := load(t, flagged, vars)
			if len(problems) != 1 || !strings.Contains(problems[0], "TRUSTED_DOCUMENTS") {
				t.Errorf("flagged=%v: %s: %v", flagged, name, problems)
			}
		}
	}
	s, problems := load(t, true, with(), "-trusted-documents", manifest, "-trusted-documents-mode", "log")
	if len(problems) > 0 || s.Trusted.Mode != server.TrustedLog || s.Trusted.Docs == nil {
		t.Errorf("flags: %+v %v", s.Trusted, problems)
	}
}
