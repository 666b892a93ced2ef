package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// TestBundleDiff_RecomputesTableDigests gives bundle B the data file of a
// bundle with one other row and fixes B's manifest checksum of that file
// by hand, leaving its table digests those of A: Open cannot tell, so diff
// must recompute the digests, and it fails naming the table instead of
// calling the bundles the same.
func TestBundleDiff_RecomputesTableDigests(t *testing.T) {
	out := t.TempDir()
	a := writeBundle(t, out, "a", "CREATE TABLE t AS SELECT range AS k FROM range(1000)")
	b := writeBundle(t, out, "b", "CREATE TABLE t AS SELECT range AS k FROM range(1000)")
	c := writeBundle(t, out, "c", "CREATE TABLE t AS SELECT range + (range = 7)::INT AS k FROM range(1000)")
	data, err := os.ReadFile(filepath.Join(c, bundle.DataFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, bundle.DataFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(b, bundle.ManifestFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	m["files"].(map[string]any)[bundle.DataFile] = map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(sum[:])}
	if raw, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if bb, err := bundle.Open(b); err != nil {
		t.Fatalf("the forged bundle must still open, as only its table digests can tell: %v", err)
	} else {
		_ = bb.Close()
	}
	code, stdout, stderr := runCaptured(t, "", "bundle", "diff", a, b)
	if code != exitFailed || strings.Contains(stdout, "same content") || !strings.Contains(stderr, "table t") || !strings.Contains(stderr, b) {
		t.Errorf("bundle diff against a forged data file: exit %d, want %d naming table t of %s\nstdout:\n%s\nstderr:\n%s", code, exitFailed, b, stdout, stderr)
	}
}
