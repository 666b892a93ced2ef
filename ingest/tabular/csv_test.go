package tabular_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/tabular"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func TestLoadTable_ProfilesAndFindsJoins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "suppliers.csv"), []byte("supplier_id,name\nS1,Kestrel\nS2,Serra\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "parts.csv"), []byte("part_id,supplier_id,cost\nP1,S1,10\nP2,S1,\nP3,S2,7\n"), 0o600))
	db, err := duck.Open(ctx, filepath.Join(dir, "d.duckdb"), duck.Settings{})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	var tables []kg.Table
	for _, f := range []string{"suppliers.csv", "parts.csv"} {
		tb, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: kg.Source{ID: f, URI: f, Kind: kg.KindCSV, Bytes: 1}, Path: filepath.Join(dir, f), Base: ingest.TableName(f)})
		must(t, err)
		tables = append(tables, tb...)
	}
	parts := tables[1]
	if parts.Name != "parts" || parts.Rows != 3 || len(parts.Columns) != 3 {
		t.Fatalf("parts = %+v", parts)
	}
	cost := parts.Columns[2]
	if cost.Nulls != 1 || cost.Distinct != 2 || len(cost.Samples) != 2 {
		t.Errorf("cost column = %+v", cost)
	}
	must(t, ingest.FindKeys(ctx, db, tables))
	if got := tables[0].PrimaryKeys; len(got) != 2 || got[0] != "supplier_id" {
		t.Errorf("suppliers keys = %v, want supplier_id and name", got)
	}
	if got := tables[1].PrimaryKeys; len(got) != 1 || got[0] != "part_id" {
		t.Errorf("parts keys = %v, want part_id", got)
	}
	fks := tables[1].ForeignKeys
	if len(fks) != 1 || fks[0] != (kg.ForeignKey{Column: "supplier_id", RefTable: "suppliers", RefColumn: "supplier_id", Score: 1}) {
		t.Errorf("parts foreign keys = %+v", fks)
	}
	if len(tables[0].ForeignKeys) != 0 {
		t.Errorf("suppliers foreign keys = %+v, want none", tables[0].ForeignKeys)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
