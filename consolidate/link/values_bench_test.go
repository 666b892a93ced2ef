package link

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"kgforge/internal/duck"
)

// benchValueTable makes a table of 1M rows with two name-like columns:
// names distinct names, each written in four spellings of case, spacing and
// punctuation, and an alias column with names/2 distinct values and NULLs.
func benchValueTable(b *testing.B, names int) *sql.DB {
	b.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(b.TempDir(), "v.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	_, err = db.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE things AS SELECT i AS id,
		CASE i %% 4 WHEN 0 THEN 'Thing ' || (i // 4 %% %[1]d) || ' Ltd.' WHEN 1 THEN 'THING  ' || (i // 4 %% %[1]d) || ' LTD'
			WHEN 2 THEN 'thing-' || (i // 4 %% %[1]d) || ' ltd' ELSE 'Thíng ' || (i // 4 %% %[1]d) || ' Ltd' END AS name,
		CASE WHEN i %% 3 = 0 THEN NULL ELSE 'Alias ' || (i %% %[2]d) END AS alias
		FROM range(1000000) t(i)`, names, names/2))
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// The two shapes of name column measured: a column of a fact table, whose
// 1M rows repeat 20k names (orders.customer), and one of a table of things,
// nearly one name per row.
var valueShapes = []struct {
	name  string
	names int
}{{"repeated_20k", 20_000}, {"distinct_200k", 200_000}}

// BenchmarkDistinctValues folds 1M rows × 2 columns to their distinct keys
// in one DuckDB query (DistinctValues).
func BenchmarkDistinctValues(b *testing.B) {
	for _, shape := range valueShapes {
		b.Run(shape.name, func(b *testing.B) {
			db := benchValueTable(b, shape.names)
			cols := []ValueColumn{{"things", "name"}, {"things", "alias"}}
			for b.Loop() {
				vs, err := DistinctValues(context.Background(), db, cols)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(vs)), "values")
			}
		})
	}
}

// BenchmarkDistinctValuesInGo is the alternative: every row's values read
// into Go, keyed with Key and counted in a map.
func BenchmarkDistinctValuesInGo(b *testing.B) {
	for _, shape := range valueShapes {
		b.Run(shape.name, func(b *testing.B) {
			db := benchValueTable(b, shape.names)
			for b.Loop() {
				n, err := distinctInGo(db)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(n), "values")
			}
		})
	}
}

func distinctInGo(db *sql.DB) (_ int, err error) {
	rows, err := db.QueryContext(context.Background(), `SELECT name, alias FROM things`)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, rows.Close()) }()
	seen := map[[2]string]int64{}
	for rows.Next() {
		var name, alias sql.NullString
		if err := rows.Scan(&name, &alias); err != nil {
			return 0, err
		}
		if name.Valid {
			seen[[2]string{"name", Key(name.String)}]++
		}
		if alias.Valid {
			seen[[2]string{"alias", Key(alias.String)}]++
		}
	}
	return len(seen), rows.Err()
}

// BenchmarkMatchValues matches 100k names (half of them spelled as some
// row has them, in another case or with a legal form; half absent) against
// the distinct values of a 1M-row table: DistinctValues once, then one map
// lookup per name. One op is the whole match, the query included.
func BenchmarkMatchValues(b *testing.B) {
	db := benchValueTable(b, 200_000)
	names := make([]string, 100_000)
	for i := range names {
		if i%2 == 0 {
			names[i] = fmt.Sprintf("thing %d GmbH", i)
		} else {
			names[i] = fmt.Sprintf("Other %d", i)
		}
	}
	cols := []ValueColumn{{"things", "name"}, {"things", "alias"}}
	for b.Loop() {
		vs, err := DistinctValues(context.Background(), db, cols)
		if err != nil {
			b.Fatal(err)
		}
		ix := NewValueIndex(vs)
		matched := 0
		for _, n := range names {
			if len(ix.Match(n)) > 0 {
				matched++
			}
		}
		b.ReportMetric(float64(matched), "matched")
	}
}

// BenchmarkMatchValuesPerName is the loop a set operation replaces: one
// query per name, comparing it with every row's value folded the same way
// (lower case, accents off), on perName of the 100k names; the full match
// costs 100k/perName times one op.
func BenchmarkMatchValuesPerName(b *testing.B) {
	const perName = 100
	db := benchValueTable(b, 200_000)
	q := `SELECT count(*) FROM things WHERE ` + sqlKey("name") + ` = ? OR ` +
		sqlKey("alias") + ` = ?`
	for b.Loop() {
		matched := 0
		for i := range perName {
			k := Key(fmt.Sprintf("thing %d ltd", i))
			var n int
			if err := db.QueryRowContext(context.Background(), q, k, k).Scan(&n); err != nil {
				b.Fatal(err)
			}
			if n > 0 {
				matched++
			}
		}
		b.ReportMetric(float64(matched), "matched")
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*100_000/perName, "extrapolated_s")
}
