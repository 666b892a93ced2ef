package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
)

// TestShardsIntegration runs a document and a table of testdata/e2e (one
// chunk: the shared server is slow) as four shards at once against the
// real model, with a fresh
// reply cache, then the reduce (real embeddings), and checks it against
// an unsharded build over the reply cache the shards filled: the engine,
// not the model's determinism, is what is compared. The unsharded build
// sends nothing new to the model, and the two bundles are equal.
func TestShardsIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/e2e")); err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(dir, "shards.yaml")
	raw := "name: shards\nsources:\n  - {name: docs, paths: [docs/suppliers.txt]}\n  - {name: tables, paths: [data/suppliers.csv]}\n" +
		"llm: {chat_model: " + llm.ChatModelForTests + ", concurrency: 1}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	out, cache := t.TempDir(), t.TempDir()
	reps := make([]*Report, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			rn := &Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Shard: Shard{I: i, N: 4}}
			reps[i], errs[i] = rn.Run(ctx, p)
		})
	}
	wg.Wait()
	run, other := 0, -1
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d/4: %v", i, err)
		}
		ex := reps[i].Plan.Units["extract"]
		run += ex.Run
		if n := ex.Run + reps[i].Plan.OtherShards; other >= 0 && n != other {
			t.Errorf("shard %d/4 sees %d extract units, another %d", i, n, other)
		}
		other = ex.Run + reps[i].Plan.OtherShards
	}
	if run != other || run == 0 {
		t.Fatalf("the shards ran %d extract units of %d", run, other)
	}
	red, err := (&Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Reduce: true}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	calls := c.Usage().Calls
	ref, err := (&Runner{LLM: c, CacheDir: cache, OutDir: t.TempDir(), CodeVersion: shardCode}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Usage().Calls - calls; n != 0 || ref.Extract.CacheHits == 0 {
		t.Errorf("the unsharded build over the shards' reply cache made %d model calls, %d cache hits; want none, and hits", n, ref.Extract.CacheHits)
	}
	m1, m2 := manifestOf(t, ref.Bundle), manifestOf(t, red.Bundle)
	if d := bundle.Compare(m1, m2); len(d) != 0 || fmt.Sprint(m1.Counts) != fmt.Sprint(m2.Counts) {
		t.Errorf("sharded and unsharded bundles differ: %+v; counts %v and %v", d, m1.Counts, m2.Counts)
	}
	t.Logf("4 shards ran %d extract units; reduce: %d nodes, %d edges, %d merges", run, red.Nodes, red.Edges, red.Merges)
}
