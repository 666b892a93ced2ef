package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
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

// LoadTable bulk-loads a table-like source from absPath into db with
// DuckDB's own reader, then profiles it.
func LoadTable(ctx context.Context, db *sql.DB, src kg.Source, absPath, name string) (kg.Table, error) {
	if src.Bytes == 0 {
		return kg.Table{}, fmt.Errorf("source %s: %w: empty file", src.URI, kg.ErrRejected)
	}
	rows, err := duck.LoadCSV(ctx, db, name, absPath)
	if err != nil {
		return kg.Table{}, fmt.Errorf("source %s: %w: %w", src.URI, kg.ErrRejected, err)
	}
	t := kg.Table{Name: name, SourceID: src.ID, Rows: rows}
	if t.Columns, err = profileColumns(ctx, db, name); err != nil {
		return kg.Table{}, err
	}
	return t, nil
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
		q := fmt.Sprintf("SELECT count(*) - count(%s), count(DISTINCT %s) FROM %s", qc, qc, qt)
		if err := db.QueryRowContext(ctx, q).Scan(&cols[i].Nulls, &cols[i].Distinct); err != nil {
			return nil, fmt.Errorf("profile column %s.%s: %w", table, cols[i].Name, err)
		}
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

// FindKeys fills each table's candidate primary keys (unique, non-null
// columns) and candidate foreign keys: columns named like a candidate key of
// another table whose distinct values are found in it for at least
// MinJoinScore of them.
func FindKeys(ctx context.Context, db *sql.DB, tables []kg.Table) error {
	for i := range tables {
		to := &tables[i]
		to.PrimaryKeys = nil
		for _, c := range to.Columns {
			if c.Nulls == 0 && c.Distinct == to.Rows && to.Rows > 0 {
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
					if !strings.EqualFold(fc.Name, key) || fc.Distinct == 0 {
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
