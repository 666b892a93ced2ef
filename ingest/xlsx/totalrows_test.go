package xlsx_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xuri/excelize/v2"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// TestLoad_TotalRowsLeftOut builds a workbook with excelize's stream
// writer, which keeps a formula's cached value as Excel does, holding a
// subtotal in the middle (labelled, SUBTOTAL formula), a formula total
// without a label, a labelled total without a formula, and data rows that
// merely hold the word "total". The totals are left out with a warning each;
// the data rows stay, so a column sums to what the sheet's rows hold.
func TestLoad_TotalRowsLeftOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scrap.xlsx")
	sum := func(formula string, cached int) excelize.Cell { return excelize.Cell{Formula: formula, Value: cached} }
	writeSheet(t, path, "Scrap", [][]any{
		{"batch_id", "plant", "defect", "units"},
		{"B-1", "Porto", "weld crack", 4},
		{"B-2", "Porto", "total loss of the frame", 2},
		{"Porto subtotal", nil, nil, sum("SUBTOTAL(9,D2:D3)", 6)},
		{"B-3", "Brno", "Total", 3},
		{"TOTAL-9", "Brno", "chain skips", 5},
		{nil, nil, nil, sum("SUM(D5:D6)", 8)},
		{"Grand total", nil, nil, 14},
	})

	db := openDB(t)
	tables, err := load(context.Background(), db, path, ingest.Options{}, nil)
	must(t, err)
	tb := tables[0]
	want := []string{
		`sheet Scrap row 4: row of totals left out of the table (label "Porto subtotal", D4 =SUBTOTAL(9,D2:D3))`,
		`sheet Scrap row 7: row of totals left out of the table (D7 =SUM(D5:D6))`,
		`sheet Scrap row 8: row of totals left out of the table (label "Grand total")`,
	}
	if !slices.Equal(tb.Warnings, want) {
		t.Errorf("warnings =\n%q\nwant\n%q", tb.Warnings, want)
	}
	if tb.Rows != 4 {
		t.Errorf("rows = %d, want the 4 data rows", tb.Rows)
	}
	got := queryRow(t, db, `SELECT CAST(sum(units) AS VARCHAR), string_agg(batch_id, ',' ORDER BY batch_id) FROM scrap_scrap`)
	if w := []string{"14", "B-1,B-2,B-3,TOTAL-9"}; !slices.Equal(got, w) {
		t.Errorf("sum(units), batch ids = %q, want %q (the grand total the sheet states)", got, w)
	}
}

// TestExampleWorkbook_ScrapSumsToTheSheetsTotal loads the example's
// workbook as a build does and checks that the scrap units in DuckDB sum
// to the total the sheet itself states, in its total cell.
func TestExampleWorkbook_ScrapSumsToTheSheetsTotal(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "bikeco", "data", "production-plan.xlsx")
	wb, err := excelize.OpenFile(path)
	must(t, err)
	formula, err := wb.GetCellFormula("Scrap", "E7")
	must(t, err)
	stated, err := wb.GetCellValue("Scrap", "E7")
	must(t, err)
	must(t, wb.Close())
	if formula != "SUM(E3:E6)" || stated != "19" {
		t.Fatalf("example: Scrap!E7 = %q (=%s), want the total 19 (=SUM(E3:E6)); the example changed, update this test", stated, formula)
	}

	db := openDB(t)
	tables, err := load(context.Background(), db, path, ingest.Options{}, nil)
	must(t, err)
	i := slices.IndexFunc(tables, func(tb kg.Table) bool { return tb.Origin == "Scrap" })
	if i < 0 {
		t.Fatalf("no table of sheet Scrap in %+v", tables)
	}
	got := queryRow(t, db, `SELECT CAST(sum(units) AS VARCHAR), CAST(count(*) AS VARCHAR) FROM `+duck.QuoteIdent(tables[i].Name))
	if got[0] != stated {
		t.Errorf("sum(units) in DuckDB = %s over %s rows, want %s, the sheet's total", got[0], got[1], stated)
	}
}

// TestLoad_NumbersTypedAsText: amounts a sheet holds as text cells
// ("$1,250", "(300)") are read as numbers, as in a CSV; the sign is the
// column's unit.
func TestLoad_NumbersTypedAsText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "costs.xlsx")
	writeSheet(t, path, "Sheet1", [][]any{
		{"item", "cost"},
		{"frames", "$1,250"},
		{"credit", "$(300)"},
		{"forks", "$75.5"},
	})

	db := openDB(t)
	tables, err := load(context.Background(), db, path, ingest.Options{}, nil)
	must(t, err)
	cols := tables[0].Columns
	if cols[1].Type != "DECIMAL(18,1)" || cols[1].Unit != "$" {
		t.Errorf("cost column: %+v", cols[1])
	}
	got := queryRow(t, db, `SELECT CAST(sum(cost) AS VARCHAR), CAST(min(cost) AS VARCHAR) FROM `+duck.QuoteIdent(tables[0].Name))
	if w := []string{"1025.5", "-300.0"}; !slices.Equal(got, w) {
		t.Errorf("sum, min of cost = %q, want %q", got, w)
	}
}

// writeSheet writes a workbook of one sheet with excelize's stream
// writer, which keeps a formula's cached value as Excel does.
func writeSheet(t *testing.T, path, sheet string, rows [][]any) {
	t.Helper()
	f := excelize.NewFile()
	if sheet != "Sheet1" {
		must(t, f.SetSheetName("Sheet1", sheet))
	}
	sw, err := f.NewStreamWriter(sheet)
	must(t, err)
	for i, r := range rows {
		cell, err := excelize.CoordinatesToCellName(1, i+1)
		must(t, err)
		must(t, sw.SetRow(cell, r))
	}
	must(t, sw.Flush())
	must(t, f.SaveAs(path))
	must(t, f.Close())
}
