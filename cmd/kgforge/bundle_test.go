package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kgforge/bundle"
	"kgforge/internal/duck"
)

func writeBundle(t *testing.T, out, id string, stmts ...string) string {
	t.Helper()
	ctx := context.Background()
	w, err := bundle.Create(out, id)
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(ctx, duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dir, err := w.Commit(bundle.Contents{}, bundle.Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBundleDiffAndVerify_ExitCodes runs `kgforge bundle diff` and
// `kgforge bundle verify` on real bundles: equal content exits 0 whatever
// the data file's bytes, a changed row exits 1, and so does verify of a
// bundle holding a file its manifest does not list.
func TestBundleDiffAndVerify_ExitCodes(t *testing.T) {
	out := t.TempDir()
	a := writeBundle(t, out, "a", "CREATE TABLE t AS SELECT range AS k FROM range(1000)")
	b := writeBundle(t, out, "b", "CREATE TABLE t AS SELECT range AS k FROM range(999, -1, -1)")
	c := writeBundle(t, out, "c", "CREATE TABLE t AS SELECT range + (range = 7)::INT AS k FROM range(1000)")
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"bundle", "diff", a, b}, exitOK},
		{[]string{"bundle", "diff", a, c}, exitFailed},
		{[]string{"bundle", "verify", a}, exitOK},
	} {
		if code := run(ctx, tc.args); code != tc.want {
			t.Errorf("kgforge %v: exit code %d, want %d", tc.args, code, tc.want)
		}
	}
	if err := os.WriteFile(filepath.Join(a, "data.duckdb.wal"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(ctx, []string{"bundle", "verify", a}); code != exitFailed {
		t.Errorf("verify with an unlisted data.duckdb.wal: exit code %d, want %d", code, exitFailed)
	}
}
