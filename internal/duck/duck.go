package duck

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
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
