package stages

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
)

// sourceTree writes files (slash paths relative to dir) and the pipeline
// file p.yaml beside them, and loads it.
func sourceTree(t *testing.T, dir string, files map[string]string, pipeline string) *pipelines.Pipeline {
	t.Helper()
	files["p.yaml"] = pipeline
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := pipelines.Load(filepath.Join(dir, "p.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func bundleSources(t *testing.T, dir string) []string {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	var uris []string
	for _, s := range b.Manifest.Sources {
		uris = append(uris, s.URI)
	}
	slices.Sort(uris)
	return uris
}

// TestRunner_OutputInsideTheRootIsNeverReadBack builds twice a pipeline
// whose output and cache lie inside its root, with patterns that match what
// a build writes there (manifests, merge reports, run reports, the latest
// link); the second build reads the same sources as the first. "**" finds
// the file three directories down.
func TestRunner_OutputInsideTheRootIsNeverReadBack(t *testing.T) {
	c, _ := fakeOllama(t, false)
	dir := t.TempDir()
	p := sourceTree(t, dir, map[string]string{
		"data/parts.csv":          "part_id,name\nP1,Frame\nP2,Wheel\n",
		"data/2025/q1/orders.csv": "order_id,part_id\nO1,P1\nO2,P2\n",
		"notes/team.json":         `{"note": "Velora Cycles buys frames from Kestrel Alloys."}`,
	}, `name: t
root: .
output: out
sources:
  - {name: all, paths: ["**/*.csv", "**/*.json"]}
llm: {chat_model: m}
resolve: {embeddings: false} # the fake server has no embedding model
`)
	rn := &Runner{LLM: c, CacheDir: filepath.Join(dir, "cache")}
	want := []string{"data/2025/q1/orders.csv", "data/parts.csv", "notes/team.json"}
	for build := range 2 {
		rep, err := rn.Run(context.Background(), p)
		if err != nil {
			t.Fatalf("build %d: %v", build+1, err)
		}
		if rep.Status != StatusOK || rep.Sources != len(want) {
			t.Errorf("build %d: status %s, %d sources, rejected %+v; want ok with %d", build+1, rep.Status, rep.Sources, rep.Rejected, len(want))
		}
		if got := bundleSources(t, filepath.Join(dir, "out")); !slices.Equal(got, want) {
			t.Errorf("build %d read %q, want %q", build+1, got, want)
		}
	}
}

// TestRunner_BadPathsFailAlone: a symlink that leaves the root and a
// dangling one are each a rejection naming the path; the build goes on,
// ends partial and publishes a bundle with the good file.
func TestRunner_BadPathsFailAlone(t *testing.T) {
	// A build of tables asks no LLM: nothing listens at the client's address.
	c, err := llm.New(llm.Options{Host: "http://" + closedServer, BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# secret\nthe vault code is 1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := sourceTree(t, dir, map[string]string{
		"data/good.csv": "part_id,name\nP1,Frame\n",
	}, `name: t
sources:
  - {name: docs, paths: ["docs/*.md"]}
  - {name: tables, paths: ["data/*.csv"]}
llm: {chat_model: m}
resolve: {embeddings: false}
`)
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "docs", "escape.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("deleted.md", filepath.Join(dir, "docs", "dangling.md")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
	if err != nil {
		t.Fatalf("a bad path ended the build: %v", err)
	}
	want := map[string]string{
		"docs/escape.md":   "a symlink that leads outside the pipeline root",
		"docs/dangling.md": "a symlink to nothing",
	}
	if rep.Status != StatusPartial || len(rep.Rejected) != len(want) {
		t.Fatalf("status %s, rejected %+v; want partial with %d rejections", rep.Status, rep.Rejected, len(want))
	}
	for _, rj := range rep.Rejected {
		if reason, ok := want[rj.Item]; !ok || !strings.Contains(rj.Reason, rj.Item) || !strings.Contains(rj.Reason, reason) {
			t.Errorf("rejection %+v; want one per bad path saying %q", rj, reason)
		}
	}
	if got := bundleSources(t, out); !slices.Equal(got, []string{"data/good.csv"}) {
		t.Errorf("bundle sources %q, want the good file", got)
	}
	if _, err := os.Stat(filepath.Join(out, "reports", rep.BuildID+".json")); err != nil {
		t.Errorf("run report: %v", err)
	}
}

// TestRunner_SourcesOverTheirBudgetFailAlone: a source with more chunks,
// more estimated tokens or a longer word than the pipeline's limits is
// rejected with the limit to raise, and none of its chunks reaches the
// model; the other sources are built.
func TestRunner_SourcesOverTheirBudgetFailAlone(t *testing.T) {
	c, chats := fakeOllama(t, false)
	prose := strings.Repeat("Velora Cycles buys aluminium frames from Kestrel Alloys. ", 30)
	p := sourceTree(t, t.TempDir(), map[string]string{
		"docs/good.md":  "# Plants\nThe Porto plant assembles the Trail bike.\n",
		"docs/many.md":  prose,
		"docs/big.txt":  strings.Repeat(prose, 3),
		"docs/blob.txt": "An image: " + strings.Repeat("iVBORw0KGgo", 40) + "\n",
	}, `name: t
sources:
  - {name: docs, paths: ["docs/*"], chunking: {size: 50, overlap: 10}}
llm: {chat_model: m}
limits: {max_chunks: 5, max_tokens: 1000, max_word_bytes: 400}
resolve: {embeddings: false}
`)
	rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}).Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"docs/many.md":  "more than limits.max_chunks 5 chunks",
		"docs/big.txt":  "more than limits.max_tokens 1000",
		"docs/blob.txt": "440 bytes without white space at line 1, more than limits.max_word_bytes 400",
	}
	if rep.Status != StatusPartial || len(rep.Rejected) != len(want) {
		t.Fatalf("status %s, rejected %+v; want partial with %d rejections", rep.Status, rep.Rejected, len(want))
	}
	for _, rj := range rep.Rejected {
		if reason, ok := want[rj.Item]; !ok || !strings.Contains(rj.Reason, rj.Item) || !strings.Contains(rj.Reason, reason) {
			t.Errorf("rejection %+v; want one per source over its budget saying %q", rj, reason)
		}
	}
	if rep.Sources != 1 || rep.Chunks != 1 || chats.Load() != 1 {
		t.Errorf("%d sources, %d chunks, %d model calls; want only docs/good.md's one chunk", rep.Sources, rep.Chunks, chats.Load())
	}
}
