package sqldb

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgtype"

	"kgforge/ingest"
	"kgforge/internal/duck"
)

// Bounds on what a build may make a PostgreSQL server do. A statement that
// runs past statementTimeout (a table that takes longer to read and load
// is one statement) or waits past lockTimeout for a lock (a table being
// altered) is cancelled by the server, and the source is rejected.
var (
	statementTimeout = 10 * time.Minute
	lockTimeout      = 30 * time.Second
	connectTimeout   = 30 * time.Second // when the connection string sets no connect_timeout
)

type postgresLoader struct{}

var _ ingest.TableLoader = postgresLoader{}

func (postgresLoader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) (loaded []ingest.Loaded, err error) {
	dsn := in.Options.DSN
	if strings.TrimSpace(dsn) == "" {
		return nil, rejected(ctx, in, errors.New("connection string is empty: set the environment variable the pipeline names in connection_env"))
	}
	loaded, err = loadPostgres(ctx, db, in)
	if err != nil {
		// A new error with the text masked, not a wrapper: the driver's
		// error is kept nowhere a caller could print it from.
		err = rejected(ctx, in, errors.New(redact(err.Error(), dsn)))
		return nil, errors.Join(err, dropLoaded(ctx, db, loaded))
	}
	return loaded, nil
}

func loadPostgres(ctx context.Context, db *sql.DB, in ingest.TableInput) (loaded []ingest.Loaded, err error) {
	cfg, err := pgx.ParseConfig(in.Options.DSN)
	if err != nil {
		return nil, fmt.Errorf("parse connection string: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "kgforge"
	}
	// On cancel, send the server a cancel request at once. pgx's default
	// handler only sets a deadline on the socket, and a statement that is
	// not sending rows (a sort, a sleep) may run on until statementTimeout.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 2 * time.Second}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
		return nil, fmt.Errorf("connect to postgres as user %s, database %s: %w", ce.Config.User, ce.Config.Database, ce.Unwrap())
	}
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	// Nothing was written, so neither the rollback nor the close can lose
	// anything; their errors (a connection the server or a cancel already
	// closed) say nothing about the load and are dropped.
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	// One snapshot for all tables, and no way to write.
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("begin read-only transaction: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tx.Rollback(cctx)
	}()
	for _, q := range []string{
		fmt.Sprintf("SET LOCAL statement_timeout = %d", statementTimeout.Milliseconds()),
		fmt.Sprintf("SET LOCAL lock_timeout = %d", lockTimeout.Milliseconds()),
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}

	if in.Options.Query != "" {
		if len(in.Options.Tables) > 0 {
			return nil, errors.New("set either query or tables, not both")
		}
		name := in.Name(in.Base)
		ld, err := copyRows(ctx, tx, db, name, in.Options.Query)
		if err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		return []ingest.Loaded{ld}, nil
	}
	have, err := postgresTables(ctx, tx)
	if err != nil {
		return nil, err
	}
	tables, err := pick(have, in.Options.Tables, "public")
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		origin := t.origin("public")
		name := in.Name(tableWant(in.Base, origin))
		ld, err := copyRows(ctx, tx, db, name, "SELECT * FROM "+quoteIdent(t.schema)+"."+quoteIdent(t.name))
		if err != nil {
			return loaded, fmt.Errorf("postgres table %s: %w", origin, err)
		}
		ld.Origin = origin
		loaded = append(loaded, ld)
	}
	return loaded, nil
}

// postgresTables lists the tables, views, materialized views and foreign
// tables of every schema but PostgreSQL's own (pg_*, information_schema).
// Only tables and partitioned tables the user may read, and not their
// partitions, are loaded by default: one table the user may not read
// would otherwise reject the whole source.
func postgresTables(ctx context.Context, tx pgx.Tx) ([]tableRef, error) {
	r, err := tx.Query(ctx, `SELECT n.nspname, c.relname,
  c.relkind IN ('r', 'p') AND NOT c.relispartition
    AND has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT')
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	defer r.Close()
	var out []tableRef
	for r.Next() {
		var t tableRef
		if err := r.Scan(&t.schema, &t.name, &t.all); err != nil {
			return nil, fmt.Errorf("list tables: %w", err)
		}
		out = append(out, t)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	// Byte order, not the database's collation: the same on every server.
	slices.SortFunc(out, func(a, b tableRef) int {
		return strings.Compare(a.schema+"\x00"+a.name, b.schema+"\x00"+b.name)
	})
	return out, nil
}

// binaryResults asks the server for the binary form of the types loaded as
// DuckDB types of their own; every other type comes in its text form, which
// is what a VARCHAR column gets.
var binaryResults = pgx.QueryResultFormatsByOID{
	pgtype.Int2OID: pgx.BinaryFormatCode, pgtype.Int4OID: pgx.BinaryFormatCode, pgtype.Int8OID: pgx.BinaryFormatCode,
	pgtype.Float4OID: pgx.BinaryFormatCode, pgtype.Float8OID: pgx.BinaryFormatCode,
	pgtype.BoolOID: pgx.BinaryFormatCode, pgtype.ByteaOID: pgx.BinaryFormatCode,
	pgtype.DateOID: pgx.BinaryFormatCode, pgtype.TimestampOID: pgx.BinaryFormatCode, pgtype.TimestamptzOID: pgx.BinaryFormatCode,
}

// pgColumn is a result column and how its values load into DuckDB.
type pgColumn struct {
	name    string
	typ     string                                 // DuckDB type of the appended column
	decimal string                                 // DECIMAL(p,s) the column is cast to after loading; "" if none
	convert func(raw []byte) (driver.Value, error) // raw is nil for NULL
}

// pgCounts counts values loaded other than as they were.
type pgCounts struct {
	infinite int64 // infinite dates and timestamps, loaded as NULL
	repaired int64 // text that was not valid UTF-8
}

// copyRows runs query and streams its rows into a new DuckDB table.
func copyRows(ctx context.Context, tx pgx.Tx, db *sql.DB, name, query string) (_ ingest.Loaded, err error) {
	// Closing rows that were not read to the end reads the rest of the
	// result; cancelling first makes the server stop sending it instead.
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, err := tx.Query(qctx, query, binaryResults)
	if err != nil {
		return ingest.Loaded{}, err
	}
	defer func() {
		if err != nil {
			cancel()
		}
		r.Close()
	}()
	fds := r.FieldDescriptions()
	if len(fds) == 0 {
		r.Close()
		if err := r.Err(); err != nil {
			return ingest.Loaded{}, err
		}
		return ingest.Loaded{}, errors.New("the result has no columns")
	}
	var counts pgCounts
	cols := make([]pgColumn, len(fds))
	names := make([]string, len(fds))
	for i, fd := range fds {
		cols[i] = newPGColumn(tx.Conn().TypeMap(), fd, &counts)
		names[i] = fd.Name
	}
	names = columnNames(names)
	dcols := make([]duck.Column, len(cols))
	for i, c := range cols {
		dcols[i] = duck.Column{Name: names[i], Type: c.typ}
	}
	n, err := duck.Append(ctx, db, name, dcols, func(yield func([]driver.Value) error) error {
		for r.Next() {
			raw := r.RawValues()
			row := make([]driver.Value, len(cols))
			for i := range cols {
				v, err := cols[i].convert(raw[i])
				if err != nil {
					return fmt.Errorf("column %s: %w", cols[i].name, err)
				}
				row[i] = v
			}
			if err := yield(row); err != nil {
				return err
			}
		}
		return r.Err()
	})
	if err != nil {
		return ingest.Loaded{}, err
	}
	var warnings []string
	for i, c := range cols {
		if c.decimal == "" {
			continue
		}
		qc := duck.QuoteIdent(names[i])
		alter := fmt.Sprintf("ALTER TABLE %s ALTER %s TYPE %s USING CAST(%s AS %s)", duck.QuoteIdent(name), qc, c.decimal, qc, c.decimal)
		if _, err := db.ExecContext(ctx, alter); err != nil {
			if ctx.Err() != nil {
				return ingest.Loaded{}, ctx.Err()
			}
			warnings = append(warnings, fmt.Sprintf("column %s: numeric values that are not %s (NaN, infinity) kept the column VARCHAR", c.name, c.decimal))
		}
	}
	if counts.infinite > 0 {
		warnings = append(warnings, fmt.Sprintf("%d infinite dates or timestamps loaded as NULL", counts.infinite))
	}
	if counts.repaired > 0 {
		warnings = append(warnings, fmt.Sprintf("%d text values were not valid UTF-8: invalid bytes replaced by U+FFFD", counts.repaired))
	}
	return ingest.Loaded{Name: name, Rows: n, Warnings: warnings}, nil
}

// newPGColumn chooses a result column's DuckDB type from its PostgreSQL
// type, and the conversion of its values: binary ones through pgx's codecs,
// text ones as they are.
func newPGColumn(m *pgtype.Map, fd pgconn.FieldDescription, counts *pgCounts) pgColumn {
	c := pgColumn{name: fd.Name}
	switch fd.DataTypeOID {
	case pgtype.Int2OID, pgtype.Int4OID:
		c.typ = "INTEGER"
		c.convert = scanner(m, fd, func(v *pgtype.Int4) driver.Value { return v.Int32 })
	case pgtype.Int8OID:
		c.typ = "BIGINT"
		c.convert = scanner(m, fd, func(v *pgtype.Int8) driver.Value { return v.Int64 })
	case pgtype.Float4OID, pgtype.Float8OID:
		c.typ = "DOUBLE"
		c.convert = scanner(m, fd, func(v *pgtype.Float8) driver.Value { return v.Float64 })
	case pgtype.BoolOID:
		c.typ = "BOOLEAN"
		c.convert = scanner(m, fd, func(v *pgtype.Bool) driver.Value { return v.Bool })
	case pgtype.ByteaOID:
		c.typ = "BLOB"
		c.convert = scanner(m, fd, func(v *[]byte) driver.Value { return bytes.Clone(*v) })
	case pgtype.DateOID:
		c.typ = "DATE"
		c.convert = scanner(m, fd, func(v *pgtype.Date) driver.Value { return finite(v.Time, v.InfinityModifier, counts) })
	case pgtype.TimestampOID:
		c.typ = "TIMESTAMP"
		c.convert = scanner(m, fd, func(v *pgtype.Timestamp) driver.Value { return finite(v.Time, v.InfinityModifier, counts) })
	case pgtype.TimestamptzOID:
		c.typ = "TIMESTAMPTZ"
		c.convert = scanner(m, fd, func(v *pgtype.Timestamptz) driver.Value { return finite(v.Time, v.InfinityModifier, counts) })
	case pgtype.NumericOID:
		if p, s, ok := numericTypmod(fd.TypeModifier); ok && p <= 38 && s >= 0 && s <= p {
			// Appended as text, then cast by DuckDB: exact, where a
			// float64 on the way would not be.
			c.typ, c.decimal = "VARCHAR", fmt.Sprintf("DECIMAL(%d,%d)", p, s)
			c.convert = text(fd, counts)
		} else {
			c.typ = "DOUBLE"
			c.convert = scanner(m, fd, func(v *pgtype.Float8) driver.Value { return v.Float64 })
		}
	default:
		c.typ = "VARCHAR"
		c.convert = text(fd, counts)
	}
	return c
}

// scanner decodes a column's values with the plan pgx has for its type and
// format into a T, then takes the driver value from it.
func scanner[T any](m *pgtype.Map, fd pgconn.FieldDescription, value func(*T) driver.Value) func([]byte) (driver.Value, error) {
	var v T
	plan := m.PlanScan(fd.DataTypeOID, fd.Format, &v)
	return func(raw []byte) (driver.Value, error) {
		if raw == nil {
			return nil, nil
		}
		if err := plan.Scan(raw, &v); err != nil {
			return nil, err
		}
		return value(&v), nil
	}
}

// text returns a column's values in PostgreSQL's text form. Types requested
// in binary never get here, and the simple protocol returns text only.
func text(fd pgconn.FieldDescription, counts *pgCounts) func([]byte) (driver.Value, error) {
	return func(raw []byte) (driver.Value, error) {
		if raw == nil {
			return nil, nil
		}
		if fd.Format != pgx.TextFormatCode {
			return nil, fmt.Errorf("type %d came in binary form", fd.DataTypeOID)
		}
		if !utf8.Valid(raw) {
			counts.repaired++
			return string(bytes.ToValidUTF8(raw, []byte("\uFFFD"))), nil
		}
		return string(raw), nil
	}
}

// finite returns t, or nil for PostgreSQL's infinity and -infinity, which
// DuckDB's Appender cannot take.
func finite(t time.Time, inf pgtype.InfinityModifier, counts *pgCounts) driver.Value {
	if inf != pgtype.Finite {
		counts.infinite++
		return nil
	}
	return t
}

// numericTypmod decodes the precision and scale of numeric(p,s) from its
// type modifier; ok is false for numeric without them. PostgreSQL stores
// ((p << 16) | (s & 0x7ff)) + 4, the scale as an 11-bit signed number.
func numericTypmod(typmod int32) (p, s int, ok bool) {
	if typmod < 4 {
		return 0, 0, false
	}
	m := typmod - 4
	p = int(m>>16) & 0xffff
	s = int(m & 0x7ff)
	if s >= 1024 {
		s -= 2048
	}
	return p, s, p > 0
}

// secretPatterns find passwords in a connection string: a URL's userinfo,
// and password= as a keyword or a URL query parameter.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`://[^:/?#@\s]*:([^@\s]*)@`),
	regexp.MustCompile(`(?i)\bpassword\s*=\s*'((?:[^'\\]|\\.)*)'`),
	regexp.MustCompile(`(?i)\bpassword\s*=\s*([^\s&']+)`),
}

// redact returns msg, on one line, with dsn and the passwords in it masked.
// pgx already masks passwords in its messages; this is the second lock.
// Secrets shorter than 4 bytes are not masked: they would garble the
// message and hide nothing.
func redact(msg, dsn string) string {
	secrets := []string{dsn}
	if cfg, err := pgx.ParseConfig(dsn); err == nil {
		secrets = append(secrets, cfg.Password)
	}
	for _, re := range secretPatterns {
		for _, m := range re.FindAllStringSubmatch(dsn, -1) {
			secrets = append(secrets, m[1])
			if u, err := url.PathUnescape(m[1]); err == nil {
				secrets = append(secrets, u)
			}
			if u, err := url.QueryUnescape(m[1]); err == nil {
				secrets = append(secrets, u)
			}
		}
	}
	// Longest first, so a secret inside another is not unmasked in part.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, s := range secrets {
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return strings.Join(strings.Fields(msg), " ")
}
