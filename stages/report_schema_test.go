package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/llm"
)

// schemaCheck checks v against the subset of JSON Schema that
// docs/run-report.schema.json uses: type, enum, required, properties,
// additionalProperties, items, minimum and $ref into $defs.
type schemaCheck struct {
	defs map[string]any
	errs []string
}

func (c *schemaCheck) check(s map[string]any, v any, path string) {
	if ref, ok := s["$ref"].(string); ok {
		def, ok := c.defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if !ok {
			c.errs = append(c.errs, fmt.Sprintf("%s: unknown $ref %s", path, ref))
			return
		}
		c.check(def, v, path)
		return
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		c.errs = append(c.errs, fmt.Sprintf("%s: %v is not of type %v", path, v, t))
		return
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		c.errs = append(c.errs, fmt.Sprintf("%s: %v is not one of %v", path, v, enum))
	}
	if minimum, ok := s["minimum"].(float64); ok {
		if n, ok := v.(float64); ok && n < minimum {
			c.errs = append(c.errs, fmt.Sprintf("%s: %v is below %v", path, n, minimum))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		c.object(s, v, path)
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range v {
				c.check(items, e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

func (c *schemaCheck) object(s map[string]any, v map[string]any, path string) {
	props, _ := s["properties"].(map[string]any)
	for _, r := range asSlice(s["required"]) {
		if _, ok := v[r.(string)]; !ok {
			c.errs = append(c.errs, fmt.Sprintf("%s: required %s is missing", path, r))
		}
	}
	for k, e := range v {
		if ps, ok := props[k].(map[string]any); ok {
			c.check(ps, e, path+"."+k)
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				c.errs = append(c.errs, fmt.Sprintf("%s.%s: not in the schema (document it in docs/run-report.schema.json and docs/run-report.md)", path, k))
			}
		case map[string]any:
			c.check(ap, e, path+"."+k)
		}
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func typeMatches(t, v any) bool {
	for _, name := range append(asSlice(t), t) {
		switch name {
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "null":
			if v == nil {
				return true
			}
		case "number":
			if _, ok := v.(float64); ok {
				return true
			}
		case "integer":
			if n, ok := v.(float64); ok && n == math.Trunc(n) {
				return true
			}
		}
	}
	return false
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../docs/run-report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("docs/run-report.schema.json: %v", err)
	}
	return s
}

func validateReport(t *testing.T, schema map[string]any, raw []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	defs, _ := schema["$defs"].(map[string]any)
	c := &schemaCheck{defs: defs}
	c.check(schema, v, "report")
	return c.errs
}

// TestRunReportMatchesItsSchema builds twice (tables, a document of
// headings, a gate), and checks the second build's report on disk against
// docs/run-report.schema.json: every field it has is in the schema, with
// its type. A field added to Report without the docs fails here.
func TestRunReportMatchesItsSchema(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	files := map[string]string{"data/parts.csv": "part_id,name\nP1,Frame\nP2,Wheel\n", "docs/toc.md": "# Suppliers\n\n## Frames\n"}
	p := sourceTree(t, dir, files, "name: schema\nsources:\n  - {name: t, paths: [\"data/*.csv\"]}\n  - {name: d, paths: [\"docs/*\"]}\n"+
		"resolve: {embeddings: false}\nneo4j: {mode: never}\ngates: {max_node_drop_percent: 50, new_source_failures: allow}\n")
	t.Setenv("OLLAMA_HOST", closedServer)
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}
	if _, err := rn.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs/broken.pdf"), []byte("not a pdf"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Gates) != 1 || len(rep.Rejected) == 0 || rep.Status != StatusPartial {
		t.Fatalf("the second build should be partial with a gate: %+v, %+v, %s", rep.Gates, rep.Rejected, rep.Status)
	}
	raw, err := os.ReadFile(filepath.Join(out, "reports", rep.BuildID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	schema := loadSchema(t)
	for _, e := range validateReport(t, schema, raw) {
		t.Error(e)
	}
	// The check can fail: a field the schema lacks, a wrong type.
	bad := strings.Replace(string(raw), `"pipeline": "schema",`, `"pipeline": 3, "surprise": 1,`, 1)
	if errs := validateReport(t, schema, []byte(bad)); len(errs) != 2 {
		t.Errorf("a report with an unknown field and a wrong type: %v, want 2 problems", errs)
	}
}
