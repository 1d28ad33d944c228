package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"singletable/repository"
	"singletable/repository/maintenance"
)

// The committed files are what the generator makes of the current definition.
func TestDeployFilesAreGeneratedFromTheDefinition(t *testing.T) {
	files, err := render()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "deploy", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("deploy/%s differs from what the table definition generates: run `go generate ./...` and commit it", name)
		}
	}
}

type keySchema []struct{ AttributeName, KeyType string }

// cfnDocument is the part of the template the tests read, as CloudFormation spells it.
type cfnDocument struct {
	AWSTemplateFormatVersion string
	Resources                map[string]struct {
		Type           string
		DeletionPolicy string
		Properties     struct {
			BillingMode            string
			StreamSpecification    struct{ StreamViewType string }
			AttributeDefinitions   []struct{ AttributeName, AttributeType string }
			KeySchema              keySchema
			GlobalSecondaryIndexes []struct {
				IndexName  string
				KeySchema  keySchema
				Projection struct{ ProjectionType string }
			}
		}
	}
}

// readTemplate reads deploy/template.yaml: decoded generically first (the short forms !Ref and
// !GetAtt are plain tagged scalars to a YAML parser), then matched to the fields by name.
func readTemplate(t *testing.T) cfnDocument {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", templateFile))
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := yaml.Unmarshal(raw, &generic); err != nil {
		t.Fatalf("template.yaml is not YAML: %v", err)
	}
	asJSON, err := json.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	var tmpl cfnDocument
	if err := json.Unmarshal(asJSON, &tmpl); err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// The template, read as CloudFormation reads it, declares the definition's keys, indexes and
// stream.
func TestTemplateDeclaresTheDefinition(t *testing.T) {
	tmpl := readTemplate(t)
	table, ok := tmpl.Resources["Table"]
	if !ok || table.Type != "AWS::DynamoDB::Table" || tmpl.AWSTemplateFormatVersion != "2010-09-09" {
		t.Fatalf("no AWS::DynamoDB::Table resource named Table: %+v", tmpl)
	}
	if table.DeletionPolicy != "Retain" {
		t.Errorf("the table's DeletionPolicy is %q: deleting the stack would delete the data", table.DeletionPolicy)
	}
	def := repository.Definition()
	p := table.Properties
	if p.BillingMode != def.BillingMode {
		t.Errorf("BillingMode %q, want %q", p.BillingMode, def.BillingMode)
	}
	if p.StreamSpecification.StreamViewType != def.StreamViewType {
		t.Errorf("StreamViewType %q, want %q", p.StreamSpecification.StreamViewType, def.StreamViewType)
	}
	var attrs []string
	for _, a := range p.AttributeDefinitions {
		if a.AttributeType != "S" {
			t.Errorf("attribute %s has type %s, want S", a.AttributeName, a.AttributeType)
		}
		attrs = append(attrs, a.AttributeName)
	}
	if !slices.Equal(attrs, def.KeyAttributes()) {
		t.Errorf("attribute definitions %v, want %v", attrs, def.KeyAttributes())
	}
	checkKeys := func(what string, ks keySchema, pk, sk string) {
		if len(ks) != 2 || ks[0].AttributeName != pk || ks[0].KeyType != "HASH" || ks[1].AttributeName != sk || ks[1].KeyType != "RANGE" {
			t.Errorf("%s key schema %+v, want HASH %s, RANGE %s", what, ks, pk, sk)
		}
	}
	checkKeys("table", p.KeySchema, def.PartitionKey, def.SortKey)
	if len(p.GlobalSecondaryIndexes) != len(def.Indexes) {
		t.Fatalf("%d indexes, want %d", len(p.GlobalSecondaryIndexes), len(def.Indexes))
	}
	for i, ix := range def.Indexes {
		got := p.GlobalSecondaryIndexes[i]
		if got.IndexName != ix.Name || got.Projection.ProjectionType != ix.Projection {
			t.Errorf("index %d: %s projecting %s, want %s projecting %s", i, got.IndexName, got.Projection.ProjectionType, ix.Name, ix.Projection)
		}
		checkKeys(ix.Name, got.KeySchema, ix.PartitionKey, ix.SortKey)
	}
}

// The NoSQL Workbench model has the definition's keys and indexes and every sample item.
func TestWorkbenchModelHoldsTheDefinitionAndSampleData(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", workbenchFile))
	if err != nil {
		t.Fatal(err)
	}
	var model workbenchModel
	if err := json.Unmarshal(raw, &model); err != nil {
		t.Fatal(err)
	}
	if len(model.DataModel) != 1 {
		t.Fatalf("%d tables, want 1", len(model.DataModel))
	}
	table := model.DataModel[0]
	def := repository.Definition()
	if table.KeyAttributes.PartitionKey.AttributeName != def.PartitionKey || table.KeyAttributes.SortKey.AttributeName != def.SortKey {
		t.Errorf("keys %+v", table.KeyAttributes)
	}
	var names []string
	for i, ix := range table.GlobalSecondaryIndexes {
		names = append(names, ix.IndexName)
		if want := def.Indexes[i]; ix.KeyAttributes.PartitionKey.AttributeName != want.PartitionKey || ix.KeyAttributes.SortKey.AttributeName != want.SortKey {
			t.Errorf("index %s keys %+v, want %s/%s", ix.IndexName, ix.KeyAttributes, want.PartitionKey, want.SortKey)
		}
	}
	if len(names) != len(def.Indexes) {
		t.Errorf("indexes %v, want %d", names, len(def.Indexes))
	}
	items, err := maintenance.SampleItems(repository.DefaultOrderStatusShards)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.TableData) != len(items) || len(items) == 0 {
		t.Fatalf("%d items in the model, the sample data has %d", len(table.TableData), len(items))
	}
	for _, item := range table.TableData {
		for _, k := range []string{def.PartitionKey, def.SortKey, def.TypeAttribute} {
			if _, ok := item[k]; !ok {
				t.Fatalf("an item lacks %s: %v", k, item)
			}
		}
	}
	if len(table.TableFacets) == 0 {
		t.Error("no facets")
	}
}
