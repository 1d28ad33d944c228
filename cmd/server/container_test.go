package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// There is no container engine on the build machines: these tests read the Dockerfile and the
// compose file the way the engine would and check what the server needs from them.

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dockerfile returns the Dockerfile's instructions (comments dropped, continuations joined).
func dockerfile(t *testing.T) [][2]string {
	t.Helper()
	var out [][2]string
	text := strings.ReplaceAll(readRepoFile(t, "Dockerfile"), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, args, _ := strings.Cut(line, " ")
		out = append(out, [2]string{strings.ToUpper(instr), strings.TrimSpace(args)})
	}
	return out
}

var outputFlag = regexp.MustCompile(`\s-o\s+\S+`)

// makeBuildCommand is the `make build` command for the server, with $(GO_BUILD) expanded.
func makeBuildCommand(t *testing.T) string {
	t.Helper()
	mk := readRepoFile(t, "Makefile")
	def := regexp.MustCompile(`(?m)^GO_BUILD\s*:?=\s*(.+)$`).FindStringSubmatch(mk)
	recipe := regexp.MustCompile(`(?m)^\t(\$\(GO_BUILD\).*\./cmd/server)\s*$`).FindStringSubmatch(mk)
	if def == nil || recipe == nil {
		t.Fatal("the Makefile has no GO_BUILD variable or no build recipe for ./cmd/server")
	}
	return strings.Replace(recipe[1], "$(GO_BUILD)", strings.TrimSpace(def[1]), 1)
}

func TestDockerfileBuildsLikeTheMakefile(t *testing.T) {
	instrs := dockerfile(t)
	var builds []string
	var stages, healthcheck, user, entrypoint, final string
	for _, in := range instrs {
		switch in[0] {
		case "FROM":
			stages += in[1] + "\n"
			final, user = in[1], ""
		case "RUN":
			if strings.Contains(in[1], "go build") {
				builds = append(builds, in[1])
			}
		case "HEALTHCHECK":
			healthcheck = in[1]
		case "USER":
			user = in[1]
		case "ENTRYPOINT":
			entrypoint = in[1]
		}
	}
	if len(builds) != 1 {
		t.Fatalf("want one go build in the Dockerfile, got %q", builds)
	}
	normalize := func(cmd string) string {
		return strings.Join(strings.Fields(outputFlag.ReplaceAllString(cmd, "")), " ")
	}
	if got, want := normalize(builds[0]), normalize(makeBuildCommand(t)); got != want {
		t.Errorf("Dockerfile builds with\n  %s\nmake build with\n  %s", got, want)
	}
	if !strings.Contains(builds[0], "CGO_ENABLED=0") {
		t.Error("the binary is not static (CGO_ENABLED=0)")
	}
	if strings.Count(stages, "\n") < 2 || !strings.Contains(stages, " AS build") {
		t.Errorf("not a multi-stage build: %q", stages)
	}
	if !strings.Contains(final, "distroless") && final != "scratch" {
		t.Errorf("final image %q is neither distroless nor scratch", final)
	}
	if user == "" || user == "root" || strings.HasPrefix(user, "0") {
		t.Errorf("the final stage runs as %q, want a non-root user", user)
	}
	if !strings.Contains(healthcheck, `"-healthcheck"`) || !strings.Contains(healthcheck, entrypointBinary(entrypoint)) {
		t.Errorf("HEALTHCHECK %q does not run the binary's -healthcheck", healthcheck)
	}
}

func entrypointBinary(entrypoint string) string {
	fields := strings.Fields(strings.Trim(entrypoint, "[]"))
	if len(fields) == 0 {
		return "\x00"
	}
	return strings.Trim(fields[0], `",`)
}
