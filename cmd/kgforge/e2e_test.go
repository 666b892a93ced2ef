package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kgforge/agent"
	"kgforge/bundle"
	"kgforge/extract"
	"kgforge/ingest"
	"kgforge/kg"
	"kgforge/load"
	"kgforge/pipelines"
	"kgforge/stages"
)

func TestRun_UsageErrors(t *testing.T) {
	cases := map[string][]string{
		"no pipeline":          {"build"},
		"missing pipeline":     {"build", "--pipeline", "nope.yaml"},
		"unknown flag":         {"build", "--nope"},
		"bad log format":       {"--log-format", "xml", "build", "--pipeline", "x"},
		"ask without dir":      {"ask", "question"},
		"load without dir":     {"load", "neo4j"},
		"ask without question": {"ask", "--bundle", "x"},
		"verify without dir":   {"bundle", "verify"},
		"diff of one bundle":   {"bundle", "diff", "a"},
		"pack of two":          {"bundle", "pack", "a", "b"},
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

// TestBuildE2EIntegration runs the CLI end to end against the real Ollama
// and Neo4j on testdata/e2e, one short source of every kind the example has
// (a handful of chunks, so the test does not wait on the model for long):
// two builds, the bundle, verify, query, ask and a reload. It loads a graph
// of its own name, removes it at the end, and leaves the demo's graph as it
// found it.
func TestBuildE2EIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	if os.Getenv("NEO4J_URI") == "" {
		t.Fatal("KGFORGE_INTEGRATION is set but NEO4J_URI is not")
	}
	ctx := e2eContext(t)
	out := t.TempDir()
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir()) // the first build really calls the model
	pipeline, graph := e2eCorpus(t)
	l := testLoader(t, graph)

	first := buildPipeline(ctx, t, pipeline, out)
	if first.LLM.Calls == 0 {
		t.Fatal("first build made no LLM calls")
	}
	// The model's triplets are each kept or dropped for a reason; a weak
	// model may have every one dropped (docs/extraction.md).
	if n := first.Extract.Kept + sumCounts(first.Extract.Dropped); n == 0 {
		t.Fatal("the model gave no triplet to keep or drop")
	}
	b1, err := bundle.Open(first.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b1.Close() })
	ids1 := checkBundle(t, b1)
	checkEveryKind(t, b1)

	// Neo4j holds exactly the bundle's graph, under the test's own name.
	m := b1.Manifest
	nodes, rels, err := l.Counts(ctx, graph)
	if err != nil {
		t.Fatal(err)
	}
	if m.Pipeline != graph || nodes != m.Counts["nodes"] || rels != m.Counts["edges"] {
		t.Errorf("neo4j graph %s has %d nodes %d relationships, bundle of %s %d %d", graph, nodes, rels, m.Pipeline, m.Counts["nodes"], m.Counts["edges"])
	}
	checkCommands(ctx, t, out)
	checkRebuild(ctx, t, l, pipeline, out, first, ids1)
}

// e2eContext ends a minute before the test binary's deadline (-timeout), so
// that with a model too slow for it the build fails and the test still
// removes what it loaded, instead of the binary panicking past its cleanups.
func e2eContext(t *testing.T) context.Context {
	deadline, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline.Add(-time.Minute))
	t.Cleanup(cancel)
	return ctx
}

// checkRebuild builds the unchanged corpus again and checks that the
// second build is served from the cache, gives the same ids, becomes the
// current build in Neo4j without changing the graph, and that loading it
// once more through the CLI writes nothing.
func checkRebuild(ctx context.Context, t *testing.T, l *load.Loader, pipeline, out string, first *stages.Report, ids1 map[string][]string) {
	t.Helper()
	graph := first.Pipeline
	nodes, rels, err := l.Counts(ctx, graph)
	if err != nil {
		t.Fatal(err)
	}
	second := buildPipeline(ctx, t, pipeline, out)
	// Every extract unit is reused from its segment: no chunk reaches the
	// extractor, let alone the model.
	if second.LLM.Calls != 0 || second.Plan.ChunksReused != second.Chunks || second.Plan.Units["extract"].Run != 0 {
		t.Errorf("second build: %d LLM calls, %d of %d chunks reused, %d extract units run",
			second.LLM.Calls, second.Plan.ChunksReused, second.Chunks, second.Plan.Units["extract"].Run)
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
			t.Errorf("%s ids differ between two builds of the unchanged corpus", kind)
		}
	}
	if n2, r2, _ := l.Counts(ctx, graph); n2 != nodes || r2 != rels {
		t.Errorf("reloading the same graph changed neo4j: %d %d -> %d %d", nodes, rels, n2, r2)
	}
	if cur, err := l.Holds(ctx, graph); err != nil || cur != second.BuildID { // loaded incrementally: the nodes keep the first build's id
		t.Errorf("neo4j holds build %q (%v), want %s", cur, err, second.BuildID)
	}
	cli(ctx, t, exitOK, "load", "neo4j", "--bundle", out)
	if n3, r3, _ := l.Counts(ctx, graph); n3 != nodes || r3 != rels {
		t.Errorf("kgforge load neo4j of the current build changed neo4j: %d %d -> %d %d", nodes, rels, n3, r3)
	}
}

// e2eCorpus copies testdata/e2e to a temporary directory under a pipeline
// name of its own, kgforge-test-<random>, which is also its Neo4j graph: a
// test never writes the graph of the demo, of a user, or of another run.
func e2eCorpus(t *testing.T) (pipeline, graph string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "e2e")
	if err := os.CopyFS(dir, os.DirFS("../../testdata/e2e")); err != nil {
		t.Fatal(err)
	}
	pipeline = filepath.Join(dir, "pipeline.yaml")
	raw, err := os.ReadFile(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	const name = "\nname: kgforge-e2e\n"
	if strings.Count(string(raw), name) != 1 {
		t.Fatalf("%s: no line %q to rename", pipeline, strings.TrimSpace(name))
	}
	graph = fmt.Sprintf("kgforge-test-%016x", rand.Uint64())
	raw = []byte(strings.Replace(string(raw), name, "\nname: "+graph+"\n", 1))
	if err := os.WriteFile(pipeline, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return pipeline, graph
}

// testLoader connects to Neo4j for the test's checks and, at its end,
// removes the test's graph and checks that nothing of it is left and that
// the demo's graph (pipelines/example.yaml) is as it was.
func testLoader(t *testing.T, graph string) *load.Loader {
	t.Helper()
	ctx := context.Background()
	l, err := load.New(ctx, *neo4jFromEnv(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(ctx) })
	demo, err := pipelines.Load("../../pipelines/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	demoNodes, demoRels, err := l.Counts(ctx, demo.Name)
	if err != nil {
		t.Fatal(err)
	}
	demoBuild, err := l.Current(ctx, demo.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := l.Drop(ctx, graph); err != nil {
			t.Errorf("remove the test graph: %v", err)
		}
		if cur, err := l.Current(ctx, graph); err != nil || cur != "" {
			t.Errorf("after cleanup graph %s still has build %q (%v)", graph, cur, err)
		}
		n, r, err := l.Counts(ctx, demo.Name)
		cur, err2 := l.Current(ctx, demo.Name)
		if err := errors.Join(err, err2); err != nil || n != demoNodes || r != demoRels || cur != demoBuild {
			t.Errorf("the demo graph %s changed: build %q, %d nodes, %d relationships before; %q, %d, %d after (%v)",
				demo.Name, demoBuild, demoNodes, demoRels, cur, n, r, err)
		}
	})
	return l
}

// checkEveryKind checks that the corpus has a source of every kind the
// example names, and that each became chunks or tables.
func checkEveryKind(t *testing.T, b *bundle.Bundle) {
	t.Helper()
	chunks := map[string]int{}
	if err := b.Chunks(context.Background(), func(c kg.Chunk) error { chunks[c.SourceID]++; return nil }); err != nil {
		t.Fatal(err)
	}
	tables, err := b.Tables()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		chunks[tb.SourceID]++
	}
	got := map[kg.SourceKind]bool{}
	for _, s := range b.Manifest.Sources {
		got[kg.SourceKind(s.Kind)] = true
		if chunks[s.ID] == 0 {
			t.Errorf("source %s (%s) gave no chunk and no table", s.URI, s.Kind)
		}
	}
	for _, k := range exampleKinds(t) {
		if !got[k] {
			t.Errorf("the example has %s sources, testdata/e2e none: add a short one", k)
		}
	}
}

// exampleKinds returns the kinds of the files the example pipeline names.
func exampleKinds(t *testing.T) []kg.SourceKind {
	t.Helper()
	p, err := pipelines.Load("../../pipelines/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(p.Resolve(p.Root))
	var kinds []kg.SourceKind
	for _, s := range p.Sources {
		for _, pat := range s.Paths {
			files, err := fs.Glob(fsys, pat)
			if err != nil || len(files) == 0 {
				t.Fatalf("example source %s: pattern %s matches %d files (%v)", s.Name, pat, len(files), err)
			}
			for _, f := range files {
				if k := kg.SourceKind(s.Kind); k != "" {
					kinds = append(kinds, k)
				} else {
					kinds = append(kinds, ingest.KindOf(f))
				}
			}
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// checkCommands runs verify, query and ask on the output directory.
func checkCommands(ctx context.Context, t *testing.T, out string) {
	t.Helper()
	if got := cli(ctx, t, exitOK, "bundle", "verify", out); !strings.HasPrefix(got, "ok: ") {
		t.Errorf("bundle verify printed %q", got)
	}
	if got := strings.Fields(cli(ctx, t, exitOK, "query", "--bundle", out, "SELECT count(*) AS n FROM orders")); !slices.Equal(got, []string{"n", "40"}) {
		t.Errorf("query of the orders table printed %q, want n and 40", got)
	}
	cli(ctx, t, anyFailure, "query", "--bundle", out, "DELETE FROM orders")
	const steps = 2
	var ans agent.Answer
	args := []string{"ask", "--bundle", out, "--budget", strconv.Itoa(steps), "--json", "Which supplier delivered batch KA-2503-17?"}
	var code int
	raw := captureStdout(t, func() { code = run(ctx, args) })
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatalf("ask --json (exit code %d): %v\n%s", code, err, raw)
	}
	// A question the model does not answer within the budget is exit code
	// 6 (no answer), an answered one 0: the code follows the answer.
	if want := map[bool]int{true: exitOK, false: exitNoAnswer}[ans.Answered]; code != want {
		t.Errorf("kgforge %s: exit code %d, want %d for answered=%v%s", strings.Join(args, " "), code, want, ans.Answered, outOfTime(ctx))
	}
	if len(ans.Steps) == 0 || len(ans.Steps) > steps || ans.Text == "" || ans.Answered == ans.BudgetSpent {
		t.Errorf("ask: %d steps (budget %d), first %+v, answer %q", len(ans.Steps), steps, ans.Steps, ans.Text)
	}
	t.Logf("ask: answered %v in %d steps: %q", ans.Answered, len(ans.Steps), ans.Text)
}

// anyFailure is the exit code cli wants of a command that must fail,
// whatever its code.
const anyFailure = -1

// cli runs kgforge with args, checks its exit code and returns its stdout.
func cli(ctx context.Context, t *testing.T, want int, args ...string) string {
	t.Helper()
	var code int
	stdout := captureStdout(t, func() { code = run(ctx, args) })
	if code != want && (want != anyFailure || code == exitOK) {
		t.Errorf("kgforge %s: exit code %d, want %d%s\n%s", strings.Join(args, " "), code, want, outOfTime(ctx), stdout)
	}
	return string(stdout)
}

func buildPipeline(ctx context.Context, t *testing.T, pipeline, out string) *stages.Report {
	t.Helper()
	var code int
	stdout := captureStdout(t, func() { code = run(ctx, []string{"build", "--pipeline", pipeline, "--out", out, "--json"}) })
	if code != exitOK && code != exitPartial {
		t.Fatalf("build exit code %d%s", code, outOfTime(ctx))
	}
	var rep stages.Report
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	t.Logf("build %s: %d chunks, %d triplets kept, dropped %v, %d nodes, %d edges, %d LLM calls, %.1f tokens/s, rejected %d",
		rep.BuildID, rep.Chunks, rep.Triplets, rep.Extract.Dropped, rep.Nodes, rep.Edges, rep.LLM.Calls, rep.TokensPS, len(rep.Rejected))
	for _, rj := range rep.Rejected {
		if rj.Stage != "extract" {
			t.Errorf("build rejected %s at %s: %s", rj.Item, rj.Stage, rj.Reason)
		}
	}
	return &rep
}

// outOfTime says why a command failed when the test's time ran out.
func outOfTime(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	return " (the test's time ran out first: the model answers too slowly for -timeout)"
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
	if len(chunks) == 0 {
		t.Fatal("bundle has no chunks")
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
		if reason := extract.CheckTriplet(tr.Subject.Surface, tr.Predicate, tr.Object.Surface, tr.Evidence); reason != "" {
			t.Errorf("triplet %s (%q, %q, %q) kept, but it is %s", tr.ID, tr.Subject.Surface, tr.Predicate, tr.Object.Surface, reason)
		}
		ids["triplet"] = append(ids["triplet"], tr.ID)
	}
	if err := b.Nodes(ctx, func(n kg.Node) error { ids["node"] = append(ids["node"], n.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := b.Edges(ctx, func(e kg.Edge) error { ids["edge"] = append(ids["edge"], e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	// DuckDB reads the Parquet files (the sandbox loads each into a table of
	// its name) and finds the manifest's counts.
	sb, err := b.Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	for _, f := range []string{bundle.NodesFile, bundle.EdgesFile, bundle.ChunksFile, bundle.SourcesFile, bundle.TripletsFile, bundle.MergesFile} {
		view := strings.TrimSuffix(f, ".parquet")
		_, rows, _, err := sb.Query(ctx, "SELECT count(*) FROM "+view, 1)
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

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
