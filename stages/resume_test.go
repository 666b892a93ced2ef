package stages

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kgforge/pipelines"
)

// sixDocs writes a pipeline over six one-chunk documents and returns it.
func sixDocs(t *testing.T) (*pipelines.Pipeline, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		body := fmt.Sprintf("# Plant %d\nThe plant number %d assembles the Trail bike for Velora Cycles.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, "docs", fmt.Sprintf("d%d.md", i)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pf := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(pf, []byte("name: six\nsources:\n  - {name: docs, paths: [\"docs/*.md\"]}\nllm: {chat_model: m}\nresolve: {embeddings: false}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	return p, dir
}

func cached(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRunner_KilledBuildResumesFromTheCache stops a build after two model
// calls, as a killed process would stop, then runs it again: the second run
// pays only for the chunks the first did not finish, and one changed
// document afterwards costs exactly one call.
func TestRunner_KilledBuildResumesFromTheCache(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, dir := sixDocs(t)
	cacheDir, out := t.TempDir(), t.TempDir()
	rn := &Runner{LLM: c, CacheDir: cacheDir, OutDir: out}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for chats.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := rn.Run(ctx, p); err == nil {
		t.Fatal("the interrupted build reported success")
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "reports" && e.Name() != StateDir {
			t.Errorf("the interrupted build left %s in the output", e.Name())
		}
	}
	done := cached(t, filepath.Join(cacheDir, "extract"))
	first := int(chats.Load())
	if done == 0 || done > first {
		t.Fatalf("%d replies cached after %d calls", done, first)
	}

	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// A chunk the killed build finished is reused with its unit, or,
	// when its unit was not finished, served from the cache.
	if second := int(chats.Load()) - first; second != 6-done || rep.Extract.CacheHits+rep.Plan.ChunksReused != done {
		t.Errorf("resumed build: %d calls, %d cache hits and %d chunks reused; want %d calls and %d chunks not asked again",
			second, rep.Extract.CacheHits, rep.Plan.ChunksReused, 6-done, done)
	}

	if err := os.WriteFile(filepath.Join(dir, "docs", "d3.md"), []byte("# Plant 3\nThe plant number 3 now paints the Gravel bike.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := chats.Load()
	rep, err = rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := chats.Load() - before; n != 1 || rep.Plan.ChunksReused != 5 {
		t.Errorf("one changed document: %d calls and %d chunks reused; want 1 and 5", n, rep.Plan.ChunksReused)
	}
}
