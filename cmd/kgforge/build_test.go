package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/extract"
	"kgforge/stages"
)

// tablesPipeline writes a pipeline of one CSV file and returns its path.
func tablesPipeline(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "parts.csv"), []byte("part_id,name\nP1,Frame\nP2,Wheel\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: tables\nsources:\n  - {name: tables, paths: [\"*.csv\"]}\nneo4j: {mode: never}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	return pf
}

// TestBuild_BusyOutputExitsWithItsOwnCode holds the lock of an output
// directory as another build would, and runs kgforge build into it: the
// build stops at once with exit code 4 and writes nothing.
func TestBuild_BusyOutputExitsWithItsOwnCode(t *testing.T) {
	out := t.TempDir()
	f, err := os.Create(filepath.Join(out, stages.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"build_id":"20260101T000000Z-abcdef","host":"h","pid":1,"started":"2026-01-01T00:00:00Z"}`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	if code := run(context.Background(), []string{"build", "--pipeline", tablesPipeline(t), "--out", out}); code != exitBusy {
		t.Errorf("exit code %d, want %d", code, exitBusy)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the busy build wrote into the output: %v", entries)
	}
}

// TestBuild_TablesOnlyNeedsNoOllama runs kgforge build on a pipeline of
// tables with OLLAMA_HOST pointing at a closed port: it exits 0 with a
// bundle.
func TestBuild_TablesOnlyNeedsNoOllama(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	if code := run(context.Background(), []string{"build", "--pipeline", tablesPipeline(t), "--out", out}); code != exitOK {
		t.Fatalf("exit code %d, want %d", code, exitOK)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if b.Manifest.Counts["rows:parts"] != 2 {
		t.Errorf("bundle counts %v; want table parts with 2 rows", b.Manifest.Counts)
	}
}

// TestPrintSummary_ReadableStagesAndDrops renders a report: stages in the
// order they run with rounded durations and what each counted, drops by
// reason largest first, and no Go map syntax anywhere.
func TestPrintSummary_ReadableStagesAndDrops(t *testing.T) {
	r := &stages.Report{
		BuildID: "20260101T000000Z-abcdef", Status: stages.StatusOK, Bundle: "out/20260101T000000Z-abcdef",
		Stages: map[string]stages.StageReport{
			"bundle":      {Duration: 310 * time.Millisecond, Items: 700},
			"extract":     {Duration: 4*time.Minute + 3400*time.Millisecond, Items: 40},
			"ingest":      {Duration: 1234 * time.Millisecond, Items: 1},
			"consolidate": {Duration: 840400 * time.Microsecond, Items: 300},
			"shard":       {Duration: 2 * time.Second, Items: 3},
		},
		Sources: 12, Tables: 2, Chunks: 40, Triplets: 55, Nodes: 300, Edges: 400, Merges: 7,
		Extract: extract.Stats{CacheHits: 10, Dropped: map[string]int{
			extract.DropDuplicate: 1, extract.DropEvidenceNotFound: 2, extract.DropSelfLoop: 1, extract.DropIncomplete: 0,
		}, EntitiesKept: 20, EntitiesDropped: map[string]int{extract.DropEntityIsClause: 3, extract.DropEntityFromExamples: 1}},
	}
	var buf bytes.Buffer
	buf.WriteString(summary(r))
	want := `build 20260101T000000Z-abcdef: ok
  bundle:    out/20260101T000000Z-abcdef
  stages:    ingest 1.2s (1 source), extract 4m3s (40 chunks), consolidate 840ms (300 nodes), bundle 310ms (700 nodes and edges), shard 2s (3 items)
  sources:   12 (2 tables), 40 chunks
  llm:       0 calls, 0 prompt + 0 completion tokens, 0.0 tokens/s, 10 cache hits
  triplets:  55 kept, dropped 4 (evidence_not_found 2, duplicate_in_chunk 1, subject_is_object 1)
  entities:  20 kept, dropped 4 (entity_is_clause 3, entity_from_examples 1)
  graph:     300 nodes, 400 edges, 7 merges
  neo4j:     not loaded (set NEO4J_URI)
`
	if got := buf.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	buf.Reset()
	buf.WriteString(summary(&stages.Report{Stages: map[string]stages.StageReport{}}))
	if got := buf.String(); strings.Contains(got, "map[") || !strings.Contains(got, "dropped none") || !strings.Contains(got, "stages:    none ran") {
		t.Errorf("summary of an empty report:\n%s", got)
	}
}

// TestPrintSummary_PlanSaysWhatWasReused renders the plan: sources by
// change, sources read, and units run/reused by kind.
func TestPrintSummary_PlanSaysWhatWasReused(t *testing.T) {
	r := &stages.Report{Stages: map[string]stages.StageReport{}, Plan: &stages.Plan{
		Added: []string{"a.md"}, Changed: []string{"b.md"}, Unchanged: []string{"c.md", "d.csv"}, Removed: []string{"e.md"},
		SourcesRead: 2, Units: map[string]*stages.UnitCounts{"source": {Run: 2, Reused: 2}, "extract": {Run: 2, Reused: 5}},
	}}
	want := "  plan:      1 added, 1 changed, 2 unchanged, 1 removed; 2 sources read; units run/reused: extract 2/5, source 2/2\n"
	if got := summary(r); !strings.Contains(got, want) {
		t.Errorf("summary:\n%s\nwant a line:\n%s", got, want)
	}
}

// TestPrintSummary_ReusedUnitsCountAsReused: a rebuild that reused every
// extract unit says how many triplets and entities it holds and that they
// were reused, not "0 kept" beside a graph of hundreds of nodes.
func TestPrintSummary_ReusedUnitsCountAsReused(t *testing.T) {
	r := &stages.Report{
		Stages: map[string]stages.StageReport{}, Triplets: 44, Entities: 120, Nodes: 140,
		Extract: extract.Stats{Kept: 0, EntitiesKept: 0},
		Plan:    &stages.Plan{ChunksReused: 29, Units: map[string]*stages.UnitCounts{"extract": {Reused: 8}}},
	}
	got := summary(r)
	for _, want := range []string{
		"  triplets:  44 kept (0 extracted now, 44 reused), dropped none\n",
		"  entities:  120 kept (0 extracted now, 120 reused), dropped none\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary:\n%s\nwant a line:\n%s", got, want)
		}
	}
	r.Plan.ChunksReused, r.Extract.Kept, r.Extract.EntitiesKept = 0, 44, 120
	if got := summary(r); !strings.Contains(got, "  entities:  120 kept, dropped none\n") {
		t.Errorf("summary of a build that reused nothing:\n%s", got)
	}
}
