package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// Numbers written for people. A delimited file or a sheet often holds its
// amounts as text: "$19,373", "(1,212)" for a negative, "12.5%", "—" for
// none. DuckDB's reader keeps such a column as text, so a sum, an average
// or an order of it is wrong or refused. readNumbers reads a text column
// as numbers when every one of its values is such a number (or a dash
// alone), at least one of them is written with a decoration (a currency
// sign, thousands separators, parentheses or a percent sign: a column of
// plain digits that DuckDB left as text, such as codes, stays text), at
// most one currency sign is used, and either every value or none carries a
// percent sign. A number with a leading zero ("007") is no such number.
// The currency sign or the percent sign goes to kg.Column.Unit, a warning
// of the table says what was read and from what, and a pipeline that wants
// the text keeps it with numbers: text.

// The RE2 pattern (DuckDB's regexp_full_match) of one decorated number,
// after trim: an optional sign and currency sign in either order, or
// parentheses around the number (with the currency sign inside or before
// them); thousands separated by commas in groups of three or no separator;
// decimals after a point; an optional percent sign.
const (
	numCore    = `(?:[0-9]{1,3}(?:,[0-9]{3})+|0|[1-9][0-9]*)(?:\.[0-9]+)?%?`
	numCur     = `[$€£¥]`
	numPattern = `(?:[-−+]?` + numCur + `? ?` + numCore + `|` + numCur + ` ?[-−]` + numCore + `|\(` + numCur + `? ?` + numCore + `\)|` + numCur + ` ?\(` + numCore + `\))`
	numDecor   = `[$€£¥,()%]`
	// numDashes are the values that stand for no amount.
	numDashes = `('-', '—', '–', '−')`
	// numMaxDigits is the most digits a DECIMAL holds.
	numMaxDigits = 38
)

// NumbersText is the value of Options.Numbers that keeps decorated numbers
// as the text the source wrote.
const NumbersText = "text"

// numberKinds are the source kinds whose text columns readNumbers reads:
// those whose cells are text as the file wrote it. A database's column is
// typed by its owner.
var numberKinds = map[kg.SourceKind]bool{kg.KindCSV: true, kg.KindXLSX: true}

// readNumbers reads the decorated-number text columns of a loaded table as
// numbers (see above) and returns each such column's unit by name and the
// warnings that say what was read.
func readNumbers(ctx context.Context, db *sql.DB, table string) (map[string]string, []string, error) {
	var cols []string
	err := eachRow(ctx, db, "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND data_type = 'VARCHAR' ORDER BY ordinal_position",
		func(r *sql.Rows) error {
			var c string
			err := r.Scan(&c)
			cols = append(cols, c)
			return err
		}, table)
	if err != nil {
		return nil, nil, fmt.Errorf("read numbers of table %s: %w", table, err)
	}
	units := map[string]string{}
	var warnings []string
	for _, c := range cols {
		ok, err := allNumbers(ctx, db, table, c)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		st, err := numberStats(ctx, db, table, c)
		if err != nil {
			return nil, nil, err
		}
		if !st.readable() {
			continue
		}
		if err := convertNumbers(ctx, db, table, c, st); err != nil {
			return nil, nil, err
		}
		units[c] = st.unit()
		warnings = append(warnings, st.warning(c))
	}
	return units, warnings, nil
}

// numStats is what one query tells of a text column's values (trimmed;
// dashes and empty values apart).
type numStats struct {
	values, decorated, dashes int64
	currencies, percents      int64
	currency                  string
	intDigits, scale          int64
	example                   string
}

// readable says whether the column, every value of which allNumbers found
// a number or a dash, is read as numbers.
func (s numStats) readable() bool {
	return s.values > 0 && s.decorated > 0 && s.currencies <= 1 &&
		(s.percents == 0 || s.percents == s.values) && s.intDigits+s.scale <= numMaxDigits
}

// unit is the sign the column's numbers were written with.
func (s numStats) unit() string {
	if s.percents > 0 {
		return "%"
	}
	return s.currency
}

// sqlType is the type the column's numbers take: an integer when none has
// decimals and they fit, else a DECIMAL wide enough for all of them.
func (s numStats) sqlType() string {
	switch {
	case s.scale == 0 && s.intDigits <= 18:
		return "BIGINT"
	case s.intDigits+s.scale <= 18:
		return fmt.Sprintf("DECIMAL(18,%d)", s.scale)
	}
	return fmt.Sprintf("DECIMAL(%d,%d)", numMaxDigits, s.scale)
}

func (s numStats) warning(col string) string {
	var what []string
	if s.currency != "" {
		what = append(what, "currency sign "+s.currency+" dropped")
	}
	if s.percents > 0 {
		what = append(what, "percent sign dropped, the number kept as written")
	}
	what = append(what, "parentheses and a minus sign read as negative")
	if s.dashes > 0 {
		what = append(what, fmt.Sprintf("%d dashes read as empty", s.dashes))
	}
	return fmt.Sprintf("column %q read as numbers (%s) from text such as %q: %s", col, s.sqlType(), s.example, strings.Join(what, "; "))
}

// allNumbers says whether every value of a text column is a decorated
// number, a dash or empty: a query that stops at the first value that is
// not, so an ordinary text column costs the reading of a row or two.
func allNumbers(ctx context.Context, db *sql.DB, table, col string) (bool, error) {
	q := fmt.Sprintf(`SELECT count(*) FROM (SELECT 1 FROM %[2]s WHERE %[1]s IS NOT NULL AND trim(%[1]s) <> '' AND trim(%[1]s) NOT IN %[3]s AND NOT regexp_full_match(trim(%[1]s), '%[4]s') LIMIT 1)`,
		duck.QuoteIdent(col), duck.QuoteIdent(table), numDashes, numPattern)
	var n int
	if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, fmt.Errorf("read numbers of column %s.%s: %w", table, col, err)
	}
	return n == 0, nil
}

// numberStats measures, in one query, a text column whose every value
// allNumbers found a number or a dash: it does not match the pattern again.
func numberStats(ctx context.Context, db *sql.DB, table, col string) (numStats, error) {
	q := fmt.Sprintf(`SELECT
  count(*) FILTER (WHERE v <> '' AND v NOT IN %[3]s),
  count(*) FILTER (WHERE v NOT IN %[3]s AND regexp_matches(v, '%[4]s')),
  count(*) FILTER (WHERE v IN %[3]s),
  count(DISTINCT regexp_extract(v, '%[5]s')) FILTER (WHERE regexp_matches(v, '%[5]s')),
  count(*) FILTER (WHERE contains(v, '%%')),
  coalesce(min(regexp_extract(v, '%[5]s')) FILTER (WHERE regexp_matches(v, '%[5]s')), ''),
  coalesce(max(length(regexp_replace(regexp_extract(v, '^[^.]*'), '[^0-9]', '', 'g'))), 0),
  coalesce(max(length(regexp_extract(v, '\.([0-9]+)', 1))), 0),
  coalesce(min(v) FILTER (WHERE v NOT IN %[3]s AND regexp_matches(v, '%[4]s')), '')
FROM (SELECT trim(%[1]s) AS v FROM %[2]s WHERE %[1]s IS NOT NULL)`,
		duck.QuoteIdent(col), duck.QuoteIdent(table), numDashes, numDecor, numCur)
	var s numStats
	err := db.QueryRowContext(ctx, q).Scan(&s.values, &s.decorated, &s.dashes, &s.currencies, &s.percents,
		&s.currency, &s.intDigits, &s.scale, &s.example)
	if err != nil {
		return s, fmt.Errorf("read numbers of column %s.%s: %w", table, col, err)
	}
	return s, nil
}

// convertNumbers rewrites the column as numbers: dashes and empty values
// become NULL, a value with parentheses or a minus sign is negative, every
// character but digits and the decimal point is dropped.
func convertNumbers(ctx context.Context, db *sql.DB, table, col string, s numStats) error {
	qc, typ := duck.QuoteIdent(col), s.sqlType()
	q := fmt.Sprintf(`ALTER TABLE %[1]s ALTER %[2]s SET DATA TYPE %[3]s USING (
  CASE WHEN trim(%[2]s) = '' OR trim(%[2]s) IN %[4]s THEN NULL
  ELSE (CASE WHEN regexp_matches(%[2]s, '[-−(]') THEN -1 ELSE 1 END) * CAST(regexp_replace(%[2]s, '[^0-9.]', '', 'g') AS %[3]s) END)`,
		duck.QuoteIdent(table), qc, typ, numDashes)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("read column %s.%s as numbers: %w", table, col, err)
	}
	return nil
}
