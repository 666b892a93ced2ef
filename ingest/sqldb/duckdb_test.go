package sqldb_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// writeDuckDB creates a DuckDB database file at path with the statements run.
func writeDuckDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, path, duck.Settings{Threads: 1})
	must(t, err)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must(t, db.Close())
}

var duckFixture = []string{
	"CREATE TABLE suppliers (supplier_id VARCHAR PRIMARY KEY, name VARCHAR, rating DECIMAL(3,1), joined DATE)",
	"INSERT INTO suppliers VALUES ('S1', 'Kestrel Alloys', 3.2, '2019-04-01'), ('S2', 'Serra Components', 4.0, NULL)",
	"CREATE SCHEMA sales",
	"CREATE TABLE sales.orders AS SELECT 'O-' || range AS order_id, 'S' || (range % 2 + 1) AS supplier_id, range * 10 AS qty FROM range(1, 8)",
	"CREATE VIEW good_suppliers AS SELECT * FROM suppliers WHERE rating >= 4",
	// A view whose table is gone fails when it is read.
	"CREATE TABLE gone (x INTEGER)", "CREATE VIEW broken AS SELECT x FROM gone", "DROP TABLE gone",
}

func TestDuckDB_CopiesTablesAndLeavesTheFileAlone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "service.duckdb")
	writeDuckDB(t, path, duckFixture...)
	before := fileState(t, path)
	db := openBuild(t)

	tables, err := db.load(ctx, kg.KindDuckDB, path, "data/service.duckdb", ingest.Options{})
	must(t, err)
	var got []string
	for _, tb := range tables {
		got = append(got, tb.Name+"="+tb.Origin)
	}
	if want := []string{"service_suppliers=suppliers", "service_sales_orders=sales.orders"}; !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q (tables only, main first)", got, want)
	}
	sup, orders := tables[0], tables[1]
	if sup.Rows != 2 || orders.Rows != 7 {
		t.Errorf("rows = %d and %d, want 2 and 7", sup.Rows, orders.Rows)
	}
	if got, want := columnTypes(sup), "supplier_id VARCHAR, name VARCHAR, rating DECIMAL(3,1), joined DATE"; got != want {
		t.Errorf("suppliers columns = %s, want %s", got, want)
	}
	if c := column(t, sup, "joined"); c.Nulls != 1 || c.Min != "2019-04-01" {
		t.Errorf("joined profile = %+v", c)
	}
	if got := queryString(t, db, "SELECT sum(qty) FROM service_sales_orders"); got != "280" {
		t.Errorf("sum(qty) = %s, want 280", got)
	}
	if n := queryString(t, db, "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'kgforge_attach_%'"); n != "0" {
		t.Errorf("%s databases left attached", n)
	}
	if after := fileState(t, path); after != before {
		t.Errorf("reading changed the file or its directory:\nbefore %s\nafter  %s", before, after)
	}
	// Detached: another process (here, another database) may write it again.
	writeDuckDB(t, path, "INSERT INTO suppliers VALUES ('S3', 'Tagus Composites', 4.7, NULL)")

	named, err := db.load(ctx, kg.KindDuckDB, path, "service.duckdb", ingest.Options{Tables: []string{"good_suppliers", "sales.orders"}})
	must(t, err)
	got = nil
	for _, tb := range named {
		got = append(got, tb.Name+"="+tb.Origin)
	}
	// service_sales_orders is taken by the first load in this build.
	if want := []string{"service_good_suppliers=good_suppliers", "service_sales_orders_2=sales.orders"}; !slices.Equal(got, want) {
		t.Errorf("loaded %q, want %q", got, want)
	}
	if named[0].Rows != 2 {
		t.Errorf("good_suppliers rows = %d, want 2", named[0].Rows)
	}
}

func TestDuckDB_Rejects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "service.duckdb")
	writeDuckDB(t, good, duckFixture...)
	newer := filepath.Join(dir, "newer.duckdb")
	writeDuckDB(t, newer, "CREATE TABLE x AS SELECT 1 AS a")
	setStorageVersion(t, newer, 200)

	for _, c := range []struct {
		name   string
		path   string
		tables []string
		want   []string
	}{
		{
			"missing table", good,
			[]string{"orders"},
			[]string{`no table "orders" in the database (it has broken, good_suppliers, suppliers, sales.orders)`},
		},
		{
			"newer storage version", newer, nil,
			[]string{"Trying to read a database file with version number 200", "created with a newer version of DuckDB"},
		},
		{"table fails after another loaded", good, []string{"suppliers", "broken"}, []string{"copy table main.broken", "gone"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openBuild(t)
			tables, err := db.load(ctx, kg.KindDuckDB, c.path, "service.duckdb", ingest.Options{Tables: c.tables})
			if err == nil {
				t.Fatalf("loaded %+v, want an error", tables)
			}
			wantRejected(t, err, append([]string{"source service.duckdb"}, c.want...)...)
			if left := tableNames(t, db); len(left) != 0 {
				t.Errorf("tables left behind: %v", left)
			}
			if n := queryString(t, db, "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'kgforge_attach_%'"); n != "0" {
				t.Errorf("%s databases left attached", n)
			}
		})
	}
}

// setStorageVersion rewrites the storage version in a DuckDB file's main
// header as a newer DuckDB would have written it, fixing the header's
// checksum: an 8-byte checksum, "DUCK", then the version (uint64, little
// endian). The checksum XORs a hash of each 8-byte word after it, so one
// word can be swapped in place.
func setStorageVersion(t *testing.T, path string, version byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	if string(b[8:12]) != "DUCK" {
		t.Fatalf("%s: no DuckDB header: %q", path, b[:16])
	}
	hash := func(x uint64) uint64 { return x * 0xbf58476d1ce4e5b9 }
	sum := binary.LittleEndian.Uint64(b[0:8]) ^ hash(binary.LittleEndian.Uint64(b[8:16]))
	b[12] = version // the version's low byte; the others stay 0
	binary.LittleEndian.PutUint64(b[0:8], sum^hash(binary.LittleEndian.Uint64(b[8:16])))
	must(t, os.WriteFile(path, b, 0o600))
}
