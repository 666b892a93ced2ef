package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-sqlite3" // registers driver "sqlite3"

	"kgforge/ingest"
	"kgforge/internal/duck"
)

type sqliteLoader struct{}

var _ ingest.TableLoader = sqliteLoader{}

// sqliteDSN opens path read-only and immutable: SQLite takes no lock and
// writes nothing, not even beside the file. Immutable also means it ignores
// a write-ahead log, so when a non-empty PATH-wal lies beside the file (a
// database copied while open in WAL mode) it is opened read-only only:
// SQLite then reads the log, and may create the PATH-shm index to do so.
func sqliteDSN(path string) string {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro"
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return dsn
	}
	return dsn + "&immutable=1"
}

func (sqliteLoader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) (loaded []ingest.Loaded, err error) {
	reject := func(err error) error { return rejected(ctx, in, sqliteFileError(err)) }
	if st, err := os.Stat(in.Path); err == nil && st.Size() == 0 {
		// SQLite would read it as a database without tables.
		return nil, reject(errors.New("the file is empty, not an SQLite database"))
	}
	src, err := sql.Open("sqlite3", sqliteDSN(in.Path))
	if err != nil {
		return nil, reject(fmt.Errorf("open sqlite: %w", err))
	}
	defer func() {
		if cerr := src.Close(); cerr != nil && err == nil {
			err = reject(fmt.Errorf("close sqlite: %w", cerr))
		}
		if err != nil {
			err = errors.Join(err, dropLoaded(ctx, db, loaded))
			loaded = nil
		}
	}()
	have, err := sqliteTables(ctx, src)
	if err != nil {
		return nil, reject(err)
	}
	tables, err := pick(have, in.Options.Tables, "")
	if err != nil {
		return nil, reject(err)
	}
	for _, t := range tables {
		name := in.Name(tableWant(in.Base, t.name))
		ld, err := loadSQLiteTable(ctx, src, db, name, t.name)
		if err != nil {
			return loaded, reject(fmt.Errorf("sqlite table %s: %w", t.name, err))
		}
		ld.Origin = t.name
		loaded = append(loaded, ld)
	}
	return loaded, nil
}

// sqliteFileError says in words what is wrong with a file that SQLite
// refuses as damaged or as no database, with SQLite's message after it;
// other errors come back unchanged.
func sqliteFileError(err error) error {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case sqlite3.ErrNotADB:
		return fmt.Errorf("not an SQLite database file: it does not start with SQLite's header (SQLite: %w)", err)
	case sqlite3.ErrCorrupt:
		return fmt.Errorf("not a readable SQLite database file: it is corrupt or truncated (SQLite: %w)", err)
	}
	return err
}

// sqliteTables lists the tables and views of the main schema, sorted by
// name, without SQLite's own (sqlite_%), the shadow tables of virtual
// tables, or the virtual tables (their module may not be compiled in).
// A file that is not an SQLite database fails here.
func sqliteTables(ctx context.Context, src *sql.DB) (_ []tableRef, err error) {
	r, err := src.QueryContext(ctx, `SELECT name, type FROM pragma_table_list
WHERE schema = 'main' AND type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	if err != nil {
		return nil, fmt.Errorf("list sqlite tables: %w", err)
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var out []tableRef
	for r.Next() {
		var name, typ string
		if err := r.Scan(&name, &typ); err != nil {
			return nil, fmt.Errorf("list sqlite tables: %w", err)
		}
		out = append(out, tableRef{name: name, all: typ == "table"})
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("list sqlite tables: %w", err)
	}
	slices.SortFunc(out, func(a, b tableRef) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// sqliteColumn is a column of an SQLite table and the DuckDB type it loads as.
type sqliteColumn struct {
	name     string // in SQLite
	declared string // declared type, as written
	want     string // DuckDB type of its affinity; "" when it has none
	typ      string // DuckDB type it loads as, from want and its values
}

// affinity maps a declared SQLite type to a DuckDB type by SQLite's
// affinity rules (https://sqlite.org/datatype3.html §3.1), in their order,
// then refines the NUMERIC affinity by name. "" means no affinity: the
// values decide.
func affinity(declared string) string {
	t := strings.ToUpper(declared)
	has := func(s ...string) bool {
		return slices.ContainsFunc(s, func(s string) bool { return strings.Contains(t, s) })
	}
	switch {
	case has("INT"):
		return "BIGINT"
	case has("CHAR", "CLOB", "TEXT"):
		return "VARCHAR"
	case has("BLOB"):
		return "BLOB"
	case strings.TrimSpace(t) == "":
		return ""
	case has("REAL", "FLOA", "DOUB"):
		return "DOUBLE"
	case has("BOOL"):
		return "BOOLEAN"
	case has("DATETIME", "TIMESTAMP"):
		return "TIMESTAMP"
	case has("DATE"):
		return "DATE"
	case has("TIME"):
		return "VARCHAR" // a time of day; DuckDB's TIME gains nothing here
	default: // NUMERIC, DECIMAL(p,s), MONEY, NUMBER: SQLite stores them as integers or reals
		return "DOUBLE"
	}
}

// classCounts counts one column's non-NULL values by what they can load as.
type classCounts struct {
	n, integers, reals, blobs int64
	bools                     int64 // integers 0 and 1
	dates                     int64 // text YYYY-MM-DD that is a valid date
	timestamps                int64 // text from YYYY-MM-DD on that SQLite reads as a date and time
}

func (c classCounts) texts() int64 { return c.n - c.integers - c.reals - c.blobs }

// decide returns the DuckDB type a column loads as: want when its values
// fit it, else the narrowest type that holds them.
func decide(want string, c classCounts) string {
	if c.n == 0 {
		return cmp.Or(want, "VARCHAR")
	}
	numeric := func() string {
		switch {
		case c.integers == c.n:
			return "BIGINT"
		case c.integers+c.reals == c.n:
			return "DOUBLE"
		}
		return "VARCHAR"
	}
	switch want {
	case "BIGINT":
		return numeric()
	case "DOUBLE":
		if c.integers+c.reals == c.n {
			return "DOUBLE"
		}
	case "BOOLEAN":
		if c.bools == c.n {
			return "BOOLEAN"
		}
		return numeric()
	case "DATE":
		if c.dates == c.n {
			return "DATE"
		}
		if c.timestamps == c.n {
			return "TIMESTAMP"
		}
	case "TIMESTAMP":
		if c.timestamps == c.n {
			return "TIMESTAMP"
		}
	case "BLOB":
		if c.blobs == c.n {
			return "BLOB"
		}
	case "VARCHAR":
	case "":
		if c.blobs == c.n {
			return "BLOB"
		}
		return numeric()
	}
	return "VARCHAR"
}

// timestampLayout is what strftime('%Y-%m-%d %H:%M:%f', …) returns.
const timestampLayout = "2006-01-02 15:04:05.000"

// sqliteColumns reads a table's columns with their declared types
// (generated columns included, hidden columns of virtual tables not).
func sqliteColumns(ctx context.Context, src *sql.DB, table string) (_ []sqliteColumn, err error) {
	r, err := src.QueryContext(ctx, "SELECT name, type FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid", table)
	if err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var cols []sqliteColumn
	for r.Next() {
		var c sqliteColumn
		if err := r.Scan(&c.name, &c.declared); err != nil {
			return nil, fmt.Errorf("read columns: %w", err)
		}
		c.want = affinity(c.declared)
		cols = append(cols, c)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	if len(cols) == 0 {
		return nil, errors.New("no columns")
	}
	return cols, nil
}

// countClasses runs the first pass: one scan of the table (per 100 columns)
// that counts each column's values by storage class, and, for the types
// that need it, by whether they read as booleans, dates or timestamps.
func countClasses(ctx context.Context, src *sql.DB, table string, cols []sqliteColumn) ([]classCounts, error) {
	counts := make([]classCounts, len(cols))
	const batch = 100 // at most 7 expressions a column: well under SQLite's 2000 result columns
	for lo := 0; lo < len(cols); lo += batch {
		hi := min(lo+batch, len(cols))
		var exprs []string
		var dests []any
		for i := lo; i < hi; i++ {
			q, c := quoteIdent(cols[i].name), &counts[i]
			add := func(expr string, dest *int64) {
				exprs = append(exprs, "coalesce(sum("+expr+"), 0)")
				dests = append(dests, dest)
			}
			add(q+" IS NOT NULL", &c.n)
			add("typeof("+q+") = 'integer'", &c.integers)
			add("typeof("+q+") = 'real'", &c.reals)
			add("typeof("+q+") = 'blob'", &c.blobs)
			switch cols[i].want {
			case "BOOLEAN":
				add("typeof("+q+") = 'integer' AND "+q+" IN (0, 1)", &c.bools)
			case "DATE":
				add("typeof("+q+") = 'text' AND "+q+" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND date("+q+") = "+q, &c.dates)
				fallthrough
			case "TIMESTAMP":
				add("typeof("+q+") = 'text' AND "+q+" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND datetime("+q+") IS NOT NULL", &c.timestamps)
			}
		}
		q := "SELECT " + strings.Join(exprs, ", ") + " FROM " + quoteIdent(table)
		if err := src.QueryRowContext(ctx, q).Scan(dests...); err != nil {
			return nil, fmt.Errorf("count values by type: %w", err)
		}
	}
	return counts, nil
}

// loadSQLiteTable loads one table or view: its column types from the first
// pass, then its rows streamed into DuckDB's Appender.
func loadSQLiteTable(ctx context.Context, src, db *sql.DB, name, table string) (ingest.Loaded, error) {
	cols, err := sqliteColumns(ctx, src, table)
	if err != nil {
		return ingest.Loaded{}, err
	}
	counts, err := countClasses(ctx, src, table, cols)
	if err != nil {
		return ingest.Loaded{}, err
	}
	var warnings []string
	names := make([]string, len(cols))
	for i := range cols {
		names[i] = cols[i].name
	}
	names = columnNames(names)
	dcols := make([]duck.Column, len(cols))
	exprs := make([]string, len(cols))
	for i := range cols {
		c, n := &cols[i], counts[i]
		c.typ = decide(c.want, n)
		if c.want != "" && c.typ != c.want {
			warnings = append(warnings, fmt.Sprintf("column %s is declared %s but holds %d integer, %d real, %d text and %d blob values: loaded as %s",
				c.name, c.declared, n.integers, n.reals, n.texts(), n.blobs, c.typ))
		}
		dcols[i] = duck.Column{Name: names[i], Type: c.typ}
		// Unary + makes the column an expression: the driver then returns
		// values as SQLite stores them, not converted by the declared type
		// (go-sqlite3 turns unreadable DATE text into a zero time).
		exprs[i] = "+" + quoteIdent(c.name)
		if c.typ == "TIMESTAMP" {
			exprs[i] = "strftime('%Y-%m-%d %H:%M:%f', " + quoteIdent(c.name) + ")"
		}
	}
	var repaired, hexed int64
	q := "SELECT " + strings.Join(exprs, ", ") + " FROM " + quoteIdent(table)
	rows := func(yield func([]driver.Value) error) (err error) {
		r, err := src.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, r.Close()) }()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for r.Next() {
			if err := r.Scan(ptrs...); err != nil {
				return err
			}
			row := make([]driver.Value, len(cols))
			for i, v := range vals {
				if row[i], err = sqliteValue(cols[i].typ, v, &repaired, &hexed); err != nil {
					return fmt.Errorf("column %s: %w", cols[i].name, err)
				}
			}
			if err := yield(row); err != nil {
				return err
			}
		}
		return r.Err()
	}
	n, err := duck.Append(ctx, db, name, dcols, rows)
	if err != nil {
		return ingest.Loaded{}, err
	}
	if repaired > 0 {
		warnings = append(warnings, fmt.Sprintf("%d text values were not valid UTF-8: invalid bytes replaced by U+FFFD", repaired))
	}
	if hexed > 0 {
		warnings = append(warnings, fmt.Sprintf("%d blob values in text columns were not UTF-8 text: loaded as hex literals x'…'", hexed))
	}
	return ingest.Loaded{Name: name, Rows: n, Warnings: warnings}, nil
}

// sqliteValue converts a value as SQLite stores it (int64, float64, string,
// []byte or nil) to what DuckDB's Appender takes for typ. The first pass
// chose typ so that every value fits; one that does not is an error.
func sqliteValue(typ string, v any, repaired, hexed *int64) (driver.Value, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "BIGINT":
		if i, ok := v.(int64); ok {
			return i, nil
		}
	case "DOUBLE":
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
	case "BOOLEAN":
		if i, ok := v.(int64); ok {
			return i != 0, nil
		}
	case "DATE":
		if s, ok := v.(string); ok {
			return time.Parse(time.DateOnly, s)
		}
	case "TIMESTAMP":
		if s, ok := v.(string); ok {
			return time.Parse(timestampLayout, s)
		}
	case "BLOB":
		if b, ok := v.([]byte); ok {
			return b, nil
		}
	case "VARCHAR":
		switch x := v.(type) {
		case string:
			if !utf8.ValidString(x) {
				*repaired++
				return strings.ToValidUTF8(x, "\uFFFD"), nil
			}
			return x, nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		case []byte:
			if utf8.Valid(x) {
				return string(x), nil
			}
			*hexed++
			return "x'" + strings.ToUpper(hex.EncodeToString(x)) + "'", nil
		}
	}
	return nil, fmt.Errorf("value of type %T does not fit %s", v, typ)
}
