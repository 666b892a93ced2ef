package duck

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeDuckDB creates a DuckDB file at path with the statements run, closed.
func writeDuckDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, path, Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAttached_CopiesTablesReadOnlyAndDetaches(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "erp.duckdb")
	writeDuckDB(t, src,
		"CREATE TABLE suppliers (supplier_id VARCHAR, name VARCHAR, rating DECIMAL(3,1))",
		"INSERT INTO suppliers VALUES ('S1', 'Kestrel Alloys', 3.2), ('S2', 'Serra Components', 4.0)",
		"CREATE SCHEMA sales",
		`CREATE TABLE sales."Orders" AS SELECT range AS id, 'S1' AS supplier_id FROM range(5)`,
		"CREATE VIEW good_suppliers AS SELECT * FROM suppliers WHERE rating >= 4",
	)
	before, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, filepath.Join(dir, "build.duckdb"), Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })

	a, err := AttachReadOnly(ctx, db, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []TableRef{{"main", "good_suppliers", true}, {"main", "suppliers", false}, {"sales", "Orders", false}}
	if !slices.Equal(got, want) {
		t.Errorf("Tables = %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		table string
		src   TableRef
		rows  int64
	}{
		{"erp_suppliers", want[1], 2},
		{"erp_sales_orders", want[2], 5},
		{"erp_good_suppliers", want[0], 1},
	} {
		n, err := a.CopyTable(ctx, c.table, c.src)
		if err != nil {
			t.Fatal(err)
		}
		if n != c.rows {
			t.Errorf("CopyTable(%s) = %d rows, want %d", c.table, n, c.rows)
		}
	}
	if _, err := a.CopyTable(ctx, "erp_suppliers", want[1]); err == nil {
		t.Error("CopyTable onto an existing table: want error")
	}
	if _, err := a.CopyTable(ctx, "erp_missing", TableRef{Schema: "main", Name: "missing"}); err == nil {
		t.Error("CopyTable of a missing table: want error")
	}
	// The attached file refuses writes.
	if _, err := a.conn.ExecContext(ctx, "INSERT INTO "+QuoteIdent(a.alias)+".main.suppliers VALUES ('S9', 'x', 1)"); err == nil {
		t.Error("INSERT into the attached file: want error")
	}
	alias := a.alias
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	var attached int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_databases() WHERE database_name = ?", alias).Scan(&attached); err != nil {
		t.Fatal(err)
	}
	if attached != 0 {
		t.Errorf("%s is still attached after Close", alias)
	}
	var rating string
	if err := db.QueryRowContext(ctx, "SELECT CAST(rating AS VARCHAR) FROM erp_suppliers WHERE supplier_id = 'S1'").Scan(&rating); err != nil {
		t.Fatal(err)
	}
	if rating != "3.2" {
		t.Errorf("copied rating = %s, want 3.2 (DECIMAL kept)", rating)
	}
	after, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the source file changed")
	}
	// Detached: the file can be opened for writing again.
	writeDuckDB(t, src, "CREATE TABLE more (x INTEGER)")
}

func TestAttachReadOnly_RefusesWhatDuckDBCannotRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "build.duckdb"), Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })

	newer := filepath.Join(dir, "newer.duckdb")
	writeDuckDB(t, newer, "CREATE TABLE x AS SELECT 1 AS a")
	setStorageVersion(t, newer, 200)
	notDuck := filepath.Join(dir, "text.duckdb")
	if err := os.WriteFile(notDuck, []byte("supplier_id,name\nS1,Kestrel\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"newer storage version", newer, "created with a newer version of DuckDB"},
		{"not a duckdb file", notDuck, "not a valid DuckDB database file"},
		{"missing file", filepath.Join(dir, "missing.duckdb"), "missing.duckdb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := AttachReadOnly(ctx, db, c.path)
			if err == nil {
				_ = a.Close()
				t.Fatal("want error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
	// A failed attach leaves nothing attached, and read-only attach never
	// creates a missing file.
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'kgforge_attach_%'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d aliases left attached", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.duckdb")); !os.IsNotExist(err) {
		t.Errorf("missing file: stat error = %v, want not exist", err)
	}
}

// setStorageVersion rewrites the storage version of a DuckDB file's main
// header and fixes the header's checksum, as a newer DuckDB would have
// written it. The header block is an 8-byte checksum followed by "DUCK" and
// the version (uint64, little endian); DuckDB's checksum XORs a hash of each
// 8-byte word of the block, so one word can be swapped in place.
func setStorageVersion(t *testing.T, path string, version uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[8:12]) != "DUCK" || version > 0xff {
		t.Fatalf("%s: unexpected header %q (or version %d needs more than one byte)", path, b[:20], version)
	}
	hash := func(x uint64) uint64 { return x * 0xbf58476d1ce4e5b9 }
	sum := binary.LittleEndian.Uint64(b[0:8])
	old := binary.LittleEndian.Uint64(b[8:16])
	b[12] = byte(version) // the version's low byte; the others stay 0
	sum ^= hash(old) ^ hash(binary.LittleEndian.Uint64(b[8:16]))
	binary.LittleEndian.PutUint64(b[0:8], sum)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAttachReadOnly_DamagedFileIsAnInputError(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	cases := map[string]string{
		"not a database": "not a DuckDB database file",
		"truncated":      "it is truncated",
	}
	src := filepath.Join(dir, "src.duckdb")
	sdb, err := Open(ctx, src, Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.ExecContext(ctx, "CREATE TABLE t AS SELECT range AS id FROM range(1000)"); err != nil {
		t.Fatal(err)
	}
	if err := sdb.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"not a database": []byte("just text, no DuckDB header at all"), "truncated": whole[:5000]}
	for name, want := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".duckdb")
		if err := os.WriteFile(p, files[name], 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := AttachReadOnly(ctx, db, p)
		if err == nil {
			_ = a.Close()
			t.Fatalf("%s: attached", name)
		}
		ie, ok := errors.AsType[*InputError](err)
		if !ok || !strings.Contains(ie.Reason, want) || !strings.Contains(ie.Detail, "IO Error") || ie.Path != p {
			t.Errorf("%s: err = %v, want an *InputError that says %q with DuckDB's message as detail", name, err, want)
		}
	}
}
