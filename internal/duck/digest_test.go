package duck

import (
	"context"
	"path/filepath"
	"testing"
)

func digestOf(t *testing.T, stmts ...string) map[string]TableDigest {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.duckdb")
	db, err := Open(ctx, path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // SET TimeZone holds for the statements after it
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := DigestTables(ctx, path, Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDigestTables_RowsNotBytes checks that a table's digest depends on its
// columns and the multiset of its rows, and on nothing else.
func TestDigestTables_RowsNotBytes(t *testing.T) {
	cases := []struct {
		name string
		a, b []string
		same bool
	}{
		{
			"insertion order",
			[]string{"CREATE TABLE t (k INT, v VARCHAR)", "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)"},
			[]string{"CREATE TABLE t (k INT, v VARCHAR)", "INSERT INTO t VALUES (3, NULL)", "INSERT INTO t VALUES (2, 'b'), (1, 'a')"},
			true,
		},
		{
			"time zone of the writer",
			[]string{"SET TimeZone = 'UTC'", "CREATE TABLE t AS SELECT TIMESTAMPTZ '2025-01-02 03:04:05+02' AS at"},
			[]string{"SET TimeZone = 'America/New_York'", "CREATE TABLE t AS SELECT TIMESTAMPTZ '2025-01-02 03:04:05+02' AS at"},
			true,
		},
		{"one value", []string{"CREATE TABLE t AS SELECT 1 AS k, 2.5 AS v"}, []string{"CREATE TABLE t AS SELECT 1 AS k, 2.25 AS v"}, false},
		{"a column's type", []string{"CREATE TABLE t (k INTEGER)", "INSERT INTO t VALUES (1)"}, []string{"CREATE TABLE t (k BIGINT)", "INSERT INTO t VALUES (1)"}, false},
		{"a column's name", []string{"CREATE TABLE t AS SELECT 1 AS k"}, []string{"CREATE TABLE t AS SELECT 1 AS key"}, false},
		{"column order", []string{"CREATE TABLE t AS SELECT 1 AS a, 1 AS b"}, []string{"CREATE TABLE t AS SELECT 1 AS b, 1 AS a"}, false},
		{"NULL and 'null'", []string{"CREATE TABLE t AS SELECT NULL::VARCHAR AS v"}, []string{"CREATE TABLE t AS SELECT 'null' AS v"}, false},
		{"NULL and ''", []string{"CREATE TABLE t AS SELECT NULL::VARCHAR AS v"}, []string{"CREATE TABLE t AS SELECT '' AS v"}, false},
		{"-0.0 and 0.0", []string{"CREATE TABLE t AS SELECT '-0.0'::DOUBLE AS v"}, []string{"CREATE TABLE t AS SELECT 0.0::DOUBLE AS v"}, false},
		{"a duplicate row", []string{"CREATE TABLE t AS SELECT 1 AS k FROM range(2)"}, []string{"CREATE TABLE t AS SELECT 1 AS k"}, false},
		{"list elements", []string{"CREATE TABLE t AS SELECT ['a, b'] AS l"}, []string{"CREATE TABLE t AS SELECT ['a', 'b'] AS l"}, false},
		{"separator in a value", []string{"CREATE TABLE t AS SELECT 'x' AS a, 'y\nz' AS b"}, []string{"CREATE TABLE t AS SELECT 'x\ny' AS a, 'z' AS b"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := digestOf(t, tc.a...)["t"], digestOf(t, tc.b...)["t"]
			if a.SHA256 == "" || b.SHA256 == "" {
				t.Fatalf("no digest of t: %+v %+v", a, b)
			}
			if same := a.SHA256 == b.SHA256; same != tc.same {
				t.Errorf("digests equal = %v, want %v\na: %+v\nb: %+v", same, tc.same, a, b)
			}
		})
	}
}

// TestDigestTables_Listing checks the tables listed, their names outside
// schema main, their columns and row counts, and an empty table.
func TestDigestTables_Listing(t *testing.T) {
	d := digestOf(t,
		"CREATE TABLE parts (part_id VARCHAR, qty DECIMAL(10,2))",
		"CREATE SCHEMA s",
		`CREATE TABLE s."odd ""name""" AS SELECT 1 AS "it's" FROM range(3)`,
		"CREATE VIEW v AS SELECT 1",
	)
	if len(d) != 2 {
		t.Fatalf("tables = %+v, want parts and s.odd", d)
	}
	if got := d["parts"]; got.Rows != 0 || len(got.Columns) != 2 || got.Columns[1] != (Column{"qty", "DECIMAL(10,2)"}) {
		t.Errorf("parts = %+v", got)
	}
	if got := d[`s.odd "name"`]; got.Rows != 3 || got.Columns[0].Name != "it's" {
		t.Errorf(`s.odd "name" = %+v`, got)
	}
}

// BenchmarkDigestTables measures DigestTables on the example's CSV tables
// and on one table of a million rows of six columns.
func BenchmarkDigestTables(b *testing.B) {
	for _, bc := range []struct {
		name  string
		stmts []string
	}{
		{"example", []string{
			"CREATE TABLE orders AS SELECT * FROM read_csv('../../examples/bikeco/data/orders.csv')",
			"CREATE TABLE parts AS SELECT * FROM read_csv('../../examples/bikeco/data/parts.csv')",
			"CREATE TABLE suppliers AS SELECT * FROM read_csv('../../examples/bikeco/data/suppliers.csv')",
		}},
		{"rows=1M", []string{`CREATE TABLE t AS SELECT 'ORD-' || i AS id, i % 1000 AS qty, i / 7 AS price,
			DATE '2020-01-01' + (i % 2000)::INT AS day, TIMESTAMP '2020-01-01' + to_seconds(i) AS at,
			'note ' || (i % 97) AS note FROM range(1000000) t(i)`}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "data.duckdb")
			db, err := Open(ctx, path, Settings{})
			if err != nil {
				b.Fatal(err)
			}
			for _, q := range bc.stmts {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatalf("%s: %v", q, err)
				}
			}
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			var rows int64
			b.ResetTimer()
			for b.Loop() {
				d, err := DigestTables(ctx, path, Settings{})
				if err != nil {
					b.Fatal(err)
				}
				rows = 0
				for _, t := range d {
					rows += t.Rows
				}
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}

// TestDigestTables_EveryType checks that a table of every kind of DuckDB
// type a source could bring has a digest: a type to_json could not render
// would fail the build that writes the bundle.
func TestDigestTables_EveryType(t *testing.T) {
	d := digestOf(t, `CREATE TYPE mood AS ENUM ('sad', 'ok')`, `CREATE TABLE t AS SELECT
		INTERVAL 3 DAY AS iv, '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::UUID AS u, '\xAA'::BLOB AS bl, '0101'::BIT AS bi,
		'ok'::mood AS en, union_value(num := 2)::UNION(num INT, str VARCHAR) AS un, MAP {'k': 1} AS m, [1, 2]::INT[2] AS arr,
		TIMETZ '12:00:00+02' AS ttz, 123456789012345678901234567890::HUGEINT AS hi, 1::UHUGEINT AS uhi,
		TIMESTAMP_NS '2025-01-01 00:00:00.123456789' AS tns, TIMESTAMP_S '2025-01-01' AS ts, TIMESTAMP_MS '2025-01-01' AS tms,
		'{"a": 1}'::JSON AS js, {'x': [1]} AS st, 1::TINYINT AS ti, 1::UTINYINT AS uti, 1.5::FLOAT AS fl,
		12.345::DECIMAL(38,10) AS dec, 'infinity'::DATE AS dinf, 'infinity'::TIMESTAMP AS tinf, 'nan'::DOUBLE AS nan,
		1234567890123456789012345678901234567890::VARINT AS vi, NULL AS nothing`)
	if got := d["t"]; got.Rows != 1 || len(got.Columns) != 25 || len(got.SHA256) != 64 {
		t.Errorf("digest of a table of every type = %+v", got)
	}
}
