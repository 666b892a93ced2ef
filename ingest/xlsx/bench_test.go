package xlsx_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// BenchmarkLoadXLSX loads a 100k-row, 7-column workbook the way a build
// does (stream the sheet, append, infer types, profile) beside DuckDB's
// read_csv of the same data, the ceiling a spreadsheet loader can hope for.
func BenchmarkLoadXLSX(b *testing.B) {
	const rows = 100_000
	dir := b.TempDir()
	book, csv := filepath.Join(dir, "orders.xlsx"), filepath.Join(dir, "orders.csv")
	writeOrders(b, book, csv, rows)
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(dir, "bench.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	b.Run("kgforge", func(b *testing.B) {
		for b.Loop() {
			tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{
				Source: kg.Source{URI: "orders.xlsx", Kind: kg.KindXLSX}, Path: book, Base: "orders",
			})
			if err != nil {
				b.Fatal(err)
			}
			if tables[0].Rows != rows {
				b.Fatalf("loaded %d rows, want %d", tables[0].Rows, rows)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("read_csv_ceiling", func(b *testing.B) {
		for b.Loop() {
			if _, err := duck.LoadCSV(ctx, db, "ceiling", csv); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// writeOrders writes the same orders as a workbook, with excelize's stream
// writer and dates formatted as Excel's short date, and as CSV.
func writeOrders(b *testing.B, book, csv string, rows int) {
	b.Helper()
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()
	if err := f.SetSheetName("Sheet1", "Orders"); err != nil {
		b.Fatal(err)
	}
	date, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		b.Fatal(err)
	}
	sw, err := f.NewStreamWriter("Orders")
	if err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(csv)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(out)
	header := []any{"order_id", "customer", "product", "quantity", "order_date", "plant", "status"}
	if err := sw.SetRow("A1", header); err != nil {
		b.Fatal(err)
	}
	if _, err := fmt.Fprintln(w, "order_id,customer,product,quantity,order_date,plant,status"); err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		on := time.Date(2025, time.Month(i%12+1), i%28+1, 0, 0, 0, 0, time.UTC)
		r := []any{
			fmt.Sprintf("O-%d", i), fmt.Sprintf("Customer %d", i%500), fmt.Sprintf("Trail %d", i%4), i%20 + 1,
			excelize.Cell{StyleID: date, Value: on},
			"Porto", "shipped",
		}
		cell, err := excelize.CoordinatesToCellName(1, i+2)
		if err != nil {
			b.Fatal(err)
		}
		if err := sw.SetRow(cell, r); err != nil {
			b.Fatal(err)
		}
		if _, err := fmt.Fprintf(w, "O-%d,Customer %d,Trail %d,%d,%s,Porto,shipped\n", i, i%500, i%4, i%20+1, on.Format(time.DateOnly)); err != nil {
			b.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.SaveAs(book); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
