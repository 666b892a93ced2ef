package sqldb_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/kg"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/erp.sqlite")

const corpus = "../../testdata/corpus"

// erpSuppliers and erpOrders are testdata/corpus/erp.sqlite: an extract of
// Velora Cycles' ERP (a bicycle maker in Porto) — its parts suppliers and
// the purchase orders it placed with them in early 2025.
var erpSuppliers = [][]string{
	{"S1", "Kestrel Alloys", "United Kingdom"},
	{"S2", "Serra Components", "Spain"},
	{"S3", "Tagus Composites", "Portugal"},
	{"S4", "Nordhavn Drivetrain", "Denmark"},
}

var erpOrders = [][]string{
	{"PO-2025-001", "S1", "Aluminium frame TR5", "120", "2025-01-06"},
	{"PO-2025-002", "S2", "Hydraulic disc brake set", "200", "2025-01-09"},
	{"PO-2025-003", "S4", "12-speed drivetrain kit", "150", "2025-01-14"},
	{"PO-2025-004", "S3", "Carbon frame GV7", "40", "2025-01-20"},
	{"PO-2025-005", "S1", "Aluminium frame CT3", "180", "2025-01-27"},
	{"PO-2025-006", "S2", "E-bike disc brake set", "90", "2025-02-03"},
	{"PO-2025-007", "S1", "Aluminium frame VE8", "75", "2025-02-10"},
	{"PO-2025-008", "S4", "8-speed hub gear kit", "160", "2025-02-17"},
	{"PO-2025-009", "S3", "Carbon frame GV7", "35", "2025-02-24"},
	{"PO-2025-010", "S1", "Aluminium frame TR5", "140", "2025-03-03"},
	{"PO-2025-011", "S2", "Hydraulic disc brake set", "220", "2025-03-10"},
	{"PO-2025-012", "S3", "Carbon fork GV7", "60", "2025-03-17"},
	{"PO-2025-013", "S4", "12-speed drivetrain kit", "130", "2025-03-24"},
	{"PO-2025-014", "S1", "Aluminium frame CT3", "100", "2025-04-01"},
	{"PO-2025-015", "S2", "E-bike disc brake set", "110", "2025-04-08"},
}

// erpStatements write erpSuppliers and erpOrders as SQLite tables.
func erpStatements() []string {
	stmts := []string{
		"PRAGMA page_size = 4096",
		`CREATE TABLE suppliers (
			supplier_id TEXT PRIMARY KEY,
			name TEXT NOT NULL,
			country TEXT NOT NULL
		)`,
		`CREATE TABLE purchase_orders (
			po_id TEXT PRIMARY KEY,
			supplier_id TEXT NOT NULL REFERENCES suppliers (supplier_id),
			part TEXT NOT NULL,
			qty INTEGER NOT NULL,
			ordered_on DATE NOT NULL
		)`,
	}
	for _, s := range erpSuppliers {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO suppliers VALUES ('%s', '%s', '%s')", s[0], s[1], s[2]))
	}
	for _, o := range erpOrders {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO purchase_orders VALUES ('%s', '%s', '%s', %s, '%s')", o[0], o[1], o[2], o[3], o[4]))
	}
	return append(stmts, "VACUUM")
}

// TestCorpus_VeloraERP loads testdata/corpus/erp.sqlite as a build does and
// checks it holds erpSuppliers and erpOrders (go test -update rewrites it).
func TestCorpus_VeloraERP(t *testing.T) {
	ctx := context.Background()
	path, err := filepath.Abs(filepath.Join(corpus, "erp.sqlite"))
	must(t, err)
	if *update {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		writeSQLite(t, path, erpStatements()...)
	}
	db := openBuild(t)
	tables, err := db.load(ctx, kg.KindSQLite, path, "erp.sqlite", ingest.Options{})
	if err != nil {
		t.Fatalf("%v (go test ./ingest/sqldb -run Corpus -update writes it)", err)
	}
	if len(tables) != 2 {
		t.Fatalf("loaded %d tables, want 2", len(tables))
	}
	po, sup := tables[0], tables[1]
	for _, c := range []struct {
		tb        kg.Table
		name      string
		columns   string
		rows      [][]string
		orderedBy string
	}{
		{po, "erp_purchase_orders", "po_id VARCHAR, supplier_id VARCHAR, part VARCHAR, qty BIGINT, ordered_on DATE", erpOrders, "po_id"},
		{sup, "erp_suppliers", "supplier_id VARCHAR, name VARCHAR, country VARCHAR", erpSuppliers, "supplier_id"},
	} {
		if c.tb.Name != c.name || c.tb.Rows != int64(len(c.rows)) || len(c.tb.Warnings) != 0 {
			t.Errorf("table %s: %d rows, warnings %q; want %s, %d rows, no warnings", c.tb.Name, c.tb.Rows, c.tb.Warnings, c.name, len(c.rows))
		}
		if got := columnTypes(c.tb); got != c.columns {
			t.Errorf("%s columns = %s, want %s", c.name, got, c.columns)
		}
		var want []string
		for _, r := range c.rows {
			want = append(want, strings.Join(r, "|"))
		}
		q := fmt.Sprintf("SELECT string_agg(concat_ws('|', *COLUMNS(*)), '\n' ORDER BY %s) FROM %s", c.orderedBy, c.name)
		if got := strings.Split(queryString(t, db, q), "\n"); !slices.Equal(got, want) {
			t.Errorf("%s holds\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	must(t, ingest.FindKeys(ctx, db.DB, tables))
	want := kg.ForeignKey{Column: "supplier_id", RefTable: "erp_suppliers", RefColumn: "supplier_id", Score: 1}
	if !slices.Contains(tables[0].ForeignKeys, want) {
		t.Errorf("purchase_orders foreign keys = %+v, want %+v", tables[0].ForeignKeys, want)
	}
}
