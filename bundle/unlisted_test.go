package bundle

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/internal/duck"
)

// TestOpen_RefusesUnlistedEntries is the regression test for entries of a
// bundle directory that its manifest does not list: each must make Open
// fail with an error naming the entry, although every listed checksum
// still holds.
func TestOpen_RefusesUnlistedEntries(t *testing.T) {
	cases := []struct {
		name  string
		entry string
		add   func(t *testing.T, dir string)
	}{
		{"write-ahead log", DataFile + ".wal", plantWAL},
		{"extra parquet", "extra.parquet", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, NodesFile), filepath.Join(dir, "extra.parquet"))
		}},
		{"hidden file", ".notes", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, ".notes"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"subdirectory", "sub", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"symbolic link", "link.parquet", func(t *testing.T, dir string) {
			if err := os.Symlink(NodesFile, filepath.Join(dir, "link.parquet")); err != nil {
				t.Fatal(err)
			}
		}},
		{"dangling symbolic link", "gone", func(t *testing.T, dir string) {
			if err := os.Symlink("/nonexistent/gone", filepath.Join(dir, "gone")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, t.TempDir(), "b", sample())
			tc.add(t, dir)
			_, err := Open(dir)
			if !errors.Is(err, ErrUnlisted) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.entry) {
				t.Errorf("Open with %s: err = %v, want %v naming %s", tc.name, err, ErrUnlisted, tc.entry)
			}
		})
	}
}

// TestOpen_RefusesListedLinks checks that a file the manifest lists must be
// a regular file, not a link to one with the same bytes.
func TestOpen_RefusesListedLinks(t *testing.T) {
	dir := write(t, t.TempDir(), "b", sample())
	if err := os.Rename(filepath.Join(dir, EdgesFile), filepath.Join(dir, "..", "edges-copy")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "edges-copy"), filepath.Join(dir, EdgesFile)); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), EdgesFile) {
		t.Errorf("Open with %s a link: err = %v, want %v naming it", EdgesFile, err, ErrInvalid)
	}
}

// plantWAL writes beside the bundle's unchanged data file a real DuckDB
// write-ahead log that adds a row to table parts, as the probe of issue 11
// did: DuckDB would replay it and change what queries return.
func plantWAL(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	scratch := filepath.Join(t.TempDir(), DataFile)
	copyFile(t, filepath.Join(dir, DataFile), scratch)
	db, err := duck.Open(ctx, scratch, duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"SET checkpoint_threshold = '1TB'",
		"PRAGMA disable_checkpoint_on_shutdown",
		"INSERT INTO parts VALUES ('FORGED', 99)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fileSHA(t, scratch) != fileSHA(t, filepath.Join(dir, DataFile)) {
		t.Fatal("DuckDB changed the data file itself; the probe needs it unchanged")
	}
	copyFile(t, scratch+".wal", filepath.Join(dir, DataFile+".wal"))
	// The log is real: DuckDB replays it and sees the forged row.
	db, err = duck.Open(ctx, scratch, duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM parts WHERE part_id = 'FORGED'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("replayed log: %d forged rows, %v; want 1", n, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileSHA(t *testing.T, path string) [32]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(raw)
}

// TestWriter_ListsOnlyWhatItWrote checks that Commit refuses an entry of
// its temporary directory it did not write, instead of listing it in the
// manifest.
func TestWriter_ListsOnlyWhatItWrote(t *testing.T) {
	out := t.TempDir()
	w, err := Create(out, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Data(context.Background(), duck.Settings{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.tmp, "stray.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(sample(), Manifest{}); err == nil || !strings.Contains(err.Error(), "stray.parquet") {
		t.Errorf("Commit with a stray file: err = %v, want one naming stray.parquet", err)
	}
	if _, err := os.Stat(filepath.Join(out, "b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused commit published the bundle: %v", err)
	}
}

// TestWriter_LeavesNoWAL checks that the data file is checkpointed before
// its checksum is taken: after many writes no write-ahead log is left, and
// the manifest lists none.
func TestWriter_LeavesNoWAL(t *testing.T) {
	ctx := context.Background()
	w, err := Create(t.TempDir(), "b")
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(ctx, duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SET checkpoint_threshold = '1TB'", // nothing reaches the file before Commit's checkpoint
		"CREATE TABLE parts AS SELECT 'P' || i AS part_id, i AS qty FROM range(100000) t(i)",
		"UPDATE parts SET qty = qty + 1 WHERE qty % 2 = 0",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.tmp, DataFile+".wal")); err != nil {
		t.Fatalf("the test needs a write-ahead log before Commit: %v", err)
	}
	dir, err := w.Commit(sample(), Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".wal") {
			t.Errorf("write-ahead log left in the bundle: %s", e.Name())
		}
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	for name := range b.Manifest.Files {
		if strings.HasSuffix(name, ".wal") {
			t.Errorf("manifest lists a write-ahead log: %s", name)
		}
	}
}
