package pipelines

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad_GoodFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.good.yaml")
	files = append(files, "example.yaml")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			p, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if p.Chunking.Size == 0 || p.LLM.Concurrency == 0 || p.Neo4j.Mode == "" || len(p.SHA256) != 64 {
				t.Errorf("defaults not set: %+v", p)
			}
		})
	}
}

func TestLoad_BadFilesReportEveryProblem(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.bad.yaml")
	if len(files) == 0 {
		t.Fatal("no bad fixtures")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			_, err := Load(f)
			if err == nil {
				t.Fatal("want error")
			}
			want, rerr := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".txt")
			if rerr != nil {
				t.Fatal(rerr)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				if !strings.Contains(err.Error(), line) {
					t.Errorf("error lacks %q\nfull error:\n%v", line, err)
				}
			}
			if !strings.Contains(err.Error(), f) {
				t.Errorf("error does not name the file %s", f)
			}
		})
	}
}

func TestPipeline_ResolveIsRelativeToTheFile(t *testing.T) {
	p := &Pipeline{Path: "pipelines/example.yaml"}
	if got := p.Resolve("../out"); got != "out" {
		t.Errorf("Resolve = %q", got)
	}
	if got := p.Resolve("/abs/x"); got != "/abs/x" {
		t.Errorf("Resolve abs = %q", got)
	}
}
