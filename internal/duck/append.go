package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// Column is a column of a table created by Append: a name and a DuckDB type
// such as VARCHAR, BIGINT, DOUBLE, BOOLEAN, DATE or TIMESTAMP.
type Column struct {
	Name string
	Type string
}

// Append creates table with cols and fills it through DuckDB's Appender with
// the rows that rows yields. When rows or the Appender fails, the table is
// dropped: a table is either complete or absent. Each row has one value per column (nil for NULL), of a Go type
// the column's DuckDB type accepts. It returns the number of rows appended.
func Append(ctx context.Context, db *sql.DB, table string, cols []Column, rows func(yield func(row []driver.Value) error) error) (n int64, err error) {
	if len(cols) == 0 {
		return 0, fmt.Errorf("append to table %s: no columns", table)
	}
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = QuoteIdent(c.Name) + " " + c.Type
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("append to table %s: %w", table, err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	create := fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", QuoteIdent(table), strings.Join(defs, ", "))
	if _, err := conn.ExecContext(ctx, create); err != nil {
		return 0, fmt.Errorf("create table %s: %w", table, err)
	}
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", table)
		if err != nil {
			return err
		}
		err = rows(func(row []driver.Value) error {
			if len(row) != len(cols) {
				return fmt.Errorf("row %d has %d values for %d columns", n+1, len(row), len(cols))
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := a.AppendRow(row...); err != nil {
				return fmt.Errorf("row %d: %w", n+1, err)
			}
			n++
			return nil
		})
		return errors.Join(err, a.Close())
	})
	if err != nil {
		_, derr := conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+QuoteIdent(table))
		return 0, errors.Join(fmt.Errorf("append to table %s: %w", table, err), derr)
	}
	return n, nil
}

// castOrder is the order InferTypes tries narrower types in.
var castOrder = []string{"BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP"}

// castGuards refuse values that a cast accepts only by changing them:
// DuckDB rounds '1234.5' to the BIGINT 1235 and cuts '2025-03-05 13:05:06'
// to the DATE 2025-03-05. %[1]s is the quoted column.
var castGuards = map[string]string{
	"BIGINT": "NOT regexp_full_match(trim(%[1]s), '[+-]?[0-9]+')",
	"DATE":   "TRY_CAST(%[1]s AS TIMESTAMP) IS DISTINCT FROM CAST(TRY_CAST(%[1]s AS DATE) AS TIMESTAMP)",
}

// InferTypes gives each VARCHAR column of table the first of BIGINT, DOUBLE,
// BOOLEAN, DATE and TIMESTAMP that every non-NULL value casts to, the
// way DuckDB's CSV sniffer would, and turns empty strings into NULLs first.
// Columns with no value stay VARCHAR.
func InferTypes(ctx context.Context, db *sql.DB, table string) error {
	qt := QuoteIdent(table)
	names, err := varcharColumns(ctx, db, table)
	if err != nil {
		return fmt.Errorf("infer types of %s: %w", table, err)
	}
	for _, c := range names {
		qc := QuoteIdent(c)
		if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s = NULL WHERE trim(%s) = ''", qt, qc, qc)); err != nil {
			return fmt.Errorf("infer type of %s.%s: %w", table, c, err)
		}
		for _, typ := range castOrder {
			var bad, have int64
			cond := fmt.Sprintf("TRY_CAST(%[1]s AS %[2]s) IS NULL", qc, typ)
			if g, ok := castGuards[typ]; ok {
				cond += " OR " + fmt.Sprintf(g, qc)
			}
			q := fmt.Sprintf("SELECT count(*) FILTER (WHERE %[1]s IS NOT NULL AND (%[2]s)), count(%[1]s) FROM %[3]s", qc, cond, qt)
			if err := db.QueryRowContext(ctx, q).Scan(&bad, &have); err != nil {
				return fmt.Errorf("infer type of %s.%s: %w", table, c, err)
			}
			if have == 0 {
				break
			}
			if bad == 0 {
				alter := fmt.Sprintf("ALTER TABLE %s ALTER %s TYPE %s USING CAST(%s AS %s)", qt, qc, typ, qc, typ)
				if _, err := db.ExecContext(ctx, alter); err != nil {
					return fmt.Errorf("infer type of %s.%s: %w", table, c, err)
				}
				break
			}
		}
	}
	return nil
}

func varcharColumns(ctx context.Context, db *sql.DB, table string) (_ []string, err error) {
	r, err := db.QueryContext(ctx, "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND data_type = 'VARCHAR' ORDER BY ordinal_position", table)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	var names []string
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			return nil, err
		}
		names = append(names, s)
	}
	return names, r.Err()
}
