package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// TableName turns a source path into a DuckDB table name: the file stem in
// lower snake case, prefixed with "t_" when it would not start with a letter.
// Callers make names unique with UniqueName.
func TableName(rel string) string {
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToLower(stem) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			underscore = false
		} else if !underscore && b.Len() > 0 {
			b.WriteByte('_')
			underscore = true
		}
	}
	name := strings.TrimRight(b.String(), "_")
	if name == "" || !unicode.IsLetter(rune(name[0])) {
		name = "t_" + name
	}
	return name
}

// UniqueName returns name, or name_2, name_3, … whichever is not yet taken,
// and marks it taken.
func UniqueName(taken map[string]bool, name string) string {
	out := name
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s_%d", name, i)
	}
	taken[out] = true
	return out
}

// TableInput is one table-like source handed to its loader.
type TableInput struct {
	Source  kg.Source
	Path    string // absolute path of the checked file; empty for a database connection
	Base    string // table name derived from the source (TableName of its path)
	Options Options
	// Name returns a collision-free DuckDB table name for a wanted one and
	// reserves it. Loaders that make several tables from one source (sheets,
	// database tables) ask for Base + "_" + the sheet or table name.
	Name func(want string) string
}

// Loaded is one table a loader created in the build's DuckDB.
type Loaded struct {
	Name     string   // DuckDB table name
	Origin   string   // sheet or table inside the source; empty for single-table sources
	Rows     int64    // rows loaded
	Warnings []string // rows skipped or repaired, with their line numbers
}

// TableLoader bulk-loads one table-like source into DuckDB with DuckDB's own
// readers or its Appender — never row-by-row INSERT. Implementations are
// stateless and safe for concurrent use; an error that wraps kg.ErrRejected
// means this source alone cannot be loaded, and names the source and why.
// A loader that fails leaves no table of its source behind.
type TableLoader interface {
	Load(ctx context.Context, db *sql.DB, in TableInput) ([]Loaded, error)
}

// LoadTables loads a table-like source with the loader registered for its
// kind, then profiles every table it made.
func LoadTables(ctx context.Context, db *sql.DB, in TableInput) ([]kg.Table, error) {
	l, ok := loaderFor(in.Source.Kind)
	if !ok {
		return nil, fmt.Errorf("source %s: %w: no table loader for kind %q", in.Source.URI, kg.ErrRejected, in.Source.Kind)
	}
	if in.Name == nil {
		taken := map[string]bool{}
		in.Name = func(want string) string { return UniqueName(taken, TableName(want)) }
	}
	loaded, err := l.Load(ctx, db, in)
	if err != nil {
		return nil, err
	}
	tables := make([]kg.Table, 0, len(loaded))
	for _, ld := range loaded {
		t := kg.Table{Name: ld.Name, SourceID: in.Source.ID, Origin: ld.Origin, Rows: ld.Rows, Warnings: ld.Warnings}
		var units map[string]string
		if numberKinds[in.Source.Kind] && in.Options.Numbers != NumbersText {
			var read []string
			if units, read, err = readNumbers(ctx, db, ld.Name); err != nil {
				return nil, err
			}
			t.Warnings = append(t.Warnings, read...)
		}
		if t.Columns, err = profileColumns(ctx, db, ld.Name); err != nil {
			return nil, err
		}
		for i := range t.Columns {
			t.Columns[i].Unit = units[t.Columns[i].Name]
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// eachRow runs q and calls scan for every row, closing the rows however it ends.
func eachRow(ctx context.Context, db *sql.DB, q string, scan func(*sql.Rows) error, args ...any) (err error) {
	r, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	for r.Next() {
		if err := scan(r); err != nil {
			return err
		}
	}
	return r.Err()
}

func profileColumns(ctx context.Context, db *sql.DB, table string) ([]kg.Column, error) {
	var cols []kg.Column
	err := eachRow(ctx, db, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
		func(r *sql.Rows) error {
			var c kg.Column
			err := r.Scan(&c.Name, &c.Type)
			cols = append(cols, c)
			return err
		}, table)
	if err != nil {
		return nil, fmt.Errorf("profile table %s: %w", table, err)
	}
	qt := duck.QuoteIdent(table)
	for i := range cols {
		qc := duck.QuoteIdent(cols[i].Name)
		var lo, hi sql.NullString
		q := fmt.Sprintf("SELECT count(*) - count(%[1]s), count(DISTINCT %[1]s), CAST(min(%[1]s) AS VARCHAR), CAST(max(%[1]s) AS VARCHAR) FROM %[2]s", qc, qt)
		if err := db.QueryRowContext(ctx, q).Scan(&cols[i].Nulls, &cols[i].Distinct, &lo, &hi); err != nil {
			return nil, fmt.Errorf("profile column %s.%s: %w", table, cols[i].Name, err)
		}
		cols[i].Min, cols[i].Max = lo.String, hi.String
		q = fmt.Sprintf("SELECT DISTINCT CAST(%s AS VARCHAR) AS v FROM %s WHERE %s IS NOT NULL ORDER BY v LIMIT 5", qc, qt, qc)
		err := eachRow(ctx, db, q, func(r *sql.Rows) error {
			var v string
			err := r.Scan(&v)
			cols[i].Samples = append(cols[i].Samples, v)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("sample column %s.%s: %w", table, cols[i].Name, err)
		}
	}
	return cols, nil
}

// MinJoinScore is the inclusion ratio a candidate join needs.
const MinJoinScore = 0.9

// MinNameScore is how alike a column's name and a key's name must be for
// the pair to be tested as a join.
const MinNameScore = 0.5

// FindKeys fills each table's candidate primary keys (unique, non-null
// columns of a key-like type: integers, text, UUIDs) and candidate foreign
// keys: columns whose name is like a candidate key of another table (see
// NameScore) and whose distinct values are found in that key for at least
// MinJoinScore of them; the inclusion ratio is the join's score.
func FindKeys(ctx context.Context, db *sql.DB, tables []kg.Table) error {
	for i := range tables {
		to := &tables[i]
		to.PrimaryKeys = nil
		for _, c := range to.Columns {
			if c.Nulls == 0 && c.Distinct == to.Rows && to.Rows > 0 && keyType(c.Type) {
				to.PrimaryKeys = append(to.PrimaryKeys, c.Name)
			}
		}
	}
	for i := range tables {
		from := &tables[i]
		from.ForeignKeys = nil
		for _, to := range tables {
			if to.Name == from.Name {
				continue
			}
			for _, key := range to.PrimaryKeys {
				for _, fc := range from.Columns {
					if fc.Distinct == 0 || !keyType(fc.Type) || NameScore(fc.Name, to.Name, key) < MinNameScore {
						continue
					}
					q := fmt.Sprintf("SELECT count(DISTINCT f.%[1]s) FILTER (WHERE t.%[2]s IS NOT NULL)::DOUBLE / count(DISTINCT f.%[1]s) FROM %[3]s f LEFT JOIN %[4]s t ON CAST(f.%[1]s AS VARCHAR) = CAST(t.%[2]s AS VARCHAR)",
						duck.QuoteIdent(fc.Name), duck.QuoteIdent(key), duck.QuoteIdent(from.Name), duck.QuoteIdent(to.Name))
					var score float64
					if err := db.QueryRowContext(ctx, q).Scan(&score); err != nil {
						return fmt.Errorf("score join %s.%s -> %s.%s: %w", from.Name, fc.Name, to.Name, key, err)
					}
					if score >= MinJoinScore {
						from.ForeignKeys = append(from.ForeignKeys, kg.ForeignKey{Column: fc.Name, RefTable: to.Name, RefColumn: key, Score: score})
					}
				}
			}
		}
	}
	return nil
}

// keyType reports whether a column of this DuckDB type can be a key:
// measures (floating point, decimals), dates and booleans cannot.
func keyType(t string) bool {
	switch strings.ToUpper(t) {
	case "VARCHAR", "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT", "UBIGINT", "UINTEGER", "USMALLINT", "UTINYINT", "UUID":
		return true
	}
	return false
}

// NameScore says how alike the name of column col is to key, a key of
// table, from 0 to 1: 1 when the names are equal once case and separators
// are folded (supplier_id, SupplierID) or when key is a bare "id" and col is
// the table's singular name plus id (customer_id for customers.id); 0.8 when
// col holds every word of key but "id" and nothing but "id" after them
// (main_supplier_id, supplier for supplier_id; not supplier_name); else the
// share of words they have in common.
func NameScore(col, table, key string) float64 {
	c, k := nameWords(col), nameWords(key)
	if slices.Equal(c, k) {
		return 1
	}
	if slices.Equal(k, []string{"id"}) || slices.Equal(k, []string{"key"}) {
		tw := nameWords(table)
		if len(tw) > 0 && len(c) >= 2 && c[len(c)-1] == k[0] && singular(c[len(c)-2]) == singular(tw[len(tw)-1]) {
			return 1
		}
		return 0
	}
	generic := func(w string) bool { return w == "id" || w == "key" || w == "code" || w == "no" }
	core := slices.DeleteFunc(slices.Clone(k), generic)
	if len(core) > 0 && !slices.ContainsFunc(core, func(w string) bool { return !slices.Contains(c, w) }) {
		last := slices.Index(c, core[len(core)-1])
		if !slices.ContainsFunc(c[last+1:], func(w string) bool { return !generic(w) }) {
			return 0.8
		}
	}
	common := 0
	for _, w := range k {
		if slices.Contains(c, w) {
			common++
		}
	}
	return float64(common) / float64(max(len(c), len(k)))
}

// nameWords splits a name into lower-case words at separators and at
// lower-to-upper case changes (SupplierID → supplier, id).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return words
}

func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "ses"), strings.HasSuffix(w, "xes"):
		return strings.TrimSuffix(w, "es")
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return strings.TrimSuffix(w, "s")
	}
	return w
}

// ConnectionDigest identifies what a database source reads — its tables or
// query, not its credentials — so that a build can tell when it changed.
func ConnectionDigest(opt Options) string {
	return kg.ID(append([]string{"connection", opt.Query}, opt.Tables...)...)
}
