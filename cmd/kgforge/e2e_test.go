package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/load"
	"kgforge/stages"
)

func TestRun_UsageErrors(t *testing.T) {
	cases := map[string][]string{
		"no pipeline":      {"build"},
		"missing pipeline": {"build", "--pipeline", "nope.yaml"},
		"unknown flag":     {"build", "--nope"},
		"bad log format":   {"--log-format", "xml", "build", "--pipeline", "x"},
		"ask without dir":  {"ask", "question"},
		"load without dir": {"load", "neo4j"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			if code := run(context.Background(), args); code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
		})
	}
	if code := run(context.Background(), []string{"bundle", "verify", t.TempDir()}); code != exitFailed {
		t.Errorf("verify of an empty directory: exit code %d, want %d", code, exitFailed)
	}
}

// TestBuildIntegration runs the example pipeline twice against the real
// Ollama and Neo4j and checks the bundle, the graph and determinism.
func TestBuildIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	if os.Getenv("NEO4J_URI") == "" {
		t.Fatal("KGFORGE_INTEGRATION is set but NEO4J_URI is not")
	}
	ctx := context.Background()
	out := t.TempDir()
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir()) // the first build really calls the model

	first := buildExample(t, out)
	if first.LLM.Calls == 0 {
		t.Fatal("first build made no LLM calls")
	}
	b1, err := bundle.Open(first.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b1.Close() })
	ids1 := checkBundle(t, b1)

	// Neo4j holds exactly the bundle's graph.
	l, err := load.New(ctx, *neo4jFromEnv(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(ctx) })
	m := b1.Manifest
	nodes, rels, err := l.Counts(ctx, m.Pipeline)
	if err != nil {
		t.Fatal(err)
	}
	if nodes != m.Counts["nodes"] || rels != m.Counts["edges"] {
		t.Errorf("neo4j has %d nodes %d relationships, bundle %d %d", nodes, rels, m.Counts["nodes"], m.Counts["edges"])
	}

	// A second build of the unchanged example is served from the cache
	// and gives the same ids.
	second := buildExample(t, out)
	if second.LLM.Calls != 0 || second.Extract.CacheHits+second.Extract.Skipped != second.Chunks-len(rejectedChunks(second)) {
		t.Errorf("second build: %d LLM calls, %d cache hits and %d chunks without sentences of %d chunks",
			second.LLM.Calls, second.Extract.CacheHits, second.Extract.Skipped, second.Chunks)
	}
	b2, err := bundle.Open(out) // the latest link now points at the second build
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b2.Close() })
	if b2.Manifest.BuildID != second.BuildID || second.BuildID == first.BuildID {
		t.Fatalf("latest = %s, builds %s and %s", b2.Manifest.BuildID, first.BuildID, second.BuildID)
	}
	ids2 := checkBundle(t, b2)
	for kind := range ids1 {
		if !slices.Equal(ids1[kind], ids2[kind]) {
			t.Errorf("%s ids differ between two builds of the unchanged example", kind)
		}
	}
	if n2, r2, _ := l.Counts(ctx, m.Pipeline); n2 != nodes || r2 != rels {
		t.Errorf("reloading the same graph changed neo4j: %d %d -> %d %d", nodes, rels, n2, r2)
	}
	if cur, err := l.Current(ctx, m.Pipeline); err != nil || cur != second.BuildID {
		t.Errorf("current build in neo4j = %q (%v), want %s", cur, err, second.BuildID)
	}
}

func buildExample(t *testing.T, out string) *stages.Report {
	t.Helper()
	stdout := captureStdout(t, func() {
		code := run(context.Background(), []string{"build", "--pipeline", "../../pipelines/example.yaml", "--out", out, "--json"})
		if code != exitOK && code != exitPartial {
			t.Fatalf("build exit code %d", code)
		}
	})
	var rep stages.Report
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	t.Logf("build %s: %d chunks, %d triplets kept, dropped %v, %d nodes, %d edges, %d LLM calls, %.1f tokens/s, rejected %d",
		rep.BuildID, rep.Chunks, rep.Triplets, rep.Extract.Dropped, rep.Nodes, rep.Edges, rep.LLM.Calls, rep.TokensPS, len(rep.Rejected))
	return &rep
}

func rejectedChunks(r *stages.Report) []string {
	var ids []string
	for _, rj := range r.Rejected {
		if rj.Stage == "extract" {
			ids = append(ids, rj.Item)
		}
	}
	return ids
}

// checkBundle checks grounding and counts and returns the sorted ids by kind.
func checkBundle(t *testing.T, b *bundle.Bundle) map[string][]string {
	t.Helper()
	ctx := context.Background()
	ids := map[string][]string{}
	chunks := map[string]kg.Chunk{}
	if err := b.Chunks(ctx, func(c kg.Chunk) error { chunks[c.ID] = c; ids["chunk"] = append(ids["chunk"], c.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	var triplets []kg.Triplet
	if err := b.Triplets(ctx, func(x kg.Triplet) error { triplets = append(triplets, x); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(chunks) == 0 || len(triplets) == 0 {
		t.Fatalf("bundle has %d chunks and %d triplets; want some of each", len(chunks), len(triplets))
	}
	for _, tr := range triplets {
		c, ok := chunks[tr.ChunkID]
		if !ok {
			t.Errorf("triplet %s names unknown chunk %s", tr.ID, tr.ChunkID)
			continue
		}
		at := func(s kg.Span) string {
			if s.Start < c.Span.Start || s.End > c.Span.End || s.Start > s.End {
				return "<span outside chunk>"
			}
			return c.Text[s.Start-c.Span.Start : s.End-c.Span.Start]
		}
		if got := at(tr.EvidenceSpan); got != tr.Evidence {
			t.Errorf("triplet %s: evidence %q, but its span holds %q", tr.ID, tr.Evidence, got)
		}
		if got := at(tr.Subject.Span); kg.NormalizeName(got) != kg.NormalizeName(tr.Subject.Surface) {
			t.Errorf("triplet %s: subject %q, but its span holds %q", tr.ID, tr.Subject.Surface, got)
		}
		ids["triplet"] = append(ids["triplet"], tr.ID)
	}
	if err := b.Nodes(ctx, func(n kg.Node) error { ids["node"] = append(ids["node"], n.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := b.Edges(ctx, func(e kg.Edge) error { ids["edge"] = append(ids["edge"], e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	// DuckDB alone reads the Parquet files and finds the manifest's counts.
	sb, err := b.Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	for _, f := range []string{bundle.NodesFile, bundle.EdgesFile, bundle.ChunksFile, bundle.SourcesFile, bundle.TripletsFile, bundle.MergesFile} {
		view := strings.TrimSuffix(f, ".parquet")
		_, rows, _, err := sb.Query(ctx, "SELECT count(*) FROM read_parquet('"+filepath.Join(b.Dir, f)+"')", 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := b.Manifest.Counts[view]; rows[0][0] != itoa(want) {
			t.Errorf("%s: duckdb counts %s rows, manifest %d", f, rows[0][0], want)
		}
	}
	_, rows, _, err := sb.Query(ctx, "SELECT count(*) FROM orders", 1)
	if err != nil || rows[0][0] != "40" {
		t.Errorf("orders table: %v %v, want 40 rows", rows, err)
	}
	for k := range ids {
		slices.Sort(ids[k])
	}
	return ids
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func captureStdout(t *testing.T, fn func()) []byte {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		var buf strings.Builder
		b := make([]byte, 32<<10)
		for {
			n, err := r.Read(b)
			buf.Write(b[:n])
			if err != nil {
				break
			}
		}
		done <- []byte(buf.String())
	}()
	defer func() { os.Stdout = old }()
	fn()
	_ = w.Close()
	return <-done
}
