package duck

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// Settings bound what one DuckDB database may use.
type Settings struct {
	Threads     int    // 0 means DuckDB's default (all cores)
	MemoryLimit string // e.g. "2GB"; empty means DuckDB's default (80% of RAM)
}

// Open opens (creating if needed) a DuckDB database file for writing.
func Open(ctx context.Context, path string, s Settings) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, fmt.Errorf("open duckdb %s: %w", path, err)
	}
	var stmts []string
	if s.Threads > 0 {
		stmts = append(stmts, fmt.Sprintf("SET threads = %d", s.Threads))
	}
	if s.MemoryLimit != "" {
		stmts = append(stmts, "SET memory_limit = "+QuoteString(s.MemoryLimit))
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, errors.Join(fmt.Errorf("configure duckdb %s: %s: %w", path, q, err), db.Close())
		}
	}
	return db, nil
}

// QuoteIdent quotes an identifier for DuckDB SQL.
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteString quotes a string literal for DuckDB SQL.
func QuoteString(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}

// Sandbox is a read-only view of a bundle: its DuckDB data file attached
// read-only, Parquet files exposed as views, and no access to any other file.
type Sandbox struct {
	db *sql.DB
}

// OpenSandbox opens an in-memory DuckDB that attaches dataFile read-only,
// creates one view per entry of views (view name → Parquet file inside dir),
// then forbids access to anything outside dir and locks its configuration so
// a query cannot lift those limits.
func OpenSandbox(ctx context.Context, dir, dataFile string, views map[string]string) (*Sandbox, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	db := sql.OpenDB(connector)
	// One connection: the settings below are per database, but a single
	// connection also keeps USE and search_path stable.
	db.SetMaxOpenConns(1)
	stmts := []string{
		fmt.Sprintf("ATTACH %s AS data (READ_ONLY)", QuoteString(filepath.Join(absDir, dataFile))),
	}
	for name, file := range views {
		stmts = append(stmts, fmt.Sprintf("CREATE VIEW memory.main.%s AS SELECT * FROM read_parquet(%s)",
			QuoteIdent(name), QuoteString(filepath.Join(absDir, file))))
	}
	stmts = append(stmts,
		"SET search_path = 'memory.main,data.main'",
		fmt.Sprintf("SET allowed_directories = [%s]", QuoteString(absDir+"/")),
		"SET enable_external_access = false",
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		"SET lock_configuration = true",
	)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, errors.Join(fmt.Errorf("open sandbox %s: %s: %w", dir, q, err), db.Close())
		}
	}
	return &Sandbox{db: db}, nil
}

// ErrNotReadOnly means a sandbox query was not a single read-only statement.
var ErrNotReadOnly = errors.New("only one read-only statement (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN) is allowed")

var readOnlyStart = regexp.MustCompile(`(?is)^\s*(select|with|from|describe|show|summarize|explain|pragma\s+table_info)\b`)

// Query runs one read-only statement and returns its column names and up to
// maxRows rows rendered as strings, and whether rows were cut.
func (s *Sandbox) Query(ctx context.Context, query string, maxRows int) (cols []string, rows [][]string, truncated bool, err error) {
	q := strings.TrimSpace(query)
	q = strings.TrimSuffix(q, ";")
	if !readOnlyStart.MatchString(q) || strings.Contains(q, ";") {
		return nil, nil, false, ErrNotReadOnly
	}
	r, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, false, err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	cols, err = r.Columns()
	if err != nil {
		return nil, nil, false, err
	}
	for r.Next() {
		if len(rows) == maxRows {
			truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return nil, nil, false, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = fmt.Sprint(v)
			}
		}
		rows = append(rows, row)
	}
	return cols, rows, truncated, r.Err()
}

// Close closes the sandbox.
func (s *Sandbox) Close() error { return s.db.Close() }
