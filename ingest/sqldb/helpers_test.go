package sqldb_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/sqldb"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// build is a build's DuckDB and the table names its loads took.
type build struct {
	*sql.DB
	taken map[string]bool
}

// openBuild opens a fresh build database.
func openBuild(t testing.TB) *build {
	t.Helper()
	db, err := duck.Open(context.Background(), filepath.Join(t.TempDir(), "build.duckdb"), duck.Settings{Threads: 2})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return &build{DB: db, taken: map[string]bool{}}
}

// load loads a source of kind through ingest.LoadTables as the runner does:
// Base is the path relative to the pipeline root (the source's name for a
// connection), and table names are unique across the build.
func (b *build) load(ctx context.Context, kind kg.SourceKind, path, rel string, opt ingest.Options) ([]kg.Table, error) {
	return ingest.LoadTables(ctx, b.DB, ingest.TableInput{
		Source:  kg.Source{ID: kg.ID("source", rel), URI: rel, Kind: kind, Bytes: 1},
		Path:    path,
		Base:    rel,
		Options: opt,
		Name:    func(want string) string { return ingest.UniqueName(b.taken, ingest.TableName(want)) },
	})
}

// wantRejected fails unless err is a rejection whose text holds every part.
func wantRejected(t *testing.T, err error, parts ...string) {
	t.Helper()
	if !errors.Is(err, kg.ErrRejected) {
		t.Fatalf("error = %v, want a rejection (kg.ErrRejected)", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error = %v, want it to contain %q", err, p)
		}
	}
}

// tableNames lists the user tables of the build database.
func tableNames(t *testing.T, db *build) []string {
	t.Helper()
	return strings.Fields(queryString(t, db, "SELECT coalesce(string_agg(table_name, ' ' ORDER BY table_name), '') FROM duckdb_tables() WHERE database_name = current_database()"))
}

// queryString runs a query that returns one value and renders it.
func queryString(t *testing.T, db *build, q string, args ...any) string {
	t.Helper()
	var v sql.NullString
	if err := db.QueryRowContext(context.Background(), "SELECT CAST(("+q+") AS VARCHAR)", args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if !v.Valid {
		return "NULL"
	}
	return v.String
}

// columnTypes renders a table's columns as "name TYPE, …".
func columnTypes(tb kg.Table) string {
	var parts []string
	for _, c := range tb.Columns {
		parts = append(parts, c.Name+" "+c.Type)
	}
	return strings.Join(parts, ", ")
}

func column(t *testing.T, tb kg.Table, name string) kg.Column {
	t.Helper()
	for _, c := range tb.Columns {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("table %s has no column %s (%s)", tb.Name, name, columnTypes(tb))
	return kg.Column{}
}

// fileState is a file's content hash and the names in its directory, to
// check that reading a database changed nothing beside it either.
func fileState(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	entries, err := os.ReadDir(filepath.Dir(path))
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fmt.Sprintf("%x %v", sha256.Sum256(b), names)
}
