package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// buildCorpus builds the pipeline in dir (extract skipped: no model) into
// out and returns the bundle directory of the build.
func buildCorpus(t *testing.T, dir, out string) string {
	t.Helper()
	code, stdout, stderr := runCaptured(t, "", "build", "--pipeline", filepath.Join(dir, "p.yaml"), "--out", out, "--json")
	if code != exitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Bundle string `json:"bundle"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Bundle
}

// TestDiff_OneDocumentChanged builds two bundles from testdata/corpus, the
// second with one sentence of one document changed: diff lists what that
// changed (the document's chunk nodes and their edges) and exits 1; a
// bundle against itself is equal and exits 0.
func TestDiff_OneDocumentChanged(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	for _, name := range []string{"overview.md", "suppliers.txt", "inventory.tsv"} {
		raw, err := os.ReadFile(filepath.Join("../../testdata/corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pipeline := "name: diff\nsources:\n  - {name: docs, paths: [\"*.md\", \"*.txt\"]}\n  - {name: tables, paths: [\"*.tsv\"]}\n" +
		"extract: {skip: true}\nresolve: {embeddings: false}\nneo4j: {mode: never}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(pipeline), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1") // any model call would fail the build
	old := buildCorpus(t, dir, out)
	doc := filepath.Join(dir, "overview.md")
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	changedText := strings.Replace(string(raw), "was founded in 2011", "was founded in 2010", 1)
	if changedText == string(raw) {
		t.Fatal("the sentence to change is not in overview.md")
	}
	if err := os.WriteFile(doc, []byte(changedText), 0o600); err != nil {
		t.Fatal(err)
	}
	now := buildCorpus(t, dir, out)

	code, stdout, stderr := runCaptured(t, "", "diff", old, now, "--json")
	if code != exitFailed {
		t.Fatalf("diff of different bundles: exit %d, want %d\n%s", code, exitFailed, stderr)
	}
	var d graphDiff
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if d.Equal || len(d.Kinds) != 4 || d.Kinds[0].Kind != "nodes" || d.Kinds[1].Kind != "edges" {
		t.Fatalf("diff: %+v", d)
	}
	nodes := d.Kinds[0]
	if len(nodes.Added) == 0 || len(nodes.Removed) == 0 || len(nodes.Added) != len(nodes.Removed) {
		t.Errorf("nodes: %d added, %d removed; want the changed chunk's node replaced by a new one", len(nodes.Added), len(nodes.Removed))
	}
	for _, it := range append(nodes.Added, nodes.Removed...) {
		if !strings.HasPrefix(it.Label, "chunk") {
			t.Errorf("node %s %s changed; only the changed document's chunks should", it.ID, it.Label)
		}
	}
	if len(nodes.Changed) == 0 || !strings.Contains(nodes.Changed[0].Label, "overview.md") {
		t.Errorf("changed nodes %+v: want the document overview.md (its digest)", nodes.Changed)
	}
	if e := d.Kinds[1]; len(e.Added) == 0 || len(e.Removed) == 0 {
		t.Errorf("edges: %d added, %d removed; want the new chunk's edges in, the old one's out", len(e.Added), len(e.Removed))
	}

	code, stdout, _ = runCaptured(t, "", "diff", old, now)
	if code != exitFailed || !strings.Contains(stdout, "nodes: ") || !strings.Contains(stdout, "  + ") || !strings.Contains(stdout, "  - ") {
		t.Errorf("text diff: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCaptured(t, "", "diff", now, now)
	if code != exitOK || !strings.Contains(stdout, "same graph") {
		t.Errorf("a bundle against itself: exit %d\n%s", code, stdout)
	}
	if code, _, _ := runCaptured(t, "", "diff", now); code != exitUsage {
		t.Errorf("one argument: exit %d, want %d", code, exitUsage)
	}
}
