package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gopkg.in/yaml.v3"
)

type composeService struct {
	Image       string
	Build       any
	Command     []string
	Environment map[string]string
	Ports       []string
	DependsOn   dependsOn `yaml:"depends_on"`
	Volumes     []string
}

type composeFile struct {
	Services map[string]composeService
	Volumes  map[string]any
}

// dependsOn maps each service a service waits for to the condition it waits for; the short
// form (a list of names) means service_started.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	*d = dependsOn{}
	var names []string
	if n.Decode(&names) == nil {
		for _, name := range names {
			(*d)[name] = "service_started"
		}
		return nil
	}
	var long map[string]struct{ Condition string }
	if err := n.Decode(&long); err != nil {
		return err
	}
	for name, v := range long {
		(*d)[name] = v.Condition
	}
	return nil
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	var c composeFile
	if err := yaml.Unmarshal([]byte(readRepoFile(t, "compose.yaml")), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

// imageEnv is the ENV of the Dockerfile's final stage: what the server sees before compose adds
// its environment.
func imageEnv(t *testing.T) (env map[string]string, user string) {
	t.Helper()
	env = map[string]string{}
	for _, in := range dockerfile(t) {
		switch in[0] {
		case "FROM":
			env, user = map[string]string{}, ""
		case "ENV":
			for _, kv := range strings.Fields(in[1]) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
		case "USER":
			user = in[1]
		}
	}
	return env, user
}

// mount is one volume of a service: name:target[:ro].
type mount struct {
	volume, target string
	readOnly       bool
}

func mounts(s composeService) []mount {
	var out []mount
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 {
			out = append(out, mount{parts[0], parts[1], len(parts) > 2 && parts[2] == "ro"})
		}
	}
	return out
}

// composeSecret runs the service that generates the server's HS256 secret the way the container
// would, with the volume's mount point replaced by dir: its command must be `sh <flags> <script>`
// with nothing for compose to interpolate. Without root, chown is left out.
func composeSecret(t *testing.T, gen composeService, target, dir string) {
	t.Helper()
	if len(gen.Command) != 3 || gen.Command[0] != "sh" {
		t.Fatalf("the secret generator's command is not sh <flags> <script>: %q", gen.Command)
	}
	script := gen.Command[2]
	if strings.Contains(strings.ReplaceAll(script, "$$", ""), "$") {
		t.Fatalf("compose would interpolate the generator's script (write $$ for $):\n%s", script)
	}
	script = strings.ReplaceAll(strings.ReplaceAll(script, "$$", "$"), target, dir)
	if os.Geteuid() != 0 {
		script = strings.ReplaceAll(script, "chown ", ": ")
	}
	if out, err := exec.Command("sh", gen.Command[1], script).CombinedOutput(); err != nil {
		t.Fatalf("the secret generator failed: %v\n%s", err, out)
	}
}

func TestComposeRunsDynamoDBLocalAndTheServer(t *testing.T) {
	c := readCompose(t)
	ddb, ok := c.Services["dynamodb"]
	if !ok || !strings.HasPrefix(ddb.Image, "amazon/dynamodb-local:") || strings.HasSuffix(ddb.Image, ":latest") {
		t.Fatalf("no dynamodb service on a pinned amazon/dynamodb-local image: %+v", ddb)
	}
	ddbPort := "8000"
	if i := slices.Index(ddb.Command, "-port"); i >= 0 && i+1 < len(ddb.Command) {
		ddbPort = ddb.Command[i+1]
	}
	if !slices.Contains(ddb.Command, "-inMemory") {
		t.Errorf("DynamoDB Local command %v", ddb.Command)
	}
	srv, ok := c.Services["server"]
	if !ok || srv.Build == nil {
		t.Fatal("no server service built from the Dockerfile")
	}
	if _, waits := srv.DependsOn["dynamodb"]; !slices.Contains(srv.Command, "-create-table") || !slices.Contains(srv.Command, "-seed") || !waits {
		t.Errorf("the server does not create the table and load the sample data after DynamoDB Local: %v %v", srv.Command, srv.DependsOn)
	}
	env := srv.Environment
	if want := "http://dynamodb:" + ddbPort; env["AWS_ENDPOINT_URL_DYNAMODB"] != want {
		t.Errorf("AWS_ENDPOINT_URL_DYNAMODB=%q, want %q", env["AWS_ENDPOINT_URL_DYNAMODB"], want)
	}
	for _, k := range []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if env[k] == "" {
			t.Errorf("%s is not set for DynamoDB Local", k)
		}
	}
	published := map[string]bool{}
	for _, p := range srv.Ports {
		parts := strings.Split(p, ":")
		if len(parts) < 2 || parts[0] != "127.0.0.1" {
			t.Errorf("port %q is not published on the loopback interface only", p)
		}
		published[parts[len(parts)-1]] = true
	}
	cfg := composeServerConfig(t, c)
	_, adminPort, _ := net.SplitHostPort(cfg.ops.adminAddr)
	for _, port := range []string{strconv.Itoa(cfg.port), adminPort} {
		if !published[port] {
			t.Errorf("container port %s is not published (ports %v)", port, srv.Ports)
		}
	}
}

// devSecret is how compose hands the server its HS256 secret: the server's mount of a volume
// that holds the file AUTH_HS256_SECRET_FILE names, the service that fills that volume, and that
// service's mount of it. ok is false when the secret comes from no such volume.
type devSecret struct {
	server, generator mount
	name              string
	rel               string // the file's path inside the volume
}

func findDevSecret(c composeFile) (d devSecret, ok bool) {
	path := c.Services["server"].Environment["AUTH_HS256_SECRET_FILE"]
	for _, m := range mounts(c.Services["server"]) {
		if rel, in := strings.CutPrefix(path, m.target+"/"); in {
			d.server, d.rel = m, rel
		}
	}
	for name, s := range c.Services {
		for _, m := range mounts(s) {
			// Another instance of the server mounts the volume too; the generator is the one
			// service of another image that does.
			if s.Image != c.Services["server"].Image && d.server.volume != "" && m.volume == d.server.volume {
				d.name, d.generator, ok = name, m, true
			}
		}
	}
	return d, ok
}

// composeServerConfig generates the development secret as compose would, into a temporary
// directory, and returns the configuration the server accepts from the image's and the compose
// file's environment, flags included.
func composeServerConfig(t *testing.T, c composeFile) config {
	t.Helper()
	return composeServiceConfig(t, c, "server")
}

// composeServiceConfig is composeServerConfig for the server service name.
func composeServiceConfig(t *testing.T, c composeFile, name string) config {
	t.Helper()
	srv := c.Services[name]
	env, _ := imageEnv(t)
	for k, v := range srv.Environment {
		env[k] = v
	}
	if d, ok := findDevSecret(c); ok {
		dir := t.TempDir()
		composeSecret(t, c.Services[d.name], d.generator.target, dir)
		env["AUTH_HS256_SECRET_FILE"] = filepath.Join(dir, d.rel)
	}
	cfg, err := parseConfig(srv.Command, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("the server refuses the compose configuration of %s: %v", name, err)
	}
	return cfg
}

// compose runs the server as `make run` does, with development tokens signed by a secret a
// one-shot service generates into a volume, not with authentication off. The container listens on
// every interface, so the file says that only the host's loopback reaches it, and it publishes
// every port on 127.0.0.1 only; the Host header check stays on.
func TestComposeServesDevelopmentTokensSignedWithAGeneratedSecret(t *testing.T) {
	c := readCompose(t)
	srv := c.Services["server"]
	env := srv.Environment
	if env["AUTH_DISABLED"] != "" || env["AUTH_HS256_SECRET"] != "" {
		t.Fatalf("the server runs without tokens or with a secret written in the file: %v", env)
	}
	cfg := composeServerConfig(t, c)
	if !cfg.Auth.DevTokens || cfg.Auth.Disabled || len(cfg.Auth.HS256Secret) < 32 || cfg.guard.host != "0.0.0.0" || !cfg.devTokensBehindLoopback {
		t.Fatalf("want development tokens with a generated secret, listening on 0.0.0.0 behind the loopback: dev tokens %v, disabled %v, secret of %d bytes, host %q, behind loopback %v",
			cfg.Auth.DevTokens, cfg.Auth.Disabled, len(cfg.Auth.HS256Secret), cfg.guard.host, cfg.devTokensBehindLoopback)
	}
	for _, p := range srv.Ports {
		if !strings.HasPrefix(p, "127.0.0.1:") {
			t.Fatalf("with development tokens on, port %q must be published on 127.0.0.1 only", p)
		}
	}
	// Without the statement that only the loopback reaches it, the server refuses to start.
	imgEnv, _ := imageEnv(t)
	merged := map[string]string{"AUTH_HS256_SECRET": cfg.Auth.HS256Secret}
	for k, v := range imgEnv {
		merged[k] = v
	}
	for k, v := range env {
		if k != "AUTH_DEV_TOKENS_BEHIND_LOOPBACK" && k != "AUTH_HS256_SECRET_FILE" {
			merged[k] = v
		}
	}
	if _, err := parseConfig(srv.Command, func(k string) string { return merged[k] }, io.Discard); err == nil {
		t.Fatal("development tokens on 0.0.0.0 were accepted without AUTH_DEV_TOKENS_BEHIND_LOOPBACK")
	}
}

// The secret's generator: a pinned image, run to completion before the server starts, writing a
// secret only the server's user can read, once (later runs keep it, so printed tokens stay
// valid, and a fresh volume gets a new one), into a volume the server mounts read-only.
func TestComposeGeneratesTheDevelopmentSecretOnce(t *testing.T) {
	c := readCompose(t)
	d, ok := findDevSecret(c)
	if !ok || !d.server.readOnly || !mapHas(c.Volumes, d.server.volume) {
		t.Fatalf("the secret file is not on a declared volume that another service fills and the server mounts read-only: %+v", d)
	}
	gen := c.Services[d.name]
	if image, tag, ok := strings.Cut(gen.Image, ":"); !ok || image == "" || tag == "" || tag == "latest" {
		t.Errorf("the generator's image %q is not pinned", gen.Image)
	}
	if cond := c.Services["server"].DependsOn[d.name]; cond != "service_completed_successfully" {
		t.Errorf("the server does not wait for %s to complete: %q", d.name, cond)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, d.rel)
	composeSecret(t, gen, d.generator.target, dir)
	first, err := os.ReadFile(file)
	if err != nil || len(bytes.TrimSpace(first)) < 32 {
		t.Fatalf("generated secret %q: %v", first, err)
	}
	fi, _ := os.Stat(file)
	if fi.Mode().Perm() != 0o400 {
		t.Errorf("the secret's mode is %v, want 0400", fi.Mode().Perm())
	}
	_, user := imageEnv(t)
	uid, _, _ := strings.Cut(user, ":")
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 && strconv.Itoa(int(st.Uid)) != uid {
		t.Errorf("the secret belongs to uid %d, the server runs as %s", st.Uid, user)
	}
	composeSecret(t, gen, d.generator.target, dir)
	if again, _ := os.ReadFile(file); !bytes.Equal(again, first) {
		t.Error("running the generator again replaced the secret: printed tokens would stop working")
	}
	other := t.TempDir()
	composeSecret(t, gen, d.generator.target, other)
	if fresh, _ := os.ReadFile(filepath.Join(other, d.rel)); bytes.Equal(fresh, first) {
		t.Error("two fresh volumes got the same secret")
	}
}

func mapHas(m map[string]any, k string) bool { _, ok := m[k]; return ok }
