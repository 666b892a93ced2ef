package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"kgforge/bundle"
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
