package layering_test

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "singletable"

// layers is the README's layout in code: for every package of the module, the packages of the
// module it may import (tests aside). Dependencies flow one way, cmd → server → resolvers →
// planner → repository and resolvers → loaders → repository → AWS SDK. The storage layer is rooms
// of its own: the engine (repository) at the bottom, the domains on it (catalog ← hr ← commerce,
// saas), the stream and maintenance on the domains, and store, which puts them together, on top;
// apperr, globalid and auth are leaves; changefeed (the fan-out of the table's stream) and fleet (what instances share
// through Redis) sit on the repository, and cmd/internal/settings (what cmd/server and cmd/lambda
// share) on the layers whose defaults it reads; graph/model (the GraphQL objects and the node
// descriptors) sits on the repository, the generated graph on the model. The benchmark's baseline
// (loaders/perparent) and floor (repository/benchfloor) are imported by cmd/bench and tests only.
// The README lists the same, package by package (TestTheREADMEListsTheLayers).
var layers = map[string][]string{
	"apperr":                     nil,
	"globalid":                   {"apperr"},
	"auth":                       {"apperr", "globalid"},
	"telemetry":                  nil,
	"repository":                 {"apperr"},
	"repository/catalog":         {"apperr", "repository"},
	"repository/hr":              {"apperr", "repository", "repository/catalog"},
	"repository/commerce":        {"apperr", "repository", "repository/catalog", "repository/hr"},
	"repository/saas":            {"apperr", "repository"},
	"repository/stream":          {"apperr", "repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas"},
	"repository/maintenance":     {"apperr", "repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas"},
	"repository/store":           {"repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/maintenance", "repository/saas", "repository/stream"},
	"repository/store/storetest": {"repository", "repository/repotest", "repository/saas", "repository/store"},
	"repository/repotest":        {"repository"},
	"repository/benchfloor":      {"apperr", "repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas"},
	"loaders":                    {"apperr", "repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas", "repository/store"},
	"loaders/perparent":          {"loaders", "planner", "repository", "repository/store"},
	"planner":                    {"repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas", "repository/stream"},
	"changefeed":                 {"apperr", "repository", "repository/stream"},
	"fleet":                      {"apperr", "repository/store", "repository/stream"},
	"fleet/fleettest":            nil,
	"graph/schemafiles":          nil,
	"graph/model":                {"auth", "globalid", "repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas"},
	"graph":                      {"graph/model", "repository/commerce", "repository/hr", "repository/saas"},
	"resolvers":                  {"apperr", "auth", "changefeed", "graph", "graph/model", "loaders", "planner", "repository", "repository/catalog", "repository/commerce", "repository/hr", "repository/saas", "repository/store", "repository/stream"},
	"server/playground":          nil,
	"server":                     {"apperr", "auth", "changefeed", "graph", "loaders", "planner", "repository", "repository/store", "resolvers", "server/playground", "telemetry"},
	"cmd/internal/settings":      {"auth", "loaders", "repository", "server"},
	"cmd/server":                 {"auth", "changefeed", "cmd/internal/settings", "fleet", "graph/model", "repository", "repository/maintenance", "repository/store", "repository/stream", "server", "telemetry"},
	"cmd/lambda":                 {"cmd/internal/settings", "repository/store", "server", "telemetry"},
	"cmd/token":                  {"auth", "graph/model"},
	"cmd/tablegen":               {"repository", "repository/maintenance"},
	"cmd/manifest":               {"server"},
	"cmd/bench":                  {"auth", "changefeed", "fleet", "graph/model", "loaders", "loaders/perparent", "repository", "repository/benchfloor", "repository/catalog", "repository/commerce", "repository/hr", "repository/repotest", "repository/saas", "repository/store", "repository/store/storetest", "repository/stream", "server"},
	"layering":                   nil,
}

// sdk are the AWS SDK's modules: only the storage layer (repository and its benchmark floor)
// imports them. (cmd/lambda's runtime, github.com/aws/aws-lambda-go, is not the SDK.)
var sdk = []string{"github.com/aws/aws-sdk-go-v2", "github.com/aws/smithy-go"}

// Every package imports only what its layer allows, every package has a layer, and only the
// storage layer imports the AWS SDK.
func TestImportsFollowTheLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		seen[pkg] = true
		allowed, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s has no layer: add it to layers and to the README's layout", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				if dep := strings.TrimPrefix(imp, module+"/"); !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s, which its layer does not allow", pkg, dep)
				}
			case isSDK(imp) && pkg != "repository" && !strings.HasPrefix(pkg, "repository/"):
				t.Errorf("%s imports the AWS SDK (%s): only repository/ does", pkg, imp)
			case isRedis(imp) && pkg != "fleet":
				t.Errorf("%s imports the Redis client (%s): only fleet/ does", pkg, imp)
			}
		}
	}
	for pkg := range layers {
		if !seen[pkg] {
			t.Errorf("layers names %s, which the module does not have", pkg)
		}
	}
}

// readmeLayer is a line of the README's list of layers: "- `a`, `b` → `c`, `d`" (or "→ nothing").
var readmeLayer = regexp.MustCompile("^- (`[^`]+`(?:, `[^`]+`)*) → (nothing|`[^`]+`(?:, `[^`]+`)*)$")

// The README's list of what each package may import says exactly what layers allows: the same
// packages, each with the same imports.
func TestTheREADMEListsTheLayers(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		m := readmeLayer.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var imports []string
		if m[2] != "nothing" {
			imports = backticked(m[2])
		}
		for _, pkg := range backticked(m[1]) {
			if _, dup := listed[pkg]; dup {
				t.Errorf("the README lists %s twice", pkg)
			}
			listed[pkg] = imports
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(layers)) {
		got, ok := listed[pkg]
		switch {
		case !ok:
			t.Errorf("the README's layout does not list %s (layers allows it %v)", pkg, layers[pkg])
		case !slices.Equal(got, slices.Sorted(slices.Values(layers[pkg]))):
			t.Errorf("the README's layout says %s imports %v; layers allows %v", pkg, got, layers[pkg])
		}
	}
	for pkg := range listed {
		if _, ok := layers[pkg]; !ok {
			t.Errorf("the README's layout lists %s, which layers does not name", pkg)
		}
	}
}

// backticked are the `quoted` names of a comma-separated list, in order.
func backticked(list string) []string {
	var names []string
	for _, f := range strings.Split(list, ", ") {
		names = append(names, strings.Trim(f, "`"))
	}
	return names
}

// redisClients are the Redis client's modules: only fleet (what a fleet shares through Redis)
// imports them; the server sees its interfaces.
var redisClients = []string{"github.com/redis/go-redis", "github.com/go-redis/redis_rate"}

func isRedis(imp string) bool {
	return slices.ContainsFunc(redisClients, func(p string) bool { return strings.HasPrefix(imp, p) })
}

func isSDK(imp string) bool {
	return slices.ContainsFunc(sdk, func(p string) bool { return strings.HasPrefix(imp, p) })
}
