package settings

import (
	"flag"

	"singletable/server"
)

// TrustedDocuments are TRUSTED_DOCUMENTS (a manifest file) and TRUSTED_DOCUMENTS_MODE (off, log
// or enforce; enforce when a manifest is given and the mode is not, since an operator who ships a
// manifest means it to hold, off otherwise). Both binaries serve production frontends, so both
// read them. See docs/security.md.
type TrustedDocuments struct {
	File string
	Mode server.TrustedDocumentsMode
	// Docs is the loaded manifest, once Validate read it.
	Docs *server.TrustedDocuments

	mode string
}

func (t *TrustedDocuments) read(env Env) {
	t.File = env.Get("TRUSTED_DOCUMENTS")
	t.mode = env.Get("TRUSTED_DOCUMENTS_MODE")
}

func (t *TrustedDocuments) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&t.File, "trusted-documents", t.File, "manifest of trusted documents: Apollo's persisted-query manifest or Relay's persisted_queries.json (env TRUSTED_DOCUMENTS)")
	fs.StringVar(&t.mode, "trusted-documents-mode", t.mode, "off, log or enforce: what happens to a document outside the manifest; enforce when a manifest is given, off otherwise (env TRUSTED_DOCUMENTS_MODE)")
}

// validate parses the mode and loads the manifest; log and enforce need one.
func (t *TrustedDocuments) validate(bad func(string, ...any), name func(variable, flagName string) string) {
	switch {
	case t.mode != "":
		m, err := server.ParseTrustedDocumentsMode(t.mode)
		if err != nil {
			bad("%s: %v", name("TRUSTED_DOCUMENTS_MODE", "trusted-documents-mode"), err)
		}
		t.Mode = m
	case t.File != "":
		t.Mode = server.TrustedEnforce
	default:
		t.Mode = server.TrustedOff
	}
	if t.File == "" {
		if t.Mode != server.TrustedOff {
			bad("%s: %s needs a manifest in %s", name("TRUSTED_DOCUMENTS_MODE", "trusted-documents-mode"), t.Mode, name("TRUSTED_DOCUMENTS", "trusted-documents"))
		}
		return
	}
	docs, err := server.LoadTrustedDocuments(t.File)
	if err != nil {
		bad("%s: %v", name("TRUSTED_DOCUMENTS", "trusted-documents"), err)
	}
	t.Docs = docs
}

// Apply sets the trusted documents of a handler's configuration.
func (t *TrustedDocuments) Apply(c *server.Config) {
	c.TrustedDocuments, c.TrustedDocumentsMode = t.Docs, t.Mode
}
