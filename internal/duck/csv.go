package duck

// DuckDB's file readers: read_csv and read_parquet into a table, the rows
// read_csv skipped, and which of their errors are the file's fault.

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"
)

// InputError is DuckDB refusing the content of a file it read: input it
// cannot parse, a value it cannot convert, a corrupt Parquet footer, a
// truncated database file. The file is at fault, not the database, so
// callers reject that one source and go on.
type InputError struct {
	Path string // the file read
	// Reason says what is wrong with the file. Where kgforge knows
	// DuckDB's message it is in words a user can act on ("not a readable
	// Parquet file: its footer is corrupt or the file is truncated") and
	// Detail holds DuckDB's message; elsewhere it is DuckDB's message and
	// Detail is empty.
	Reason string
	Detail string // DuckDB's message, its first paragraph on one line, when Reason is not it
	Err    error  // DuckDB's error
}

// Error returns the file and Message.
func (e *InputError) Error() string { return "read " + e.Path + ": " + e.Message() }

// Message returns the reason and, after it, DuckDB's message in parentheses.
func (e *InputError) Message() string {
	if e.Detail == "" {
		return e.Reason
	}
	return e.Reason + " (DuckDB: " + e.Detail + ")"
}

// Unwrap returns DuckDB's error.
func (e *InputError) Unwrap() error { return e.Err }

// fileError turns err, from a statement that read the file at path, into an
// *InputError when DuckDB blames the file's content; other errors (the
// database, the disk, a cancelled context) come back unchanged.
func fileError(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Type {
	// Invalid is what a Parquet file whose metadata does not decode
	// gives ("Out of buffer", "don't know what type").
	case duckdb.ErrorTypeInvalid, duckdb.ErrorTypeInvalidInput, duckdb.ErrorTypeConversion, duckdb.ErrorTypeOutOfRange,
		duckdb.ErrorTypeMismatchType, duckdb.ErrorTypeInvalidType, duckdb.ErrorTypeSerialization:
		return &InputError{Path: path, Reason: condense(de.Msg), Err: err}
	}
	return err
}

// condense keeps the first paragraph of a DuckDB message, which says what
// went wrong, on one line; the paragraphs after it repeat the options and
// the SQL.
func condense(msg string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n\n")
	var parts []string
	for l := range strings.SplitSeq(first, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// LoadCSV creates table from a CSV file with DuckDB's own reader (dialect,
// header and types detected) and returns the number of rows loaded. It is
// strict: a row that does not parse fails the whole load with an
// *InputError. LoadCSVWithRejects skips such rows instead and reports them.
func LoadCSV(ctx context.Context, db *sql.DB, table, path string) (int64, error) {
	q := fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM read_csv(%s, auto_detect = true)",
		QuoteIdent(table), QuoteString(path))
	n, err := createTableAs(ctx, db, q)
	if err != nil {
		return 0, fmt.Errorf("load csv %s into table %s: %w", path, table, fileError(ctx, path, err))
	}
	return n, nil
}

// LoadParquet creates table from a Parquet file with DuckDB's read_parquet
// and returns the number of rows loaded. A file DuckDB cannot read gives an
// *InputError, whose Reason says what is wrong (see parquetError), and no
// table.
func LoadParquet(ctx context.Context, db *sql.DB, table, path string) (int64, error) {
	q := fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM read_parquet(%s)", QuoteIdent(table), QuoteString(path))
	n, err := createTableAs(ctx, db, q)
	if err != nil {
		return 0, fmt.Errorf("load parquet %s into table %s: %w", path, table, parquetError(ctx, db, path, fileError(ctx, path, err)))
	}
	return n, nil
}

// createTableAs runs a CREATE TABLE … AS statement and returns the number of
// rows it wrote, which DuckDB answers it with.
func createTableAs(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, q string,
) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

// CSVReject is one row DuckDB's CSV reader skipped.
type CSVReject struct {
	// Line is the 1-based line of the file on which the row starts. A quoted
	// field may span lines, so it can be past DuckDB's own line number,
	// which counts rows.
	Line    int64
	Type    string // DuckDB's error type: "MISSING COLUMNS", "TOO MANY COLUMNS", "CAST", "UNQUOTED VALUE", "INVALID ENCODING", "LINE SIZE OVER MAXIMUM", "INVALID STATE"
	Column  string // the column at fault when DuckDB names one
	Message string // DuckDB's message, e.g. "Expected Number of Columns: 3 Found: 4"

	pos int64 // DuckDB's line_byte_position, until physicalLines turns it into Line
}

// CSVDialect is the dialect DuckDB's sniffer detected and read a file with.
type CSVDialect struct {
	Delimiter string
	Quote     string // "(empty)" when fields are not quoted
	Escape    string // "(empty)" when there is none
	NewLine   string // as DuckDB writes it: `\n`, `\r\n` or `\r`
	Header    bool
	Columns   string // names and types, as DuckDB writes them: {'id': 'BIGINT', …}
}

// CSVResult is what LoadCSVWithRejects loaded and skipped.
type CSVResult struct {
	Rows     int64       // rows loaded
	Rejected int64       // rows skipped
	Rejects  []CSVReject // the first rows skipped, in file order, at most the number asked for
	// Dialect is what DuckDB detected. DuckDB reports it only along with
	// rejected rows, so it is zero when no row was rejected or retyped.
	Dialect CSVDialect
	// Retyped are the columns read as VARCHAR because a value did not
	// convert to the type DuckDB's sniffer chose from its sample; each
	// carries the first such value's reject.
	Retyped []CSVReject
}

var rejectsSeq atomic.Int64

// LoadCSVWithRejects creates table from a UTF-8 CSV file with DuckDB's own
// reader, its dialect, header and types detected, and skips the rows DuckDB
// cannot parse (read_csv's store_rejects) instead of failing. It reports the
// skipped rows and how many there were, with the first maxRejects of them in
// detail. When a value does not convert to the type the sniffer chose for
// its column, the file is read again with that column as VARCHAR, so that a
// row is never dropped for a type guess; those columns are in Retyped.
//
// Content DuckDB cannot read at all gives an *InputError. After an error no
// table named table is left; the rejects tables, temporary, are dropped
// whatever happens.
func LoadCSVWithRejects(ctx context.Context, db *sql.DB, table, path string, maxRejects int) (res CSVResult, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return res, fmt.Errorf("load csv %s into table %s: %w", path, table, err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	seq := rejectsSeq.Add(1)
	rejects, scans := fmt.Sprintf("kgforge_rejects_%d", seq), fmt.Sprintf("kgforge_rejects_scan_%d", seq)
	defer func() {
		// Cleanup runs even when ctx is what failed.
		drops := []string{"temp.main." + QuoteIdent(rejects), "temp.main." + QuoteIdent(scans)}
		if err != nil {
			drops = append(drops, QuoteIdent(table))
		}
		for _, t := range drops {
			if _, derr := conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+t); derr != nil {
				err = errors.Join(err, fmt.Errorf("drop table %s: %w", t, derr))
			}
		}
	}()

	res, err = loadRejecting(ctx, conn, table, path, rejects, scans, nil, maxRejects)
	if err != nil {
		return CSVResult{}, err
	}
	var casts []CSVReject
	if res.Rejected > 0 {
		if casts, err = castRejects(ctx, conn, rejects); err != nil {
			return CSVResult{}, err
		}
	}
	if len(casts) > 0 {
		// Read again with the columns that failed as VARCHAR. A text
		// column takes every value, so this read finds no new cast.
		first := res.Dialect
		for _, t := range []string{rejects, scans} {
			if _, err := conn.ExecContext(ctx, "DROP TABLE temp.main."+QuoteIdent(t)); err != nil {
				return CSVResult{}, fmt.Errorf("drop rejects table %s: %w", t, err)
			}
		}
		if res, err = loadRejecting(ctx, conn, table, path, rejects, scans, casts, maxRejects); err != nil {
			return CSVResult{}, err
		}
		if res.Rejected == 0 {
			res.Dialect = first
		}
		res.Retyped = casts
	}
	for _, rs := range [][]CSVReject{res.Rejects, res.Retyped} {
		if err := physicalLines(path, res.Dialect.NewLine, rs); err != nil {
			return CSVResult{}, fmt.Errorf("count lines of %s: %w", path, err)
		}
	}
	return res, nil
}

// loadRejecting runs one read_csv into table with store_rejects, and reads
// back how many rows it loaded and skipped.
func loadRejecting(ctx context.Context, conn *sql.Conn, table, path, rejects, scans string, varchar []CSVReject, maxRejects int) (CSVResult, error) {
	var res CSVResult
	opts := fmt.Sprintf("auto_detect = true, store_rejects = true, rejects_table = %s, rejects_scan = %s",
		QuoteString(rejects), QuoteString(scans))
	if len(varchar) > 0 {
		types := make([]string, len(varchar))
		for i, r := range varchar {
			types[i] = QuoteString(r.Column) + ": 'VARCHAR'"
		}
		opts += ", types = {" + strings.Join(types, ", ") + "}"
	}
	q := fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM read_csv(%s, %s)", QuoteIdent(table), QuoteString(path), opts)
	var err error
	if res.Rows, err = createTableAs(ctx, conn, q); err != nil {
		return res, fmt.Errorf("load csv %s into table %s: %w", path, table, fileError(ctx, path, err))
	}
	rt := "temp.main." + QuoteIdent(rejects)
	// A row may fail in several columns; it was skipped once.
	if err := conn.QueryRowContext(ctx, "SELECT count(DISTINCT (file_id, line)) FROM "+rt).Scan(&res.Rejected); err != nil {
		return res, fmt.Errorf("count rejects of table %s: %w", table, err)
	}
	if res.Rejected == 0 {
		return res, nil
	}
	q = `SELECT line, coalesce(line_byte_position, 0), CAST(error_type AS VARCHAR), coalesce(column_name, ''), coalesce(error_message, '')
		FROM (SELECT *, row_number() OVER (PARTITION BY line ORDER BY column_idx) AS n FROM ` + rt + `)
		WHERE n = 1 ORDER BY line LIMIT ?`
	if res.Rejects, err = queryRejects(ctx, conn, q, maxRejects); err != nil {
		return res, fmt.Errorf("read rejects of table %s: %w", table, err)
	}
	d := &res.Dialect
	err = conn.QueryRowContext(ctx, `SELECT "delimiter", "quote", "escape", newline_delimiter, has_header, "columns" FROM temp.main.`+QuoteIdent(scans)+` LIMIT 1`).
		Scan(&d.Delimiter, &d.Quote, &d.Escape, &d.NewLine, &d.Header, &d.Columns)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return res, fmt.Errorf("read dialect of table %s: %w", table, err)
	}
	return res, nil
}

// castRejects returns, per column, the first row whose value did not
// convert to the column's sniffed type.
func castRejects(ctx context.Context, conn *sql.Conn, rejects string) ([]CSVReject, error) {
	q := `SELECT line, coalesce(line_byte_position, 0), 'CAST', column_name, coalesce(error_message, '')
		FROM (SELECT *, row_number() OVER (PARTITION BY column_name ORDER BY line) AS n FROM temp.main.` + QuoteIdent(rejects) + `
			WHERE error_type = 'CAST' AND column_name IS NOT NULL)
		WHERE n = 1 ORDER BY line`
	rs, err := queryRejects(ctx, conn, q)
	if err != nil {
		return nil, fmt.Errorf("read cast rejects: %w", err)
	}
	return rs, nil
}

// queryRejects runs q, which selects line, line_byte_position, error_type,
// column_name and error_message from a rejects table.
func queryRejects(ctx context.Context, conn *sql.Conn, q string, args ...any) (_ []CSVReject, err error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, rows.Close()) }()
	var out []CSVReject
	for rows.Next() {
		var r CSVReject
		if err := rows.Scan(&r.Line, &r.pos, &r.Type, &r.Column, &r.Message); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// physicalLines sets each reject's Line to the line of the file on which its
// row starts. DuckDB's line_byte_position is 1-based and counted in the
// bytes it read (a UTF-8 byte-order mark included); the byte at that
// position is the first of the row, or, with CRLF line ends, the LF DuckDB
// takes to start it. So the row starts on 1 + the number of line ends in the
// first line_byte_position bytes. DuckDB's own line counts rows, which a
// quoted field with a line end in it makes fewer than lines; it stays the
// answer when the position is missing, and is a floor.
func physicalLines(path, newline string, rs []CSVReject) (err error) {
	var ws []*CSVReject
	for i := range rs {
		if rs[i].pos > 0 {
			ws = append(ws, &rs[i])
		}
	}
	if len(ws) == 0 {
		return nil
	}
	slices.SortFunc(ws, func(a, b *CSVReject) int { return cmp.Compare(a.pos, b.pos) })
	end := byte('\n')
	if newline == `\r` {
		end = '\r'
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	buf := make([]byte, 1<<16)
	var read, ends int64
	for _, r := range ws {
		for read < r.pos {
			n, rerr := f.Read(buf[:min(int64(len(buf)), r.pos-read)])
			ends += int64(bytes.Count(buf[:n], []byte{end}))
			read += int64(n)
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				return rerr
			}
		}
		r.Line = max(r.Line, ends+1)
		r.pos = 0
	}
	return nil
}

var columnsFound = regexp.MustCompile(`^Expected Number of Columns: (\d+) Found: (\d+)`)

// Columns returns the number of columns a MISSING COLUMNS or TOO MANY
// COLUMNS reject expected and found; ok is false for other rejects.
func (r CSVReject) Columns() (want, got int, ok bool) {
	m := columnsFound.FindStringSubmatch(r.Message)
	if m == nil {
		return 0, 0, false
	}
	want, _ = strconv.Atoi(m[1])
	got, _ = strconv.Atoi(m[2])
	return want, got, true
}
