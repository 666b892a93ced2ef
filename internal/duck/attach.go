package duck

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// TableRef names a table or view of an attached database.
type TableRef struct {
	Schema string
	Name   string
	View   bool // a view, not a table
}

// Attached is a DuckDB database file attached read-only to one connection of
// a database, under an alias of its own. It holds that connection until
// Close, which detaches the file; it is not safe for concurrent use.
type Attached struct {
	conn  *sql.Conn
	alias string
	path  string
}

// AttachReadOnly attaches the DuckDB database file at path to db, read-only,
// under a fresh alias, so that its tables can be copied with DuckDB's own
// engine. DuckDB opens the file without writing to it; a file it cannot read
// (corrupt, written by a newer DuckDB, locked by a writer) is an
// *InputError that says so and carries DuckDB's message; so is a block that
// fails to read later, in Tables or CopyTable. The caller must Close the
// result.
func AttachReadOnly(ctx context.Context, db *sql.DB, path string) (*Attached, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("attach duckdb %s: %w", path, err)
	}
	// One connection for attach, reads and detach: the alias lives in the
	// database instance, but a single connection keeps the sequence simple
	// and lets Close detach exactly what was attached.
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("attach duckdb %s: %w", path, err)
	}
	a := &Attached{conn: conn, alias: "kgforge_attach_" + hex.EncodeToString(b[:]), path: path}
	// TYPE DUCKDB: never let DuckDB pick (and try to install) another
	// storage extension from the file's content.
	q := fmt.Sprintf("ATTACH %s AS %s (READ_ONLY, TYPE DUCKDB)", QuoteString(path), QuoteIdent(a.alias))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return nil, errors.Join(fmt.Errorf("attach duckdb %s: %w", path, databaseFileError(ctx, path, err)), conn.Close())
	}
	return a, nil
}

// Tables lists the user tables and views of the attached file, ordered by
// schema and name; DuckDB's internal ones are left out.
func (a *Attached) Tables(ctx context.Context) (_ []TableRef, err error) {
	const q = `SELECT schema_name, table_name, false FROM duckdb_tables() WHERE database_name = ? AND NOT internal AND NOT temporary
UNION ALL
SELECT schema_name, view_name, true FROM duckdb_views() WHERE database_name = ? AND NOT internal AND NOT temporary
ORDER BY 1, 2`
	r, err := a.conn.QueryContext(ctx, q, a.alias, a.alias)
	if err != nil {
		return nil, fmt.Errorf("list tables of duckdb %s: %w", a.path, databaseFileError(ctx, a.path, err))
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var out []TableRef
	for r.Next() {
		var t TableRef
		if err := r.Scan(&t.Schema, &t.Name, &t.View); err != nil {
			return nil, fmt.Errorf("list tables of duckdb %s: %w", a.path, err)
		}
		out = append(out, t)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("list tables of duckdb %s: %w", a.path, err)
	}
	return out, nil
}

// CopyTable creates table in the database's own catalog from every row of
// src in the attached file — one CREATE TABLE … AS SELECT, run by DuckDB's
// engine — and returns the number of rows copied. It fails if table exists.
func (a *Attached) CopyTable(ctx context.Context, table string, src TableRef) (int64, error) {
	from := QuoteIdent(a.alias) + "." + QuoteIdent(src.Schema) + "." + QuoteIdent(src.Name)
	q := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM %s", QuoteIdent(table), from)
	if _, err := a.conn.ExecContext(ctx, q); err != nil {
		return 0, fmt.Errorf("copy table %s.%s of duckdb %s into table %s: %w", src.Schema, src.Name, a.path, table, databaseFileError(ctx, a.path, err))
	}
	var n int64
	if err := a.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+QuoteIdent(table)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count rows of table %s: %w", table, err)
	}
	return n, nil
}

// Close detaches the file and releases the connection. It runs even when
// the build is being cancelled, so it takes no context.
func (a *Attached) Close() error {
	_, err := a.conn.ExecContext(context.Background(), "DETACH "+QuoteIdent(a.alias))
	if err != nil {
		err = fmt.Errorf("detach duckdb %s: %w", a.path, err)
	}
	return errors.Join(err, a.conn.Close())
}
