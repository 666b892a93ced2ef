package bundle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCreate_RemovesWhatCrashedBuildsLeft: the temporary directory of a
// build that died (nobody holds its lock) and its stray latest link are
// removed by the next Create; a live writer's directory, and anything
// younger than staleAge, stays.
func TestCreate_RemovesWhatCrashedBuildsLeft(t *testing.T) {
	out := t.TempDir()
	live, err := Create(out, "live")
	if err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(out, ".tmp-dead-123")
	if err := os.MkdirAll(filepath.Join(dead, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "sub", NodesFile), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dead", filepath.Join(out, ".tmp-latest-dead")); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(out, "notes") // not ours to touch
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}

	// Everything is young: nothing goes.
	removed, err := removeStale(out, time.Now())
	if err != nil || len(removed) != 0 {
		t.Fatalf("young leftovers: removed %v, err %v; want none", removed, err)
	}

	// An hour on: the dead build's leftovers go, the live writer's stays.
	removed, err = removeStale(out, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".tmp-dead-123", ".tmp-latest-dead"}; !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	for _, p := range []string{dead, filepath.Join(out, ".tmp-latest-dead")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there (err %v)", p, err)
		}
	}
	for _, p := range []string{live.tmp, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := live.Commit(sample(), Manifest{Pipeline: "example"}); err != nil {
		t.Fatalf("the live writer could not commit after the cleanup: %v", err)
	}
	b, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Close()

	// Through Create, with a leftover aged on disk.
	if err := os.Mkdir(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dead, old, old); err != nil {
		t.Fatal(err)
	}
	w, err := Create(out, "next")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Abort() }()
	if !slices.Equal(w.Stale, []string{".tmp-dead-123"}) || w.StaleErr != nil {
		t.Fatalf("Create removed %v (err %v), want [.tmp-dead-123]", w.Stale, w.StaleErr)
	}
}

// TestWriter_AbortAndCommitReleaseTheLock: once a writer is done, its
// directory (if any is left) is no longer held.
func TestWriter_AbortAndCommitReleaseTheLock(t *testing.T) {
	out := t.TempDir()
	w, err := Create(out, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(w.tmp); err == nil {
		t.Fatal("a live writer's directory could be locked by someone else")
	}
	dir, err := w.Commit(sample(), Manifest{Pipeline: "example"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := lockDir(dir)
	if err != nil {
		t.Fatalf("a committed build is still locked: %v", err)
	}
	_ = d.Close()
}
