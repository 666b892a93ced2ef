package bundle

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kgforge/internal/duck"
)

// writeData writes a bundle of sample() whose data file is made by stmts.
func writeData(t *testing.T, out, id string, stmts ...string) string {
	t.Helper()
	ctx := context.Background()
	w, err := Create(out, id)
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
	dir, err := w.Commit(sample(), Manifest{Pipeline: "example"})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func openT(t *testing.T, dir string) *Bundle {
	t.Helper()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// The same two tables, written with two histories: other insertion
// orders, a row inserted and deleted, a checkpoint in between.
var (
	dataOnce = []string{
		"CREATE TABLE parts (part_id VARCHAR PRIMARY KEY, qty BIGINT, price DOUBLE, due DATE)",
		"INSERT INTO parts SELECT 'P' || i, i % 7, i / 4, DATE '2025-01-01' + i::INT FROM range(5000) t(i)",
		"CREATE TABLE log AS SELECT i % 3 AS level, 'line ' || (i % 10) AS msg FROM range(300) t(i)", // duplicate rows, no key
	}
	dataTwice = []string{
		"CREATE TABLE log (level BIGINT, msg VARCHAR)",
		"INSERT INTO log SELECT i % 3, 'line ' || (i % 10) FROM range(299, -1, -1) t(i)",
		"CREATE TABLE parts (part_id VARCHAR PRIMARY KEY, qty BIGINT, price DOUBLE, due DATE)",
		"INSERT INTO parts VALUES ('EXTRA', 1, 1, NULL)",
		"INSERT INTO parts SELECT 'P' || i, i % 7, i / 4, DATE '2025-01-01' + i::INT FROM range(4999, 2499, -1) t(i)",
		"CHECKPOINT",
		"DELETE FROM parts WHERE part_id = 'EXTRA'",
		"INSERT INTO parts SELECT 'P' || i, i % 7, i / 4, DATE '2025-01-01' + i::INT FROM range(2500) t(i)",
	}
)

// TestTableDigests_SameRowsSameDigest is the regression test for bundles
// that hold the same tables but cannot be recognised as identical: two
// data files of the same rows written differently have other bytes but
// equal table digests, and one changed row makes its table's digest differ.
func TestTableDigests_SameRowsSameDigest(t *testing.T) {
	out := t.TempDir()
	a := openT(t, writeData(t, out, "a", dataOnce...))
	b := openT(t, writeData(t, out, "b", dataTwice...))
	if a.Manifest.Files[DataFile] == b.Manifest.Files[DataFile] {
		t.Fatal("the two data files have the same bytes; the test needs them to differ")
	}
	if len(a.Manifest.TableDigests) != 2 || a.Manifest.TableDigests["parts"].Rows != 5000 || a.Manifest.TableDigests["log"].Rows != 300 {
		t.Fatalf("table digests = %+v", a.Manifest.TableDigests)
	}
	if d := Compare(a.Manifest, b.Manifest); len(d) != 0 {
		t.Errorf("Compare of the same content: %+v, want no difference", d)
	}

	changed := openT(t, writeData(t, out, "c", append(dataOnce, "UPDATE parts SET price = 0.5 WHERE part_id = 'P4321'")...))
	want := []Difference{{"table", "parts", "same columns and row count, other rows: sha256: " +
		short(a.Manifest.TableDigests["parts"].SHA256) + " in A, " + short(changed.Manifest.TableDigests["parts"].SHA256) + " in B"}}
	if d := Compare(a.Manifest, changed.Manifest); len(d) != 1 || d[0] != want[0] {
		t.Errorf("Compare after one changed row:\n got %+v\nwant %+v", d, want)
	}
	for _, b := range []*Bundle{a, b, changed} {
		if err := b.VerifyTables(context.Background(), duck.Settings{}); err != nil {
			t.Errorf("VerifyTables of %s: %v", b.Manifest.BuildID, err)
		}
	}
}

// TestCompare_Differences checks each kind of difference Compare reports.
func TestCompare_Differences(t *testing.T) {
	base := Manifest{
		Files: map[string]FileInfo{NodesFile: {1, "aa"}, DataFile: {10, "d1"}},
		TableDigests: map[string]TableDigest{
			"parts": {Columns: []TableColumn{{"part_id", "VARCHAR"}}, Rows: 2, SHA256: "p1"},
			"log":   {Columns: []TableColumn{{"msg", "VARCHAR"}}, Rows: 3, SHA256: "l1"},
		},
	}
	other := Manifest{
		Files: map[string]FileInfo{NodesFile: {1, "ab"}, EdgesFile: {1, "ee"}, DataFile: {11, "d2"}},
		TableDigests: map[string]TableDigest{
			"parts":  {Columns: []TableColumn{{"part_id", "VARCHAR"}}, Rows: 3, SHA256: "p2"},
			"log":    {Columns: []TableColumn{{"msg", "TEXT"}}, Rows: 3, SHA256: "l2"},
			"orders": {Rows: 1},
		},
	}
	want := []Difference{
		{"file", EdgesFile, "only in B"},
		{"file", NodesFile, "sha256: aa (1 bytes) in A, ab (1 bytes) in B"},
		{"table", "log", "columns: (msg VARCHAR) in A, (msg TEXT) in B"},
		{"table", "orders", "only in B"},
		{"table", "parts", "rows: 2 in A, 3 in B"},
	}
	if got := Compare(base, other); !equalDiffs(got, want) {
		t.Errorf("Compare:\n got %+v\nwant %+v", got, want)
	}
	old := other
	old.TableDigests = nil // a bundle older than 1.3: the data file is compared by its bytes
	if got := Compare(base, old); len(got) != 3 || got[0].Name != DataFile {
		t.Errorf("Compare with an older bundle: %+v, want data.duckdb, edges and nodes", got)
	}
}

func equalDiffs(a, b []Difference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestVerifyTables_RefusesReplacedData checks that a data file replaced
// together with its checksum in the manifest, which Open cannot notice, is
// caught by its table digests.
func TestVerifyTables_RefusesReplacedData(t *testing.T) {
	out := t.TempDir()
	dir := writeData(t, out, "a", dataOnce...)
	forged := writeData(t, out, "f", append(dataOnce, "DELETE FROM log WHERE level = 2")...)
	copyFile(t, forged+"/"+DataFile, dir+"/"+DataFile)
	editManifest(t, dir, func(m *Manifest) {
		fi, err := checksum(dir + "/" + DataFile)
		if err != nil {
			t.Fatal(err)
		}
		m.Files[DataFile] = fi
	})
	b := openT(t, dir)
	err := b.VerifyTables(context.Background(), duck.Settings{})
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "table log: rows: 300 in the manifest, 200 in data.duckdb") {
		t.Errorf("VerifyTables of a replaced data file: %v", err)
	}
	if strings.Contains(err.Error(), "table parts") {
		t.Errorf("VerifyTables names the unchanged table parts: %v", err)
	}
}

// TestOpen_TableDigestsByVersion checks that a 1.2 bundle without table
// digests still opens and verifies, and that a 1.3 manifest without them is
// refused.
func TestOpen_TableDigestsByVersion(t *testing.T) {
	dir := write(t, t.TempDir(), "b", sample())
	editManifest(t, dir, func(m *Manifest) { m.TableDigests = nil })
	if _, err := Open(dir); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "table_digests") {
		t.Errorf("Open of a 1.3 manifest without table digests: %v", err)
	}
	editManifest(t, dir, func(m *Manifest) { m.Version = "1.2" })
	b := openT(t, dir)
	if b.Manifest.HasTableDigests() {
		t.Error("a 1.2 bundle has table digests")
	}
	if err := b.VerifyTables(context.Background(), duck.Settings{}); err != nil {
		t.Errorf("VerifyTables of a 1.2 bundle: %v", err)
	}
}
