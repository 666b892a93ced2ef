package duck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandboxFixture writes a small bundle directory: data.duckdb with a table
// orders of 5 rows, and nodes.parquet with one node.
func sandboxFixture(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "data.duckdb"), Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE orders AS SELECT range AS id, range * 2 AS qty, DATE '2025-02-24' + range::INTEGER AS day FROM range(5)",
		"COPY (SELECT 'n1' AS id, 'Velora' AS name) TO " + QuoteString(filepath.Join(dir, "nodes.parquet")) + " (FORMAT parquet)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func openFixture(t *testing.T, dir string, lim SandboxLimits) *Sandbox {
	t.Helper()
	sb, err := OpenSandbox(context.Background(), dir, "data.duckdb", map[string]string{"nodes": "nodes.parquet"}, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Error(err)
		}
	})
	return sb
}

// snapshot returns the name and SHA-256 of every file under dir.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	files := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t *testing.T, dir string, before map[string][32]byte) {
	t.Helper()
	after := snapshot(t, dir)
	for name, sum := range after {
		if b, ok := before[name]; !ok {
			t.Errorf("new file %s", name)
		} else if b != sum {
			t.Errorf("%s changed", name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("%s removed", name)
		}
	}
}

func TestSandboxRejectsEveryNonSelectStatement(t *testing.T) {
	dir := sandboxFixture(t)
	before := snapshot(t, dir)
	sb := openFixture(t, dir, SandboxLimits{})
	nodes := QuoteString(filepath.Join(dir, "nodes.parquet"))
	// statement → the type the error names, or "file" where DuckDB refuses
	// the file while binding, before the type is known
	refused := map[string]string{
		"EXPLAIN ANALYZE COPY (SELECT * REPLACE ('PWNED' AS name) FROM nodes) TO " + nodes + " (FORMAT parquet)": "file",
		"EXPLAIN ANALYZE CREATE TABLE x AS SELECT 1":                                                             "EXPLAIN",
		"EXPLAIN SELECT 1":                              "EXPLAIN",
		"PRAGMA enable_profiling":                       "PRAGMA",
		"COPY nodes TO " + nodes + " (FORMAT parquet)":  "file",
		"COPY nodes TO 'x.csv'":                         "file",
		"COPY FROM DATABASE data TO memory":             "more than one statement", // DuckDB expands it
		"CREATE TABLE x (a INT)":                        "CREATE",
		"CREATE VIEW v AS SELECT 1":                     "CREATE",
		"CREATE MACRO m(x) AS x":                        "CREATE",
		"DROP TABLE nodes":                              "DROP",
		"DROP VIEW IF EXISTS v":                         "DROP",
		"INSERT INTO nodes VALUES ('n2', 'x')":          "INSERT",
		"UPDATE nodes SET name = 'x'":                   "UPDATE",
		"DELETE FROM nodes":                             "DELETE",
		"ALTER TABLE nodes ADD COLUMN c INT":            "ALTER",
		"ATTACH ':memory:' AS m":                        "ATTACH",
		"DETACH data":                                   "DETACH",
		"SET threads = 64":                              "SET",
		"RESET memory_limit":                            "SET",
		"USE data":                                      "SET",
		"SET VARIABLE v = 1":                            "SET",
		"CALL pragma_version()":                         "CALL",
		"CHECKPOINT":                                    "CHECKPOINT",
		"INSTALL httpfs":                                "INSTALL",
		"LOAD httpfs":                                   "LOAD",
		"UPDATE EXTENSIONS":                             "UPDATE EXTENSIONS",
		"EXPORT DATABASE " + QuoteString(dir+"/export"): "file",
		"EXPLAIN ANALYZE CHECKPOINT":                    "EXPLAIN",
		"EXPLAIN ANALYZE DROP VIEW IF EXISTS v":         "EXPLAIN",
		"EXPLAIN ANALYZE PRAGMA enable_profiling":       "EXPLAIN",
		"BEGIN TRANSACTION":                             "transaction",
		"PREPARE p AS SELECT 1":                         "PREPARE",
		"VACUUM":                                        "VACUUM",
		"ANALYZE":                                       "VACUUM",
		"MERGE INTO nodes USING nodes s ON false WHEN NOT MATCHED THEN INSERT VALUES ('n3', 'x')": "MERGE INTO",
		"SELECT 1; DROP TABLE nodes":            "more than one statement",
		"SELECT 1; SELECT 2":                    "more than one statement",
		"-- one\nSELECT 1;\n/* two */ SELECT 2": "more than one statement",
	}
	for q, kind := range refused {
		_, _, _, err := sb.Query(context.Background(), q, 10)
		if kind == "file" {
			if !errors.Is(err, ErrNoFiles) {
				t.Errorf("%q: err = %v, want ErrNoFiles", q, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotReadOnly) {
			t.Errorf("%q: err = %v, want ErrNotReadOnly", q, err)
		} else if !strings.Contains(err.Error(), kind) {
			t.Errorf("%q: error %q does not name %q", q, err, kind)
		}
	}
	accepted := []string{
		"SELECT name FROM nodes",
		"WITH x AS (SELECT 1 AS a) SELECT a FROM x",
		"FROM orders",
		"VALUES (1), (2)",
		"TABLE nodes",
		"DESCRIBE orders",
		"SHOW TABLES",
		"SUMMARIZE orders",
		"PRAGMA table_info('orders')",
		"-- a comment first\nSELECT 1;",
		"SELECT 1 UNION ALL SELECT 2 ORDER BY 1",
	}
	for _, q := range accepted {
		if _, _, _, err := sb.Query(context.Background(), q, 10); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	if _, rows, _, err := sb.Query(context.Background(), "SELECT name FROM nodes", 10); err != nil || len(rows) != 1 || rows[0][0] != "Velora" {
		t.Errorf("nodes after the refused statements: %v %v", rows, err)
	}
	sameFiles(t, dir, before)
}

// TestSandboxCannotWriteTheBundleBypassingTheClassifier runs writes straight
// on the sandbox's DuckDB, as if a statement had slipped past Query's check:
// the file layer alone must hold.
func TestSandboxCannotWriteTheBundleBypassingTheClassifier(t *testing.T) {
	dir := sandboxFixture(t)
	before := snapshot(t, dir)
	sb := openFixture(t, dir, SandboxLimits{})
	q := func(name string) string { return QuoteString(filepath.Join(dir, name)) }
	for _, stmt := range []string{
		"COPY (SELECT 'n1' AS id, 'PWNED' AS name) TO " + q("nodes.parquet") + " (FORMAT parquet)",
		"COPY (SELECT 'n1' AS id, 'PWNED' AS name) TO " + q("nodes.parquet") + " (FORMAT parquet, USE_TMP_FILE false)",
		"COPY (SELECT '{}' AS j) TO " + q("manifest.json") + " (FORMAT csv, HEADER false)",
		"COPY (SELECT 1) TO " + q("data.duckdb.wal") + " (FORMAT csv, USE_TMP_FILE false)",
		"COPY (SELECT 1) TO " + q("data.duckdb") + " (FORMAT csv, USE_TMP_FILE false)",
		"EXPORT DATABASE " + q("export"),
		"ATTACH " + q("new.duckdb") + " AS n",
		"SELECT * FROM enable_logging(storage = 'file', storage_path = " + QuoteString(dir) + ")",
		"SET disabled_filesystems = ''",
		"RESET disabled_filesystems",
		"SET enable_external_access = true",
		"SET temp_directory = " + QuoteString(dir),
		"SET lock_configuration = false",
		"INSERT INTO data.orders VALUES (9, 9, DATE '2025-01-01')",
	} {
		if _, err := sb.db.ExecContext(context.Background(), stmt); err == nil {
			t.Errorf("%q ran", stmt)
		}
	}
	if _, rows, _, err := sb.Query(context.Background(), "SELECT count(*) FROM orders", 1); err != nil || rows[0][0] != "5" {
		t.Errorf("orders after the writes: %v %v", rows, err)
	}
	sameFiles(t, dir, before)
}

func TestSandboxReadsNothingOutsideTheBundle(t *testing.T) {
	dir := sandboxFixture(t)
	t.Chdir(t.TempDir()) // DuckDB's default temp_directory is <cwd>/.tmp
	if err := os.Mkdir(".tmp", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".tmp/secret.txt", []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.csv")
	if err := os.WriteFile(outside, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := openFixture(t, dir, SandboxLimits{})
	for _, q := range []string{
		"SELECT content FROM read_text('.tmp/secret.txt')",
		"SELECT content FROM read_text(" + QuoteString(filepath.Join(mustGetwd(t), ".tmp", "secret.txt")) + ")",
		"SELECT * FROM read_csv(" + QuoteString(outside) + ")",
		"SELECT * FROM glob('.tmp/*')",
		"SELECT * FROM glob('/*')",
		"SELECT * FROM read_text('/etc/passwd')",
		// The bundle's own files are tables; no file function reads them.
		"SELECT * FROM read_parquet(" + QuoteString(filepath.Join(dir, "nodes.parquet")) + ")",
		"SELECT * FROM read_blob(" + QuoteString(filepath.Join(dir, "data.duckdb")) + ")",
	} {
		_, rows, _, err := sb.Query(context.Background(), q, 10)
		if err == nil {
			t.Errorf("%q read %v", q, rows)
		}
	}
	for _, stmt := range []string{"COPY (SELECT 1) TO '.tmp/x.csv'", "COPY (SELECT 1) TO 'x.csv'"} {
		if _, err := sb.db.ExecContext(context.Background(), stmt); err == nil {
			t.Errorf("%q ran", stmt)
		}
	}
	_, rows, _, err := sb.Query(context.Background(),
		"SELECT current_setting('temp_directory'), current_setting('allowed_directories')::VARCHAR", 1)
	if err != nil || rows[0][0] != "" || rows[0][1] != "[]" {
		t.Errorf("temp_directory, allowed_directories = %v %v; want empty", rows, err)
	}
	entries, err := os.ReadDir(".")
	if err != nil || len(entries) != 1 {
		t.Errorf("working directory holds %v %v; want only .tmp", entries, err)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// writeWAL returns the bytes of a real write-ahead log for the database file
// at path: it writes three rows to a copy without a checkpoint.
func writeWAL(t *testing.T, path string) []byte {
	t.Helper()
	ctx := context.Background()
	cp := filepath.Join(t.TempDir(), "copy.duckdb")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, "", Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"PRAGMA disable_checkpoint_on_shutdown",
		"SET checkpoint_threshold = '1TB'",
		"ATTACH " + QuoteString(cp) + " AS c",
		"INSERT INTO c.orders SELECT 100 + range, 0, DATE '2025-01-01' FROM range(3)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(cp + ".wal")
	if err != nil || len(wal) == 0 {
		t.Fatalf("no WAL written: %v", err)
	}
	return wal
}

func TestSandboxNeverReplaysAWALBesideTheDataFile(t *testing.T) {
	ctx := context.Background()
	dir := sandboxFixture(t)
	data := filepath.Join(dir, "data.duckdb")
	if err := os.WriteFile(data+".wal", writeWAL(t, data), 0o600); err != nil {
		t.Fatal(err)
	}
	// The WAL is real: a plain read-only ATTACH replays it.
	plain, err := Open(ctx, "", Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := plain.ExecContext(ctx, "ATTACH "+QuoteString(data)+" AS d (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	if err := plain.QueryRowContext(ctx, "SELECT count(*) FROM d.orders").Scan(&n); err != nil || n != 8 {
		t.Fatalf("plain attach counts %d rows (%v); the WAL should have added 3 to 5", n, err)
	}
	if err := plain.Close(); err != nil {
		t.Fatal(err)
	}

	sb := openFixture(t, dir, SandboxLimits{})
	if _, rows, _, err := sb.Query(ctx, "SELECT count(*) FROM orders", 1); err != nil || rows[0][0] != "5" {
		t.Errorf("sandbox counts %v rows (%v), want 5: the WAL was replayed", rows, err)
	}

	// A data file that is a symbolic link is copied, not linked: DuckDB
	// would look for the WAL beside the link's target.
	elsewhere := t.TempDir()
	if err := os.Rename(data, filepath.Join(elsewhere, "data.duckdb")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(data+".wal", filepath.Join(elsewhere, "data.duckdb.wal")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "data.duckdb"), data); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	linked := openFixture(t, dir, SandboxLimits{})
	if _, rows, _, err := linked.Query(ctx, "SELECT count(*) FROM orders", 1); err != nil || rows[0][0] != "5" {
		t.Errorf("through a symbolic link the sandbox counts %v rows (%v), want 5: the WAL was replayed", rows, err)
	}
}

func TestSandbox_PrivateDirectoryIsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := sandboxFixture(t)
	sb, err := OpenSandbox(context.Background(), dir, "data.duckdb", map[string]string{"nodes": "nodes.parquet"}, SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, rows, _, err := sb.Query(context.Background(), "SELECT sum(qty) FROM orders", 1); err != nil || rows[0][0] != "20" {
		t.Errorf("sum(qty) = %v %v", rows, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR while open: %v", entries)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR after Close: %v", entries)
	}
}

func TestSandboxStopsARunawayQueryAtItsTimeLimit(t *testing.T) {
	sb := openFixture(t, sandboxFixture(t), SandboxLimits{Timeout: 200e6}) // 200 ms
	_, _, _, err := sb.Query(context.Background(),
		"SELECT sum(a.range + b.range) FROM range(1000000000) a, range(100000) b", 1)
	if !errors.Is(err, ErrTimeLimit) {
		t.Fatalf("cross join: err = %v, want ErrTimeLimit", err)
	}
	if want := "query stopped after 200ms"; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "LIMIT") {
		t.Errorf("message %q: want %q and a hint", err, want)
	}
	// The sandbox is usable again at once.
	if _, rows, _, err := sb.Query(context.Background(), "SELECT count(*) FROM orders", 1); err != nil || rows[0][0] != "5" {
		t.Errorf("after the stop: %v %v", rows, err)
	}
	// A caller that gives up gets its own error, not the limit's.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := sb.Query(ctx, "SELECT 1", 1); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeLimit) {
		t.Errorf("cancelled caller: err = %v", err)
	}
}

func TestSandboxStopsAQueryAtItsMemoryLimit(t *testing.T) {
	sb := openFixture(t, sandboxFixture(t), SandboxLimits{MemoryLimit: "64MiB", Threads: 1})
	_, _, _, err := sb.Query(context.Background(),
		"SELECT count(DISTINCT 'key-' || range::VARCHAR) FROM range(50000000)", 1)
	if !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("big aggregate: err = %v, want ErrMemoryLimit", err)
	}
	if want := "query stopped at 64MiB"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q: want %q", err, want)
	}
	if _, rows, _, err := sb.Query(context.Background(), "SELECT count(*) FROM orders", 1); err != nil || rows[0][0] != "5" {
		t.Errorf("after the stop: %v %v", rows, err)
	}
}

func TestSandboxLimits_SetAndChecked(t *testing.T) {
	dir := sandboxFixture(t)
	sb := openFixture(t, dir, SandboxLimits{MemoryLimit: "300MB", Threads: 3})
	_, rows, _, err := sb.Query(context.Background(), "SELECT current_setting('threads'), current_setting('memory_limit')", 1)
	if err != nil || rows[0][0] != "3" || !strings.HasPrefix(rows[0][1], "286") { // 300 MB is 286.1 MiB
		t.Errorf("threads, memory_limit = %v %v", rows, err)
	}
	def := openFixture(t, dir, SandboxLimits{})
	_, rows, _, err = def.Query(context.Background(), "SELECT current_setting('threads'), current_setting('memory_limit')", 1)
	if err != nil || rows[0][0] != "2" || rows[0][1] != "1.0 GiB" {
		t.Errorf("defaults: threads, memory_limit = %v %v", rows, err)
	}
	for name, lim := range map[string]SandboxLimits{
		"bad memory":       {MemoryLimit: "lots"},
		"negative threads": {Threads: -1},
		"negative timeout": {Timeout: -1},
	} {
		sb, err := OpenSandbox(context.Background(), dir, "data.duckdb", nil, lim)
		if err == nil {
			_ = sb.Close()
			t.Errorf("%s: opened", name)
		} else if !errors.Is(err, ErrBadLimits) {
			t.Errorf("%s: err = %v, want ErrBadLimits", name, err)
		}
	}
}

func TestSandbox_RendersValuesAsDuckDBDoes(t *testing.T) {
	sb := openFixture(t, sandboxFixture(t), SandboxLimits{})
	cases := []struct{ expr, want string }{
		{"DATE '2025-02-24'", "2025-02-24"},
		{"TIMESTAMP '2025-02-24 10:30:00'", "2025-02-24 10:30:00"},
		{"TIMESTAMP '2025-02-24 10:30:00.25'", "2025-02-24 10:30:00.25"},
		{"TIMESTAMP '2025-02-24 00:00:00'", "2025-02-24 00:00:00"},
		{"TIMESTAMPTZ '2025-02-24 10:30:00+00'", "2025-02-24 10:30:00Z"},
		{"TIMESTAMP_NS '2025-02-24 10:30:00.123456789'", "2025-02-24 10:30:00.123456789"},
		{"TIME '10:30:05'", "10:30:05"},
		{"[DATE '2025-02-24', NULL]", "[2025-02-24, NULL]"},
		{"{'b': 1, 'a': DATE '2025-02-24'}", "{'a': 2025-02-24, 'b': 1}"},
		{"MAP {'k': 1}", "{k=1}"},
		{"INTERVAL '1 year 2 months 3 days 04:05:06'", "1 year 2 months 3 days 04:05:06"},
		{"INTERVAL '90 minutes'", "01:30:00"},
		{"12.50::DECIMAL(5,2)", "12.50"},
		{"'0190a8b2-7f3c-7d4e-8f00-0123456789ab'::UUID", "0190a8b2-7f3c-7d4e-8f00-0123456789ab"},
		{"'a\\x00b'::BLOB", `a\x00b`},
		{"170141183460469231731687303715884105727::HUGEINT", "170141183460469231731687303715884105727"},
		{"NULL", "NULL"},
		{"true", "true"},
		{"['x', 'y']", "[x, y]"},
	}
	for _, c := range cases {
		_, rows, _, err := sb.Query(context.Background(), "SELECT "+c.expr, 1)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
		} else if rows[0][0] != c.want {
			t.Errorf("%s renders %q, want %q", c.expr, rows[0][0], c.want)
		}
	}
	_, rows, _, err := sb.Query(context.Background(), "SELECT day FROM orders ORDER BY id LIMIT 1", 1)
	if err != nil || rows[0][0] != "2025-02-24" {
		t.Errorf("a DATE column: %v %v", rows, err)
	}
	if bytes.Contains([]byte(rows[0][0]), []byte("UTC")) {
		t.Errorf("Go's zone suffix in %q", rows[0][0])
	}
}
