package duck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLoadCSV_DetectsHeaderAndCountsRows(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	csv := filepath.Join(dir, "parts.csv")
	if err := os.WriteFile(csv, []byte("part_id,name,cost\nP1,\"Frame, alloy\",12.5\nP2,Wheel,30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, filepath.Join(dir, "d.duckdb"), Settings{Threads: 1, MemoryLimit: "256MB"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	n, err := LoadCSV(ctx, db, `odd "name"`, csv)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("rows = %d, want 2", n)
	}
	var name string
	if err := db.QueryRowContext(ctx, `SELECT name FROM "odd ""name""" WHERE part_id = 'P1'`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != "Frame, alloy" {
		t.Errorf("name = %q", name)
	}
	if _, err := LoadCSV(ctx, db, "missing", filepath.Join(dir, "nope.csv")); err == nil {
		t.Error("LoadCSV of a missing file: want error")
	}
}

func TestSandbox_ReadsBundleAndRefusesEverythingElse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "data.duckdb"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE orders AS SELECT range AS id, range * 2 AS qty FROM range(5)",
		"COPY (SELECT 'n1' AS id, 'Velora' AS name) TO " + QuoteString(filepath.Join(dir, "nodes.parquet")) + " (FORMAT parquet)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(secret, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	sb, err := OpenSandbox(ctx, dir, "data.duckdb", map[string]string{"nodes": "nodes.parquet"}, SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })

	cols, rows, _, err := sb.Query(ctx, "SELECT n.name, count(*) AS c FROM nodes n, orders GROUP BY 1;", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || len(rows) != 1 || rows[0][0] != "Velora" || rows[0][1] != "5" {
		t.Errorf("got %v %v", cols, rows)
	}
	_, rows, truncated, err := sb.Query(ctx, "SELECT * FROM orders", 3)
	if err != nil || len(rows) != 3 || !truncated {
		t.Errorf("maxRows: got %d rows truncated=%v err=%v", len(rows), truncated, err)
	}

	refused := map[string]string{
		"insert":            "INSERT INTO orders VALUES (9, 9)",
		"two statements":    "SELECT 1; DROP TABLE orders",
		"set":               "SET enable_external_access = true",
		"copy out":          "COPY orders TO '/tmp/x.csv'",
		"read outside":      "SELECT * FROM read_csv(" + QuoteString(secret) + ")",
		"attach":            "ATTACH '/tmp/other.duckdb'",
		"cte then write":    "WITH x AS (SELECT 1) DELETE FROM orders",
		"lifted by select":  "SELECT set_config('enable_external_access', 'true')",
		"write through cte": "WITH t AS (SELECT 1) INSERT INTO orders SELECT 1, 1",
	}
	for name, q := range refused {
		if _, _, _, err := sb.Query(ctx, q, 10); err == nil {
			t.Errorf("%s: %q was allowed", name, q)
		}
	}
	if _, _, _, err := sb.Query(ctx, "DROP TABLE orders", 1); !errors.Is(err, ErrNotReadOnly) {
		t.Errorf("DROP: err = %v, want ErrNotReadOnly", err)
	}
	if _, rows, _, err := sb.Query(ctx, "SELECT count(*) FROM orders", 1); err != nil || rows[0][0] != "5" {
		t.Errorf("orders changed: %v %v", rows, err)
	}
}
