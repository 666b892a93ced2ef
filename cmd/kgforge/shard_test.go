package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kgforge/bundle"
)

// TestBuild_ShardsThenReduce runs kgforge build --shard on both shards of
// a tables pipeline (no model needed) and then --reduce: the shards exit 0
// and publish no bundle, the reduce publishes it; a shard out of range, an
// auto shard without JOB_COMPLETION_INDEX and --shard with --reduce are
// usage errors.
func TestBuild_ShardsThenReduce(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	t.Setenv("JOB_COMPLETION_INDEX", "")
	ctx := context.Background()
	pf, out := tablesPipeline(t), t.TempDir()
	build := func(args ...string) int {
		return run(ctx, append([]string{"build", "--pipeline", pf, "--out", out}, args...))
	}
	for _, bad := range [][]string{{"--shard", "2/2"}, {"--shard", "auto/2"}, {"--shard", "0/2", "--reduce"}, {"--shard", "half"}} {
		if code := build(bad...); code != exitUsage {
			t.Errorf("build %v: exit code %d, want %d", bad, code, exitUsage)
		}
	}
	if code := build("--shard", "0/2"); code != exitOK {
		t.Fatalf("shard 0/2: exit code %d", code)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	if code := build("--shard", "auto/2"); code != exitOK {
		t.Fatalf("shard auto/2 with index 1: exit code %d", code)
	}
	if _, err := os.Lstat(filepath.Join(out, bundle.LatestLink)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the shards published a bundle: %v", err)
	}
	if code := build("--reduce"); code != exitOK {
		t.Fatalf("reduce: exit code %d", code)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if b.Manifest.Counts["rows:parts"] != 2 {
		t.Errorf("the reduce's bundle counts %v; want table parts with 2 rows", b.Manifest.Counts)
	}
}
