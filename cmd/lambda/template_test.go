package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The SAM template deploys what `make build` builds: the bootstrap binary of this command, on the
// OS-only runtime, with the table name in DYNAMODB_TABLE.
func TestSAMTemplateDeploysTheBuiltBinary(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "lambda.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Transform string `yaml:"Transform"`
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				CodeUri     string `yaml:"CodeUri"`
				Handler     string `yaml:"Handler"`
				Runtime     string `yaml:"Runtime"`
				Environment struct {
					Variables map[string]string `yaml:"Variables"`
				} `yaml:"Environment"`
				FunctionUrlConfig map[string]any `yaml:"FunctionUrlConfig"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(raw, &tmpl); err != nil {
		t.Fatalf("deploy/lambda.yaml: %v", err)
	}
	fn, ok := tmpl.Resources["Api"]
	if !ok || fn.Type != "AWS::Serverless::Function" || tmpl.Transform != "AWS::Serverless-2016-10-31" {
		t.Fatalf("no SAM function Api: %+v", tmpl)
	}
	p := fn.Properties
	if p.Handler != "bootstrap" || !strings.HasPrefix(p.Runtime, "provided.") {
		t.Errorf("handler %q on runtime %q, want bootstrap on an OS-only runtime", p.Handler, p.Runtime)
	}
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`-o (\S+)/bootstrap \./cmd/lambda`).FindSubmatch(mk)
	if out == nil {
		t.Fatal("make build does not build ./cmd/lambda as bootstrap")
	}
	if got, want := filepath.Clean(filepath.Join("deploy", p.CodeUri)), filepath.Clean(string(out[1])); got != want {
		t.Errorf("CodeUri is %s, make build writes %s", got, want)
	}
	if _, ok := p.Environment.Variables["DYNAMODB_TABLE"]; !ok {
		t.Error("the function gets no DYNAMODB_TABLE")
	}
	if p.FunctionUrlConfig == nil {
		t.Error("the function has no function URL")
	}
}
