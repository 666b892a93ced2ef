package tabular_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/ingest/tabular"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// BenchmarkLoadTable loads a 1M-row CSV the way a build does (the encoding
// check, DuckDB's own reader keeping rejects, then the profile) beside
// DuckDB's read_csv alone, the ceiling, and read_csv keeping rejects.
func BenchmarkLoadTable(b *testing.B) {
	dir := b.TempDir()
	csv := filepath.Join(dir, "orders.csv")
	const rows = 1_000_000
	var sb strings.Builder
	sb.WriteString("order_id,customer,product,quantity,order_date,plant,status\n")
	for i := range rows {
		fmt.Fprintf(&sb, "O-%d,Customer %d,Trail %d,%d,2025-%02d-%02d,Porto,shipped\n", i, i%500, i%4, i%20+1, i%12+1, i%28+1)
	}
	info, db := benchFile(b, dir, csv, sb.String())
	ctx := context.Background()
	b.Run("read_csv", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if _, err := duck.LoadCSV(ctx, db, "ceiling", csv); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("read_csv_store_rejects", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if _, err := duck.LoadCSVWithRejects(ctx, db, "rejecting", csv, tabular.MaxRowWarnings); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("load_and_profile", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if _, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: kg.Source{URI: "orders.csv", Kind: kg.KindCSV, Bytes: info.Size()}, Path: csv, Base: "orders"}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkLoadTableNumbers loads a 1M-row CSV whose amounts are written
// for people ("$1,234.50", "(75.00)") as a build does, reading them as
// numbers (the default), beside the same load keeping them as text
// (numbers: text), the load a user would otherwise run: the difference is
// the cost of the check of every text column and of the conversion.
func BenchmarkLoadTableNumbers(b *testing.B) {
	dir := b.TempDir()
	csv := filepath.Join(dir, "ledger.csv")
	const rows = 1_000_000
	var sb strings.Builder
	sb.WriteString("entry_id,account,memo,amount,vat,posted,plant\n")
	for i := range rows {
		amount := fmt.Sprintf("\"$%d,%03d.%02d\"", i%90+1, i%1000, i%100)
		if i%7 == 0 {
			amount = fmt.Sprintf("\"$(%d.%02d)\"", i%900+1, i%100)
		}
		fmt.Fprintf(&sb, "E-%d,Account %d,Invoice %d,%s,%d%%,2025-%02d-%02d,Porto\n", i, i%300, i, amount, 5+i%3*6, i%12+1, i%28+1)
	}
	info, db := benchFile(b, dir, csv, sb.String())
	ctx := context.Background()
	for _, mode := range []string{"read", ingest.NumbersText} {
		b.Run("numbers_"+mode, func(b *testing.B) {
			b.SetBytes(info.Size())
			opt := ingest.Options{}
			if mode == ingest.NumbersText {
				opt.Numbers = ingest.NumbersText
			}
			for b.Loop() {
				if _, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: kg.Source{URI: "ledger.csv", Kind: kg.KindCSV, Bytes: info.Size()}, Path: csv, Base: "ledger", Options: opt}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// benchFile writes a benchmark's CSV and opens the DuckDB file it loads
// into, closed when the benchmark ends.
func benchFile(b *testing.B, dir, csv, content string) (os.FileInfo, *sql.DB) {
	b.Helper()
	if err := os.WriteFile(csv, []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(csv)
	if err != nil {
		b.Fatal(err)
	}
	db, err := duck.Open(context.Background(), filepath.Join(dir, "bench.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return info, db
}
