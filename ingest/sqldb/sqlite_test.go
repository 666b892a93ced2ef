package sqldb_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/kg"
)

// writeSQLite creates an SQLite database at path with the statements run.
func writeSQLite(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath())
	must(t, err)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must(t, db.Close())
}

// mixedFixture is an ERP extract with what SQLite allows and a loader must
// survive: values that do not match their declared type, NULLs, a blob, a
// column without a type, dates with and without a time zone, and a view.
var mixedFixture = []string{
	`CREATE TABLE suppliers (
		supplier_id TEXT PRIMARY KEY,
		name VARCHAR(40) NOT NULL,
		rating REAL,
		active BOOLEAN,
		joined DATE,
		logo BLOB,
		note
	)`,
	`INSERT INTO suppliers VALUES
		('S1', 'Kestrel Alloys', 3.2, 1, '2019-04-01', x'89504E47', 'frames'),
		('S2', 'Serra Components', 4, 0, '2021-09-15', NULL, 12),
		('S3', 'Tagus Composites', NULL, NULL, NULL, NULL, NULL)`,
	`CREATE TABLE purchase_orders (
		po_id TEXT,
		supplier_id TEXT,
		qty INTEGER,
		weight_kg INT,
		unit_cost NUMERIC(8,2),
		ordered_at DATETIME,
		due DATE
	)`,
	`INSERT INTO purchase_orders VALUES
		('PO-1', 'S1', 20, 40, 142.5, '2025-01-08 09:30:00', '2025-02-01'),
		('PO-2', 'S2', 'TBC', 2.5, 72, '2025-01-09T10:00:00+01:00', '2025-02-03 12:00'),
		('PO-3', 'S1', NULL, NULL, NULL, NULL, NULL),
		('PO-4', 'S3', 5, 7, 410, '2025-01-20', '2025-02-20')`,
	`CREATE VIEW big_orders AS SELECT po_id, qty FROM purchase_orders WHERE qty >= 10`,
}

func TestSQLite_LoadsEveryTableWithTypesThatFit(t *testing.T) {
	ctx := context.Background()
	// A path with what a URI would misread: space, '#', '?', '%'.
	dir := filepath.Join(t.TempDir(), "ERP extract #1")
	must(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "erp?50%.sqlite")
	writeSQLite(t, path, mixedFixture...)
	before := fileState(t, path)
	db := openBuild(t)

	tables, err := db.load(ctx, kg.KindSQLite, path, "data/erp.sqlite", ingest.Options{})
	must(t, err)
	if len(tables) != 2 {
		t.Fatalf("loaded %d tables, want 2 (the view only by name): %+v", len(tables), tables)
	}
	po, sup := tables[0], tables[1]
	if po.Name != "erp_purchase_orders" || po.Origin != "purchase_orders" || po.Rows != 4 {
		t.Errorf("first table = %s (origin %s, %d rows), want erp_purchase_orders, purchase_orders, 4", po.Name, po.Origin, po.Rows)
	}
	if sup.Name != "erp_suppliers" || sup.Origin != "suppliers" || sup.Rows != 3 {
		t.Errorf("second table = %s (origin %s, %d rows), want erp_suppliers, suppliers, 3", sup.Name, sup.Origin, sup.Rows)
	}
	for _, c := range []struct {
		table kg.Table
		want  string
	}{
		{sup, "supplier_id VARCHAR, name VARCHAR, rating DOUBLE, active BOOLEAN, joined DATE, logo BLOB, note VARCHAR"},
		// qty holds 'TBC' and weight_kg 2.5; due has a time in one row.
		{po, "po_id VARCHAR, supplier_id VARCHAR, qty VARCHAR, weight_kg DOUBLE, unit_cost DOUBLE, ordered_at TIMESTAMP, due TIMESTAMP"},
	} {
		if got := columnTypes(c.table); got != c.want {
			t.Errorf("%s columns:\n got %s\nwant %s", c.table.Name, got, c.want)
		}
	}
	wantWarn := []string{
		"column qty is declared INTEGER but holds 2 integer, 0 real, 1 text and 0 blob values: loaded as VARCHAR",
		"column weight_kg is declared INT but holds 2 integer, 1 real, 0 text and 0 blob values: loaded as DOUBLE",
		"column due is declared DATE but holds 0 integer, 0 real, 3 text and 0 blob values: loaded as TIMESTAMP",
	}
	if !slices.Equal(po.Warnings, wantWarn) {
		t.Errorf("purchase_orders warnings:\n got %q\nwant %q", po.Warnings, wantWarn)
	}
	if len(sup.Warnings) != 0 {
		t.Errorf("suppliers warnings = %q, want none", sup.Warnings)
	}

	// The profile LoadTables computes after loading.
	rating := column(t, sup, "rating")
	if rating.Nulls != 1 || rating.Distinct != 2 || rating.Min != "3.2" || rating.Max != "4.0" {
		t.Errorf("rating profile = %+v", rating)
	}
	qty := column(t, po, "qty")
	if qty.Nulls != 1 || qty.Distinct != 3 || !slices.Equal(qty.Samples, []string{"20", "5", "TBC"}) {
		t.Errorf("qty profile = %+v", qty)
	}
	if note := column(t, sup, "note"); !slices.Equal(note.Samples, []string{"12", "frames"}) {
		t.Errorf("note samples = %q, want 12 and frames", note.Samples)
	}

	// Values, as DuckDB holds them.
	for _, c := range []struct{ q, want string }{
		{"SELECT joined FROM erp_suppliers WHERE supplier_id = 'S2'", "2021-09-15"},
		{"SELECT active FROM erp_suppliers WHERE supplier_id = 'S1'", "true"},
		{"SELECT logo FROM erp_suppliers WHERE supplier_id = 'S1'", `\x89PNG`},
		{"SELECT octet_length(logo) FROM erp_suppliers WHERE supplier_id = 'S1'", "4"},
		{"SELECT count(*) FROM erp_suppliers WHERE active IS NULL AND joined IS NULL AND logo IS NULL", "1"},
		// The time zone is resolved to UTC by SQLite's strftime.
		{"SELECT ordered_at FROM erp_purchase_orders WHERE po_id = 'PO-2'", "2025-01-09 09:00:00"},
		{"SELECT due FROM erp_purchase_orders WHERE po_id = 'PO-2'", "2025-02-03 12:00:00"},
		{"SELECT sum(unit_cost) FROM erp_purchase_orders", "624.5"},
		{"SELECT weight_kg FROM erp_purchase_orders WHERE po_id = 'PO-2'", "2.5"},
	} {
		if got := queryString(t, db, c.q); got != c.want {
			t.Errorf("%s = %s, want %s", c.q, got, c.want)
		}
	}
	if after := fileState(t, path); after != before {
		t.Errorf("reading changed the file or its directory:\nbefore %s\nafter  %s", before, after)
	}
}

func TestSQLite_LoadsNamedTablesAndViews(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "erp.sqlite")
	writeSQLite(t, path, mixedFixture...)
	db := openBuild(t)

	tables, err := db.load(ctx, kg.KindSQLite, path, "erp.sqlite", ingest.Options{Tables: []string{"big_orders", "Suppliers", "suppliers"}})
	must(t, err)
	var got []string
	for _, tb := range tables {
		got = append(got, tb.Name+"="+tb.Origin)
	}
	if want := []string{"erp_big_orders=big_orders", "erp_suppliers=suppliers"}; !slices.Equal(got, want) {
		t.Errorf("loaded %q, want %q (named order, no repeats, case-insensitive match)", got, want)
	}
	if tables[0].Rows != 2 { // PO-1, and PO-2: SQLite sorts text ('TBC') after numbers
		t.Errorf("big_orders rows = %d, want 2", tables[0].Rows)
	}
}

func TestSQLite_Rejects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "erp.sqlite")
	writeSQLite(t, good, append(slices.Clone(mixedFixture),
		// A view whose table was dropped fails when it is read.
		"CREATE TABLE gone (x)", "CREATE VIEW broken AS SELECT x FROM gone", "DROP TABLE gone")...)
	corrupt := filepath.Join(dir, "corrupt.sqlite")
	must(t, os.WriteFile(corrupt, []byte("SQLite format 3\x00"+strings.Repeat("garbage ", 600)), 0o600))

	for _, c := range []struct {
		name   string
		path   string
		tables []string
		want   []string
	}{
		{
			"missing table", good,
			[]string{"suppliers", "nope", "orders"},
			[]string{`no table "nope", "orders" in the database (it has big_orders, broken, purchase_orders, suppliers)`},
		},
		{"corrupt file", corrupt, nil, []string{"file is not a database"}},
		{"table fails after another loaded", good, []string{"suppliers", "broken"}, []string{"sqlite table broken", "no such table: main.gone"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openBuild(t)
			tables, err := db.load(ctx, kg.KindSQLite, c.path, "erp.sqlite", ingest.Options{Tables: c.tables})
			if err == nil {
				t.Fatalf("loaded %+v, want an error", tables)
			}
			wantRejected(t, err, append([]string{"source erp.sqlite"}, c.want...)...)
			if left := tableNames(t, db); len(left) != 0 {
				t.Errorf("tables left behind: %v", left)
			}
		})
	}
}

func TestSQLite_ReadsTheWriteAheadLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// A database copied while its writer had it open in WAL mode: the rows
	// are in erp.sqlite-wal only.
	live := filepath.Join(dir, "live.sqlite")
	w, err := sql.Open("sqlite3", live)
	must(t, err)
	w.SetMaxOpenConns(1)
	for _, q := range []string{
		"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"CREATE TABLE suppliers (supplier_id TEXT, name TEXT)",
		"INSERT INTO suppliers VALUES ('S1', 'Kestrel Alloys'), ('S2', 'Serra Components')",
	} {
		_, err := w.Exec(q)
		must(t, err)
	}
	copyDir := filepath.Join(dir, "copy")
	must(t, os.Mkdir(copyDir, 0o755))
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(live + suffix)
		must(t, err)
		must(t, os.WriteFile(filepath.Join(copyDir, "erp.sqlite"+suffix), b, 0o600))
	}
	must(t, w.Close())
	path := filepath.Join(copyDir, "erp.sqlite")
	before, err := os.ReadFile(path)
	must(t, err)

	db := openBuild(t)
	tables, err := db.load(ctx, kg.KindSQLite, path, "erp.sqlite", ingest.Options{})
	must(t, err)
	if len(tables) != 1 || tables[0].Rows != 2 {
		t.Errorf("loaded %+v, want suppliers with 2 rows", tables)
	}
	after, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(before, after) {
		t.Error("reading changed the database file")
	}
}

func TestSQLite_CancelIsNotARejection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "erp.sqlite")
	writeSQLite(t, path, mixedFixture...)
	db := openBuild(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.load(ctx, kg.KindSQLite, path, "erp.sqlite", ingest.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want the context's", err)
	}
	if errors.Is(err, kg.ErrRejected) {
		t.Errorf("error = %v: a cancelled build is no rejection", err)
	}
}
