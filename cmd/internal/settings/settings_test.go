package settings

import (
	"flag"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"singletable/loaders"
	"singletable/repository"
	"singletable/server"
)

const testSecret = "settings-test-secret-of-at-least-32-bytes"

// load reads vars the way each binary does: env only (cmd/lambda), or env then the flags in args
// (cmd/server). It returns the settings and the problems found.
func load(t *testing.T, flagged bool, vars map[string]string, args ...string) (Shared, Problems) {
	t.Helper()
	var problems Problems
	env := Env{Getenv: func(k string) string { return vars[k] }, Bad: problems.Add}
	var s Shared
	if flagged {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s.BindFlags(fs, env)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
	} else {
		s = FromEnv(env)
	}
	s.Validate(problems.Add)
	return s, problems
}

func TestDefaults(t *testing.T) {
	for _, flagged := range []bool{false, true} {
		s, problems := load(t, flagged, map[string]string{"AUTH_HS256_SECRET": testSecret})
		if len(problems) > 0 {
			t.Fatalf("flagged=%v: %v", flagged, problems)
		}
		if s.Table != DefaultTable || s.Region != "" || s.Endpoint != "" || s.CursorSecret != "" ||
			s.OrderStatusShards != repository.DefaultOrderStatusShards || !s.Introspection ||
			s.ComplexityLimit != server.DefaultComplexityLimit || s.LoaderWait != loaders.DefaultWait ||
			s.LogLevel != slog.LevelInfo || s.CORSOrigins != nil || s.Auth.Disabled || s.Auth.DevTokens {
			t.Errorf("flagged=%v: defaults %+v", flagged, s)
		}
	}
}

// TestBothBinariesApplyTheSameRules: every bad value is refused whether the environment is read
// alone or under flags, and the message names the variable in both, and the flag only where
// there is one.
func TestBothBinariesApplyTheSameRules(t *testing.T) {
	cases := []struct {
		env, value, want, flagName string // flagName "" when the setting has none
	}{
		{"DYNAMODB_TABLE", "a", `DYNAMODB_TABLE: "a" must be 3 to 255 letters`, "table"},
		{"AWS_ENDPOINT_URL_DYNAMODB", "localhost:8000", `AWS_ENDPOINT_URL_DYNAMODB: "localhost:8000" is not an http(s) URL`, "endpoint"},
		{"ORDER_STATUS_SHARDS", "0", "ORDER_STATUS_SHARDS: 0 must be between 1 and 1000", "order-status-shards"},
		{"ORDER_STATUS_SHARDS", "1001", "ORDER_STATUS_SHARDS: 1001 must be between 1 and 1000", "order-status-shards"},
		{"ORDER_STATUS_SHARDS", "x", `ORDER_STATUS_SHARDS="x" is not a whole number`, ""},
		{"CURSOR_SECRET", "short", "CURSOR_SECRET: must have at least 32 characters", ""},
		{"GRAPHQL_INTROSPECTION", "maybe", `GRAPHQL_INTROSPECTION="maybe" is not true or false`, ""},
		{"GRAPHQL_COMPLEXITY_LIMIT", "0", "GRAPHQL_COMPLEXITY_LIMIT: 0 must be positive", "complexity-limit"},
		{"DATALOADER_WAIT", "5", `DATALOADER_WAIT="5" is not a duration`, ""},
		{"DATALOADER_WAIT", "2s", "DATALOADER_WAIT: 2s must be between 0 and 1s", "loader-wait"},
		{"LOG_LEVEL", "loud", `LOG_LEVEL: "loud" must be debug, info, warn or error`, "log-level"},
		{"AUTH_DISABLED", "sure", `AUTH_DISABLED="sure" is not true or false`, ""},
		{"AUTH_HS256_SECRET", "too-short", "AUTH_HS256_SECRET: must have at least 32 bytes", ""},
	}
	for _, c := range cases {
		for _, flagged := range []bool{false, true} {
			vars := map[string]string{"AUTH_HS256_SECRET": testSecret, c.env: c.value}
			_, problems := load(t, flagged, vars)
			want := c.want
			if flagged && c.flagName != "" {
				want = strings.Replace(want, c.env+":", c.env+" / -"+c.flagName+":", 1)
			}
			if len(problems) != 1 || !strings.Contains(problems[0], want) {
				t.Errorf("%s=%q, flagged=%v: problems %q, want one mentioning %q", c.env, c.value, flagged, problems, want)
			}
		}
	}
	// Without any verifier both refuse to start.
	for _, flagged := range []bool{false, true} {
		if _, problems := load(t, flagged, nil); len(problems) != 1 || !strings.Contains(problems[0], "no token verifier") {
			t.Errorf("flagged=%v, no verifier: %q", flagged, problems)
		}
	}
}

func TestFlagsOverrideTheEnvironment(t *testing.T) {
	vars := map[string]string{
		"AUTH_HS256_SECRET": testSecret, "DYNAMODB_TABLE": "fromenv", "LOG_LEVEL": "error",
		"CORS_ALLOWED_ORIGINS": "https://env.example", "AUTH_ISSUER": "https://env/", "ORDER_STATUS_SHARDS": "8",
	}
	s, problems := load(t, true, vars, "-table", "flagged", "-log-level", "debug", "-cors-origins", " https://a.example, https://b.example ,",
		"-auth-issuer", "https://flag/", "-loader-wait", "2ms")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if s.Table != "flagged" || s.LogLevel != slog.LevelDebug || !slices.Equal(s.CORSOrigins, []string{"https://a.example", "https://b.example"}) ||
		s.Auth.Issuer != "https://flag/" || s.LoaderWait.String() != "2ms" || s.OrderStatusShards != 8 || s.Auth.HS256Secret != testSecret {
		t.Errorf("settings %+v", s)
	}
	// The environment alone reads the same values from the same variables.
	s, problems = load(t, false, vars)
	if len(problems) > 0 || s.Table != "fromenv" || s.LogLevel != slog.LevelError || !slices.Equal(s.CORSOrigins, []string{"https://env.example"}) ||
		s.Auth.Issuer != "https://env/" || s.OrderStatusShards != 8 {
		t.Errorf("env only: %+v %v", s, problems)
	}
}

func TestProblemsErr(t *testing.T) {
	var p Problems
	if p.Err() != nil {
		t.Fatal("no problems, an error")
	}
	p.Add("A=%q is bad", "x")
	p.Add("B too")
	if err := p.Err(); err == nil || err.Error() != "invalid configuration:\n  A=\"x\" is bad\n  B too" {
		t.Fatalf("err = %v", err)
	}
}
