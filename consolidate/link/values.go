package link

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kgforge/internal/duck"
)

// ValueColumn names a column of the data layer whose values are names.
type ValueColumn struct {
	Table, Column string
}

// Value is one distinct value of a column, up to normalisation: every
// spelling with the same key is one Value.
type Value struct {
	Table, Column string
	Key           string // as Key spells it
	Value         string // the smallest spelling the column holds
	Rows          int64  // rows whose value has this key
}

// sqlKey returns DuckDB's approximation of Key for the expression x, so
// that the database folds the values before they cross into Go: accents
// off, lower case, full stops and apostrophes dropped, other runs of
// non-letters a space. Key then spells each distinct result exactly,
// merging what the approximation kept apart.
func sqlKey(x string) string {
	return `trim(regexp_replace(regexp_replace(lower(strip_accents(` + x + `)), '[.''` + "`" + `’ʼ]', '', 'g'), '[^\pL\pN]+', ' ', 'g'))`
}

// DistinctValues returns the distinct values of the columns, normalised,
// with one query per table that unpivots its columns and groups them by key
// inside DuckDB: the set of all values is folded at once, not row by row in
// Go. NULLs and values without a letter or digit are left out. The result
// is sorted by table, column and key.
func DistinctValues(ctx context.Context, db *sql.DB, cols []ValueColumn) ([]Value, error) {
	byTable := map[string][]string{}
	for _, c := range cols {
		if !slices.Contains(byTable[c.Table], c.Column) {
			byTable[c.Table] = append(byTable[c.Table], c.Column)
		}
	}
	var out []Value
	for _, t := range slices.Sorted(maps.Keys(byTable)) {
		vs, err := tableValues(ctx, db, t, byTable[t])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// tableValues runs the query of one table.
func tableValues(ctx context.Context, db *sql.DB, table string, cols []string) (_ []Value, err error) {
	// One branch per column, all in one query (UNION ALL measured 3× faster
	// than UNPIVOT); the distinct values come first, so the key is computed
	// once per distinct value, not per row.
	branches := make([]string, len(cols))
	for i, c := range cols {
		branches[i] = fmt.Sprintf("SELECT %s AS col, CAST(%s AS VARCHAR) AS v FROM %s",
			duck.QuoteString(c), duck.QuoteIdent(c), duck.QuoteIdent(table))
	}
	// MATERIALIZED keeps DuckDB from pushing the key below the distinct
	// (measured: the regular expressions then ran on every row, 5× slower).
	q := fmt.Sprintf(`WITH d AS MATERIALIZED (
		SELECT col, v, count(*) AS n FROM (%s) WHERE v IS NOT NULL GROUP BY col, v
	) SELECT col, k, min(v), sum(n)::BIGINT FROM (SELECT col, v, n, %s AS k FROM d) GROUP BY col, k`,
		strings.Join(branches, " UNION ALL "), sqlKey("v"))
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("distinct values of table %s: %w", table, err)
	}
	defer func() { err = errors.Join(err, rows.Close()) }()
	merged := map[[2]string]*Value{}
	for rows.Next() {
		var col, k, v string
		var n int64
		if err := rows.Scan(&col, &k, &v, &n); err != nil {
			return nil, fmt.Errorf("distinct values of table %s: %w", table, err)
		}
		key := Key(v)
		if key == "" {
			continue
		}
		if m := merged[[2]string{col, key}]; m != nil {
			m.Rows += n
			m.Value = min(m.Value, v)
			continue
		}
		merged[[2]string{col, key}] = &Value{Table: table, Column: col, Key: key, Value: v, Rows: n}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("distinct values of table %s: %w", table, err)
	}
	out := make([]Value, 0, len(merged))
	for _, v := range merged {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b Value) int {
		return cmp.Or(strings.Compare(a.Column, b.Column), strings.Compare(a.Key, b.Key))
	})
	return out, nil
}

// ValueIndex finds the column values a name stands for: the distinct values
// of DistinctValues, by key.
type ValueIndex map[string][]Value

// NewValueIndex indexes values by key, and a value with a trailing legal
// form also by its key without it.
func NewValueIndex(values []Value) ValueIndex {
	ix := ValueIndex{}
	for _, v := range values {
		for _, k := range variants(v.Key) {
			ix[k] = append(ix[k], v)
		}
	}
	return ix
}

// Match returns the values whose key is the name's, or else those that
// agree with it once a trailing legal form is off either side ("TechChip
// Inc" finds "TechChip", "Kestrel Alloys" finds "Kestrel Alloys Ltd.");
// nil when none.
func (ix ValueIndex) Match(name string) []Value {
	for _, k := range variants(Key(name)) {
		if vs := ix[k]; len(vs) > 0 {
			return vs
		}
	}
	return nil
}
