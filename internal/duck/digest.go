package duck

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// TableDigest is the logical digest of one table of a DuckDB file: what its
// rows hold, whatever the bytes of the file that holds them.
type TableDigest struct {
	Columns []Column // in table order, types as duckdb_columns() names them
	Rows    int64
	// SHA256 is the hex SHA-256 of the text: for each column its name, a
	// tab, its DuckDB type and a newline; one more newline; then for each
	// row, in ascending order of these, the hex SHA-256 of the row as
	// DuckDB's to_json renders it as an object of its columns in table
	// order (with TimeZone UTC), and a newline.
	SHA256 string
}

// DigestTables returns the logical digest of every table of the DuckDB file
// at path, keyed by table name ("SCHEMA.TABLE" outside schema main). The
// file is attached read-only to a database of its own.
//
// Rows are hashed one by one in DuckDB and taken in the order of their
// hashes: an order every copy of the same rows shares, with or without a
// key, and in which no two different rows can tie (ordering by the columns
// can tie -0.0 with 0.0, which render differently).
func DigestTables(ctx context.Context, path string, s Settings) (_ map[string]TableDigest, err error) {
	fail := func(err error) error { return fmt.Errorf("digest tables of %s: %w", path, err) }
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fail(err)
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	db.SetMaxOpenConns(1) // the settings below hold for this one connection
	stmts := []string{"SET TimeZone = 'UTC'", fmt.Sprintf("ATTACH %s AS data (READ_ONLY)", QuoteString(path))}
	if s.Threads > 0 {
		stmts = append(stmts, fmt.Sprintf("SET threads = %d", s.Threads))
	}
	if s.MemoryLimit != "" {
		stmts = append(stmts, "SET memory_limit = "+QuoteString(s.MemoryLimit))
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fail(fmt.Errorf("%s: %w", q, err))
		}
	}
	tables, err := listTables(ctx, db)
	if err != nil {
		return nil, fail(err)
	}
	out := make(map[string]TableDigest, len(tables))
	for _, t := range tables {
		d, err := digestTable(ctx, db, t)
		if err != nil {
			return nil, fail(fmt.Errorf("table %s: %w", t.name, err))
		}
		out[t.name] = d
	}
	return out, nil
}

type tableRef struct{ schema, table, name string }

func listTables(ctx context.Context, db *sql.DB) (_ []tableRef, err error) {
	r, err := db.QueryContext(ctx, "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'data' ORDER BY ALL")
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var out []tableRef
	for r.Next() {
		var t tableRef
		if err := r.Scan(&t.schema, &t.table); err != nil {
			return nil, err
		}
		t.name = t.table
		if t.schema != "main" {
			t.name = t.schema + "." + t.table
		}
		out = append(out, t)
	}
	return out, r.Err()
}

func digestTable(ctx context.Context, db *sql.DB, t tableRef) (TableDigest, error) {
	cols, err := tableColumns(ctx, db, t)
	if err != nil {
		return TableDigest{}, err
	}
	h := sha256.New()
	fields := make([]string, len(cols))
	for i, c := range cols {
		_, _ = fmt.Fprintf(h, "%s\t%s\n", c.Name, c.Type) // a hash.Hash never fails a write
		fields[i] = QuoteString(c.Name) + ": " + QuoteIdent(c.Name)
	}
	h.Write([]byte("\n"))
	q := fmt.Sprintf("SELECT sha256(to_json({%s})::VARCHAR) AS h FROM data.%s.%s ORDER BY h",
		strings.Join(fields, ", "), QuoteIdent(t.schema), QuoteIdent(t.table))
	rows, err := hashRows(ctx, db, q, h)
	if err != nil {
		return TableDigest{}, err
	}
	return TableDigest{Columns: cols, Rows: rows, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func tableColumns(ctx context.Context, db *sql.DB, t tableRef) (_ []Column, err error) {
	r, err := db.QueryContext(ctx, `SELECT column_name, data_type FROM duckdb_columns()
		WHERE database_name = 'data' AND schema_name = ? AND table_name = ? ORDER BY column_index`, t.schema, t.table)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var cols []Column
	for r.Next() {
		var c Column
		if err := r.Scan(&c.Name, &c.Type); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, r.Err()
}

// hashRows writes each row hash q returns, and a newline, to h, and counts
// them.
func hashRows(ctx context.Context, db *sql.DB, q string, h hash.Hash) (n int64, err error) {
	r, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var row sql.RawBytes
	for r.Next() {
		if err := r.Scan(&row); err != nil {
			return 0, err
		}
		_, _ = h.Write(append(row, '\n')) // a hash.Hash never fails to write
		n++
	}
	return n, r.Err()
}
