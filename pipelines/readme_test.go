package pipelines

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEShowsTheExamplePipeline keeps the pipeline file the README shows
// equal to pipelines/example.yaml, and that file valid, so a newcomer who
// copies it gets what `make demo` runs.
func TestREADMEShowsTheExamplePipeline(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "`pipelines/example.yaml`"
	_, after, ok := strings.Cut(string(readme), marker)
	if !ok {
		t.Fatalf("README.md does not name %s", marker)
	}
	_, after, ok = strings.Cut(after, "```yaml\n")
	if !ok {
		t.Fatal("README.md has no yaml block after " + marker)
	}
	shown, _, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("README.md's yaml block is not closed")
	}
	if shown != string(file) {
		t.Errorf("README.md's pipeline block differs from pipelines/example.yaml:\n--- README\n%s--- file\n%s", shown, file)
	}
	p, err := Load("example.yaml")
	if err != nil {
		t.Fatalf("pipelines/example.yaml: %v", err)
	}
	for _, s := range p.Sources {
		for _, g := range s.Paths {
			m, err := filepath.Glob(filepath.Join(p.Resolve(p.Root), g))
			if err != nil || len(m) == 0 {
				t.Errorf("pipelines/example.yaml: source %s: %q matches no file (%v)", s.Name, g, err)
			}
		}
	}
}
