package xlsx_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"errors"
	"flag"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"kgforge/ingest"
	_ "kgforge/ingest/xlsx"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func TestLoad_SheetsTypesAndFormulas(t *testing.T) {
	ctx := context.Background()
	path := ordersBook(t)
	wb, err := excelize.OpenFile(path)
	must(t, err)
	if got, _ := wb.GetCellFormula("Parts", "C2"); got != "B2*2" {
		t.Fatalf("fixture: formula of Parts!C2 = %q, want B2*2", got)
	}
	must(t, wb.Close())

	db := openDB(t)
	tables, err := load(ctx, db, path, ingest.Options{}, nil)
	must(t, err)
	if len(tables) != 2 {
		t.Fatalf("got %d tables, want 2: %+v", len(tables), tables)
	}
	orders, parts := tables[0], tables[1]
	if orders.Name != "book_orders" || orders.Origin != "Orders" || orders.Rows != 3 || orders.SourceID != "src-book.xlsx" {
		t.Errorf("orders = %s origin %q rows %d source %q", orders.Name, orders.Origin, orders.Rows, orders.SourceID)
	}
	if parts.Name != "book_parts" || parts.Origin != "Parts" || parts.Rows != 2 {
		t.Errorf("parts = %s origin %q rows %d", parts.Name, parts.Origin, parts.Rows)
	}
	got := types(orders)
	for col, want := range map[string]string{"order_id": "VARCHAR", "quantity": "BIGINT", "order_date": "DATE", "express": "BOOLEAN"} {
		if got[col] != want {
			t.Errorf("type of orders.%s = %s, want %s", col, got[col], want)
		}
	}
	if got, want := types(parts), map[string]string{"part_id": "VARCHAR", "cost": "BIGINT", "total": "BIGINT"}; !maps.Equal(got, want) {
		t.Errorf("parts types = %v, want %v", got, want)
	}
	row := queryRow(t, db, `SELECT CAST(order_date AS VARCHAR), CAST(express AS VARCHAR) FROM book_orders WHERE order_id = 'O-1'`)
	if want := []string{"2025-03-04", "true"}; !slices.Equal(row, want) {
		t.Errorf("row O-1 = %q, want %q (the date was shown as mm-dd-yy)", row, want)
	}
	row = queryRow(t, db, `SELECT CAST(sum(total) AS VARCHAR), CAST(max(total) AS VARCHAR) FROM book_parts`)
	if want := []string{"113", "99"}; !slices.Equal(row, want) {
		t.Errorf("cached formula values: sum, max = %q, want %q (a recalculation would give 34, 20)", row, want)
	}
	// The profile ran.
	for _, c := range orders.Columns {
		if c.Name == "quantity" && (c.Min != "3" || c.Max != "7" || c.Distinct != 3) {
			t.Errorf("quantity profile = %+v", c)
		}
	}
}

// TestLoad_DecimalsAndTimestamps checks the types of columns whose values
// duck.InferTypes must not narrow by changing them: decimals are not
// BIGINT, times of day are not cut to a DATE.
func TestLoad_DecimalsAndTimestamps(t *testing.T) {
	db := openDB(t)
	tables, err := load(context.Background(), db, ordersBook(t), ingest.Options{Sheets: []string{"Orders"}}, nil)
	must(t, err)
	got := types(tables[0])
	for col, want := range map[string]string{"price": "DOUBLE", "shipped_at": "TIMESTAMP", "discount": "DOUBLE"} {
		if got[col] != want {
			t.Errorf("type of orders.%s = %s, want %s", col, got[col], want)
		}
	}
	row := queryRow(t, db, `SELECT CAST(price AS VARCHAR), CAST(shipped_at AS VARCHAR), CAST(discount AS VARCHAR) FROM book_orders WHERE order_id = 'O-1'`)
	if want := []string{"1234.5", "2025-03-05 13:05:06", "0.125"}; !slices.Equal(row, want) {
		t.Errorf("row O-1 = %q, want %q", row, want)
	}
}

// ordersBook writes a workbook with the sheets Orders, whose cells carry
// the number formats people give them, and Parts, with formulas.
func ordersBook(t *testing.T) string {
	t.Helper()
	return writeBook(t, "book.xlsx", func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Orders"))
		setRows(t, f, "Orders", 1,
			[]any{"order_id", "quantity", "price", "order_date", "shipped_at", "discount", "express"},
			[]any{"O-1", 3, 1234.5, day(2025, 3, 4), time.Date(2025, 3, 5, 13, 5, 6, 0, time.UTC), 0.125, true},
			[]any{"O-2", 5, 99, day(2025, 3, 10), time.Date(2025, 3, 11, 8, 0, 0, 0, time.UTC), 0.2, false},
			[]any{"O-3", 7, 12.75, day(2025, 4, 1), time.Date(2025, 4, 2, 23, 59, 59, 0, time.UTC), 0, true},
		)
		style(t, f, "Orders", "C2", "C4", &excelize.Style{NumFmt: 4})                                // #,##0.00
		style(t, f, "Orders", "D2", "D4", &excelize.Style{NumFmt: 14})                               // mm-dd-yy
		style(t, f, "Orders", "E2", "E4", &excelize.Style{CustomNumFmt: ptr("dd/mm/yyyy hh:mm:ss")}) // European
		style(t, f, "Orders", "F2", "F4", &excelize.Style{NumFmt: 10})                               // 0.00%
		_, err := f.NewSheet("Parts")
		must(t, err)
		setRows(t, f, "Parts", 1,
			[]any{"part_id", "cost", "total"},
			[]any{"P1", 10, 99},
			[]any{"P2", 7, 14},
		)
		// A formula whose cached value is not what it computes: the
		// loader must take the cached value and never recalculate.
		must(t, f.SetCellFormula("Parts", "C2", "B2*2"))
		must(t, f.SetCellFormula("Parts", "C3", "B3*2"))
	})
}

var update = flag.Bool("update", false, "rewrite testdata/corpus/production.xlsx")

// productionFixture is the corpus workbook: Velora Cycles' production plan
// and scrap log.
var productionFixture = filepath.Join("..", "..", "testdata", "corpus", "production.xlsx")

// writeProduction builds the corpus workbook. Its sheet Scrap has a title
// merged over the table, an empty row under it and a total row whose
// formula keeps its cached value.
func writeProduction(t *testing.T, path string) {
	t.Helper()
	f := excelize.NewFile()
	must(t, f.SetSheetName("Sheet1", "Plan"))
	setRows(t, f, "Plan", 1, []any{"week", "model", "planned_units", "plant"})
	models := []struct {
		name, plant string
		units       int
	}{{"Trail 500", "Porto", 180}, {"Gravel 700", "Porto", 95}, {"City 300", "Brno", 220}, {"Volt E8", "Brno", 60}}
	r := 2
	for w := range 3 {
		for i, m := range models {
			setRows(t, f, "Plan", r, []any{day(2025, 3, 3+7*w), m.name, m.units + 10*w - 5*i, m.plant})
			r++
		}
	}
	style(t, f, "Plan", "A2", "A13", &excelize.Style{CustomNumFmt: ptr("dd/mm/yyyy")})
	style(t, f, "Plan", "C2", "C13", &excelize.Style{NumFmt: 3}) // #,##0

	_, err := f.NewSheet("Scrap")
	must(t, err)
	setRows(t, f, "Scrap", 1, []any{"Velora Cycles: scrap by batch, Porto plant, March 2025"})
	must(t, f.MergeCell("Scrap", "A1", "D1"))
	setRows(t, f, "Scrap", 3,
		[]any{"batch_id", "supplier_id", "defect", "units"},
		[]any{"B-2503-01", "S1", "weld crack on frame TR5", 4},
		[]any{"B-2503-02", "S2", "brake caliper leak", 2},
		[]any{"B-2503-03", "S1", "frame TR5 misaligned dropout", 3},
		[]any{"B-2503-04", "S3", "carbon delamination on GV7", 1},
		[]any{"B-2503-05", "S4", "chain skips under load", 5},
		[]any{"B-2503-06", "S2", "rotor warped", 2},
		[]any{"B-2503-07", "S1", "paint bubbles on frame CT3", 6},
		[]any{"Total", nil, nil, 23},
	)
	must(t, f.SetCellFormula("Scrap", "D11", "SUM(D4:D10)"))
	must(t, f.SaveAs(path))
	must(t, f.Close())
	must(t, os.Chmod(path, 0o644)) // excelize creates files executable
}

// TestFixture_Production loads the corpus workbook (go test -update
// rewrites it first).
func TestFixture_Production(t *testing.T) {
	if *update {
		writeProduction(t, productionFixture)
	}
	if _, err := os.Stat(productionFixture); err != nil {
		t.Fatalf("%v (go test -update ./ingest/xlsx writes it)", err)
	}
	db := openDB(t)
	tables, err := load(context.Background(), db, productionFixture, ingest.Options{}, nil)
	must(t, err)
	if len(tables) != 2 {
		t.Fatalf("got %d tables, want 2", len(tables))
	}
	plan, scrap := tables[0], tables[1]
	if plan.Name != "production_plan" || plan.Rows != 12 || len(plan.Warnings) != 0 {
		t.Errorf("plan = %s, %d rows, warnings %q", plan.Name, plan.Rows, plan.Warnings)
	}
	if got, want := types(plan), map[string]string{"week": "DATE", "model": "VARCHAR", "planned_units": "BIGINT", "plant": "VARCHAR"}; !maps.Equal(got, want) {
		t.Errorf("plan types = %v, want %v", got, want)
	}
	if scrap.Name != "production_scrap" || scrap.Rows != 7 {
		t.Errorf("scrap = %s, %d rows, want 7 (the total row left out)", scrap.Name, scrap.Rows)
	}
	if want := []string{
		`sheet Scrap row 1: title "Velora Cycles: scrap by batch, Porto plant, March 2025" above the header skipped`,
		`sheet Scrap row 11: row of totals left out of the table (label "Total", D11 =SUM(D4:D10))`,
	}; !slices.Equal(scrap.Warnings, want) {
		t.Errorf("scrap warnings = %q, want %q", scrap.Warnings, want)
	}
	if got, want := types(scrap), map[string]string{"batch_id": "VARCHAR", "supplier_id": "VARCHAR", "defect": "VARCHAR", "units": "BIGINT"}; !maps.Equal(got, want) {
		t.Errorf("scrap types = %v, want %v", got, want)
	}
	row := queryRow(t, db, `SELECT CAST(sum(units) AS VARCHAR) FROM production_scrap`)
	if row[0] != "23" {
		t.Errorf("sum(units) = %s, want 23, the total the sheet states", row[0])
	}
	row = queryRow(t, db, `SELECT CAST(min(week) AS VARCHAR), CAST(sum(planned_units) AS VARCHAR) FROM production_plan`)
	if want := []string{"2025-03-03", "1695"}; !slices.Equal(row, want) {
		t.Errorf("plan min(week), sum(planned_units) = %q, want %q", row, want)
	}
}

func TestLoad_Headers(t *testing.T) {
	cases := []struct {
		name      string
		build     func(t *testing.T, f *excelize.File)
		wantCols  []string
		wantRows  int64
		wantWarns []string
	}{
		{
			name: "merged header cell over two columns",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1,
					[]any{"model", "units"},
					[]any{"Trail 29", 10, 12},
					[]any{"City 700", 8, 9},
				)
				must(t, f.MergeCell("Data", "B1", "C1"))
			},
			wantCols: []string{"model", "units_1", "units_2"},
			wantRows: 2,
		},
		{
			name: "two header rows under merged groups",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1,
					[]any{"week", "Output", nil, "plant"},
					[]any{nil, "good", "scrap"},
					[]any{1, 120, 3, "Porto"},
					[]any{2, 118, 5, "Porto"},
				)
				must(t, f.MergeCell("Data", "A1", "A2"))
				must(t, f.MergeCell("Data", "B1", "C1"))
				must(t, f.MergeCell("Data", "D1", "D2"))
			},
			wantCols: []string{"week", "Output_good", "Output_scrap", "plant"},
			wantRows: 2,
		},
		{
			name: "group over part of the columns, the others named in the second row",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1,
					[]any{nil, "Output", nil},
					[]any{"week", "good", "scrap"},
					[]any{1, 120, 3},
				)
				must(t, f.MergeCell("Data", "B1", "C1"))
			},
			wantCols: []string{"week", "Output_good", "Output_scrap"},
			wantRows: 1,
		},
		{
			name: "numbers below a merged header are data",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1,
					[]any{nil, "Amount", nil},
					[]any{nil, 10, 20},
					[]any{nil, 30, 40},
				)
				must(t, f.MergeCell("Data", "B1", "C1"))
			},
			wantCols: []string{"Amount_1", "Amount_2"},
			wantRows: 2,
		},
		{
			name: "merged title above the header",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1,
					[]any{"Velora Cycles: scrap log"},
					[]any{},
					[]any{"batch_id", "defect", "units"},
					[]any{"B-1", "crack", 2},
				)
				must(t, f.MergeCell("Data", "A1", "C1"))
			},
			wantCols:  []string{"batch_id", "defect", "units"},
			wantRows:  1,
			wantWarns: []string{`sheet Data row 1: title "Velora Cycles: scrap log" above the header skipped`},
		},
		{
			name: "blank, repeated and multi-line names",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 2,
					[]any{nil, "id", nil, "Name", "name", "planned\nunits", "column_2"},
					[]any{nil, 1, "x", "a", "b", 5, "y"},
				)
			},
			wantCols: []string{"id", "column_2", "Name", "name_2", "planned units", "column_2_2"},
			wantRows: 1,
		},
		{
			name: "ragged rows",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1,
					[]any{"a", "b", "c"},
					[]any{1},
					[]any{2, 3, 4, "extra", "more"},
					[]any{},
					[]any{3, nil, 5, nil, "note"},
				)
			},
			wantCols:  []string{"a", "b", "c"},
			wantRows:  3,
			wantWarns: []string{"sheet Data row 3: 2 cells beyond the header dropped", "sheet Data row 5: 1 cells beyond the header dropped"},
		},
		{
			name: "header only",
			build: func(t *testing.T, f *excelize.File) {
				setRows(t, f, "Data", 1, []any{"a", "b"})
			},
			wantCols: []string{"a", "b"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeBook(t, "h.xlsx", func(f *excelize.File) {
				must(t, f.SetSheetName("Sheet1", "Data"))
				tc.build(t, f)
			})
			db := openDB(t)
			tables, err := load(context.Background(), db, path, ingest.Options{}, nil)
			must(t, err)
			if len(tables) != 1 {
				t.Fatalf("got %d tables, want 1", len(tables))
			}
			tb := tables[0]
			var cols []string
			for _, c := range tb.Columns {
				cols = append(cols, c.Name)
			}
			if !slices.Equal(cols, tc.wantCols) {
				t.Errorf("columns = %q, want %q", cols, tc.wantCols)
			}
			if tb.Rows != tc.wantRows {
				t.Errorf("rows = %d, want %d", tb.Rows, tc.wantRows)
			}
			if !slices.Equal(tb.Warnings, tc.wantWarns) {
				t.Errorf("warnings = %q, want %q", tb.Warnings, tc.wantWarns)
			}
		})
	}
}

func TestLoad_RaggedRowsPadAndSumUpWarnings(t *testing.T) {
	path := writeBook(t, "ragged.xlsx", func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Orders"))
		setRows(t, f, "Orders", 1, []any{"order_id", "quantity", "note"}, []any{"O-1"})
		for i := range 25 {
			setRows(t, f, "Orders", 3+i, []any{"O-x", i, "n", "dropped"})
		}
		setRows(t, f, "Orders", 28, []any{"O-e", nil, nil})
		must(t, f.SetCellFormula("Orders", "B28", "1/0"))
	})
	// A formula whose cached value is an error; excelize cannot write one.
	divZero := regexp.MustCompile(`<c r="B28"[^>]*>.*?</c>`)
	path = copyZip(t, path, filepath.Join(t.TempDir(), "ragged.xlsx"), func(zw *zip.Writer, f *zip.File) bool {
		if f.Name != "xl/worksheets/sheet1.xml" {
			return false
		}
		data, err := ingest.ReadZipEntry(f, 1<<20)
		must(t, err)
		writeEntry(t, zw, f.Name, divZero.ReplaceAll(data, []byte(`<c r="B28" t="e"><f>1/0</f><v>#DIV/0!</v></c>`)))
		return true
	})
	db := openDB(t)
	tables, err := load(context.Background(), db, path, ingest.Options{}, nil)
	must(t, err)
	tb := tables[0]
	if tb.Rows != 27 {
		t.Errorf("rows = %d, want 27", tb.Rows)
	}
	got := queryRow(t, db, `SELECT CAST(count(*) AS VARCHAR) FROM ragged_orders WHERE quantity IS NULL AND note IS NULL`)
	if got[0] != "2" {
		t.Errorf("rows padded with NULLs = %s, want 2 (O-1 and the #DIV/0! row)", got[0])
	}
	if c := tb.Columns[1]; c.Type != "BIGINT" {
		t.Errorf("quantity type = %s, want BIGINT (the error value must not make it text)", c.Type)
	}
	want := []string{"sheet Orders row 3: 1 cells beyond the header dropped"}
	if len(tb.Warnings) != 22 || tb.Warnings[0] != want[0] {
		t.Fatalf("warnings = %q", tb.Warnings)
	}
	if w := tb.Warnings[20]; w != "sheet Orders: cells outside the header dropped in 5 more rows" {
		t.Errorf("summary warning = %q", w)
	}
	if w := tb.Warnings[21]; w != "sheet Orders: 1 cells with formula errors (#DIV/0!) loaded as NULL" {
		t.Errorf("error warning = %q", w)
	}
}

func TestLoad_Sheets(t *testing.T) {
	path := twoSheets(t)
	cases := []struct {
		name    string
		sheets  []string
		want    []string // tables
		wantErr string
	}{
		{name: "all", want: []string{"book_orders", "book_parts"}},
		{name: "one, any case", sheets: []string{"PARTS"}, want: []string{"book_parts"}},
		{name: "missing", sheets: []string{"Parts", "Nope", "Plan"}, wantErr: `no sheet named "Nope", "Plan" in the workbook (its sheets: "Orders", "Parts", "Empty")`},
		{name: "only an empty one", sheets: []string{"empty"}, wantErr: `no sheet holds data (sheets read: "Empty")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			tables, err := load(context.Background(), db, path, ingest.Options{Sheets: tc.sheets}, nil)
			if tc.wantErr != "" {
				if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "source book.xlsx: ") || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a rejection of book.xlsx with %q", err, tc.wantErr)
				}
				if n := tableCount(t, db); n != 0 {
					t.Errorf("%d tables left behind", n)
				}
				return
			}
			must(t, err)
			var names []string
			for _, tb := range tables {
				names = append(names, tb.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("tables = %q, want %q", names, tc.want)
			}
		})
	}
}

func TestLoad_NamesAreCollisionFree(t *testing.T) {
	path := writeBook(t, "book.xlsx", func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Q1 Sales"))
		setRows(t, f, "Q1 Sales", 1, []any{"a"}, []any{1})
		for _, s := range []string{"q1-sales", "v1.2"} {
			_, err := f.NewSheet(s)
			must(t, err)
			setRows(t, f, s, 1, []any{"a"}, []any{1})
		}
	})
	db := openDB(t)
	taken := map[string]bool{"book_q1_sales": true} // another source has it
	name := func(want string) string { return ingest.UniqueName(taken, ingest.TableName(want)) }
	// Base is the source's path, as the build passes it.
	tables, err := ingest.LoadTables(context.Background(), db, ingest.TableInput{
		Source: kg.Source{ID: "src", URI: "data/book.xlsx", Kind: kg.KindXLSX}, Path: path, Base: "data/book.xlsx", Name: name,
	})
	must(t, err)
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Name)
	}
	if want := []string{"book_q1_sales_2", "book_q1_sales_3", "book_v1_2"}; !slices.Equal(names, want) {
		t.Errorf("tables = %q, want %q", names, want)
	}
}

func TestLoad_Rejects(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name    string
		file    func(t *testing.T) string
		wantErr string
	}{
		{
			name: "not a zip",
			file: func(t *testing.T) string {
				p := filepath.Join(dir, "garbage.xlsx")
				must(t, os.WriteFile(p, []byte("order_id,quantity\nO-1,3\n"), 0o600))
				return p
			},
			wantErr: "not an xlsx workbook: the file is not a zip container",
		},
		{
			name: "legacy xls",
			file: func(t *testing.T) string {
				p := filepath.Join(dir, "legacy.xlsx")
				must(t, os.WriteFile(p, append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 504)...), 0o600))
				return p
			},
			wantErr: "not an xlsx workbook: a legacy .xls workbook or an encrypted .xlsx",
		},
		{
			name: "truncated workbook",
			file: func(t *testing.T) string {
				data, err := os.ReadFile(twoSheets(t))
				must(t, err)
				p := filepath.Join(dir, "truncated.xlsx")
				must(t, os.WriteFile(p, data[:len(data)/2], 0o600))
				return p
			},
			wantErr: "not a readable xlsx workbook: its zip container is truncated or corrupt",
		},
		{
			name: "zip without a workbook",
			file: func(t *testing.T) string {
				return writeZip(t, filepath.Join(dir, "docs.xlsx"), map[string]string{"word/document.xml": "<document/>"})
			},
			wantErr: "not an xlsx workbook: xl/workbook.xml: part missing",
		},
		{
			name: "corrupt workbook part",
			file: func(t *testing.T) string {
				return copyZip(t, twoSheets(t), filepath.Join(dir, "badwb.xlsx"), func(zw *zip.Writer, f *zip.File) bool {
					if f.Name != "xl/workbook.xml" {
						return false
					}
					writeEntry(t, zw, f.Name, []byte("<workbook><sheets><sheet"))
					return true
				})
			},
			wantErr: "decode xl/workbook.xml",
		},
		{
			name: "every sheet empty",
			file: func(t *testing.T) string {
				return writeBook(t, "empty.xlsx", func(f *excelize.File) {
					_, err := f.NewSheet("Other")
					must(t, err)
				})
			},
			wantErr: `no sheet holds data (sheets read: "Sheet1", "Other")`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			path := tc.file(t)
			_, err := load(context.Background(), db, path, ingest.Options{}, nil)
			uri := filepath.Base(path)
			if !errors.Is(err, kg.ErrRejected) || !strings.HasPrefix(err.Error(), "source "+uri+": ") || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want a rejection of %s with %q", err, uri, tc.wantErr)
			}
			if n := tableCount(t, db); n != 0 {
				t.Errorf("%d tables left behind", n)
			}
		})
	}
}

// TestLoad_CorruptSheetDropsLoadedTables breaks the CRC of the second sheet:
// excelize ignores it, the loader must not, and the first sheet's table,
// already loaded, must go too.
func TestLoad_CorruptSheetDropsLoadedTables(t *testing.T) {
	dst := copyZip(t, twoSheets(t), filepath.Join(t.TempDir(), "book.xlsx"), func(zw *zip.Writer, f *zip.File) bool {
		if f.Name != "xl/worksheets/sheet2.xml" {
			return false
		}
		h := f.FileHeader
		h.CRC32 ^= 0xffff
		copyRaw(t, zw, &h, f)
		return true
	})
	db := openDB(t)
	_, err := load(context.Background(), db, dst, ingest.Options{}, nil)
	if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "sheet Parts: worksheet part xl/worksheets/sheet2.xml: zip: checksum error") {
		t.Fatalf("err = %v, want a rejection for the checksum of sheet Parts", err)
	}
	if n := tableCount(t, db); n != 0 {
		t.Errorf("%d tables left behind, want the Orders table dropped", n)
	}
}

// TestLoad_ZipBomb writes a workbook whose first worksheet expands to 300
// MiB from a few hundred KiB. It must be refused from the zip's directory,
// before anything is unzipped.
func TestLoad_ZipBomb(t *testing.T) {
	path := copyZip(t, twoSheets(t), filepath.Join(t.TempDir(), "bomb.xlsx"), func(zw *zip.Writer, f *zip.File) bool {
		if f.Name != "xl/worksheets/sheet1.xml" {
			return false
		}
		block := bytes.Repeat([]byte("<row/>"), 1<<20/6)
		const copies = 300
		stream, crc := deflateRepeat(t, block, copies)
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: f.Name, Method: zip.Deflate, CRC32: crc,
			CompressedSize64: uint64(len(stream)), UncompressedSize64: uint64(len(block)) * copies,
		})
		must(t, err)
		_, err = w.Write(stream)
		must(t, err)
		return true
	})
	db := openDB(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := load(context.Background(), db, path, ingest.Options{}, nil)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "zip entry xl/worksheets/sheet1.xml expands") {
		t.Fatalf("err = %v, want the zip bomb refused", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("refusing the bomb allocated %d bytes", alloc)
	}
	if n := tableCount(t, db); n != 0 {
		t.Errorf("%d tables left behind", n)
	}
}

// twoSheets writes a workbook with the sheets Orders and Parts, and an
// empty third one, once per test.
func twoSheets(t *testing.T) string {
	t.Helper()
	return writeBook(t, "book.xlsx", func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Orders"))
		setRows(t, f, "Orders", 1, []any{"order_id", "part_id", "quantity"}, []any{"O-1", "P1", 3}, []any{"O-2", "P2", 5})
		_, err := f.NewSheet("Parts")
		must(t, err)
		setRows(t, f, "Parts", 1, []any{"part_id", "cost"}, []any{"P1", 10.5}, []any{"P2", 7})
		_, err = f.NewSheet("Empty")
		must(t, err)
	})
}

// writeBook builds a workbook with build and saves it as name in a new
// temporary directory.
func writeBook(t *testing.T, name string, build func(f *excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	build(f)
	path := filepath.Join(t.TempDir(), name)
	must(t, f.SaveAs(path))
	must(t, f.Close())
	return path
}

// setRows writes rows from row number first down.
func setRows(t *testing.T, f *excelize.File, sheet string, first int, rows ...[]any) {
	t.Helper()
	for i, r := range rows {
		cell, err := excelize.CoordinatesToCellName(1, first+i)
		must(t, err)
		must(t, f.SetSheetRow(sheet, cell, &r))
	}
}

func style(t *testing.T, f *excelize.File, sheet, from, to string, s *excelize.Style) {
	t.Helper()
	id, err := f.NewStyle(s)
	must(t, err)
	must(t, f.SetCellStyle(sheet, from, to, id))
}

// writeZip writes a zip with the given entries.
func writeZip(t *testing.T, path string, entries map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range entries {
		w, err := zw.Create(name)
		must(t, err)
		_, err = io.WriteString(w, body)
		must(t, err)
	}
	must(t, zw.Close())
	must(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path
}

// copyZip copies the zip src to dst entry by entry, unchanged unless edit
// writes the entry itself and returns true.
func copyZip(t *testing.T, src, dst string, edit func(zw *zip.Writer, f *zip.File) bool) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	must(t, err)
	defer func() { must(t, zr.Close()) }()
	out, err := os.Create(dst)
	must(t, err)
	zw := zip.NewWriter(out)
	for _, f := range zr.File {
		if !edit(zw, f) {
			h := f.FileHeader
			copyRaw(t, zw, &h, f)
		}
	}
	must(t, zw.Close())
	must(t, out.Close())
	return dst
}

// copyRaw writes f's compressed bytes, as they are, under the header h.
func copyRaw(t *testing.T, zw *zip.Writer, h *zip.FileHeader, f *zip.File) {
	t.Helper()
	w, err := zw.CreateRaw(h)
	must(t, err)
	r, err := f.OpenRaw()
	must(t, err)
	_, err = io.Copy(w, r)
	must(t, err)
}

func writeEntry(t *testing.T, zw *zip.Writer, name string, data []byte) {
	t.Helper()
	w, err := zw.Create(name)
	must(t, err)
	_, err = w.Write(data)
	must(t, err)
}

// deflateRepeat returns a deflate stream of block repeated n times and the
// CRC-32 of what it expands to, compressing block only once: a flushed
// deflate segment made from empty history refers only to itself, so copies
// of it may follow one another.
func deflateRepeat(t *testing.T, block []byte, n int) ([]byte, uint32) {
	t.Helper()
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	must(t, err)
	_, err = fw.Write(block)
	must(t, err)
	must(t, fw.Flush())
	segment := bytes.Clone(buf.Bytes())
	buf.Reset()
	must(t, fw.Close()) // the final, empty block
	stream := append(bytes.Repeat(segment, n), buf.Bytes()...)
	var crc uint32
	for range n {
		crc = crc32.Update(crc, crc32.IEEETable, block)
	}
	return stream, crc
}

// load loads the workbook at path through ingest.LoadTables, as a build
// does, so the profile runs too.
func load(ctx context.Context, db *sql.DB, path string, opt ingest.Options, name func(string) string) ([]kg.Table, error) {
	uri := filepath.Base(path)
	return ingest.LoadTables(ctx, db, ingest.TableInput{
		Source:  kg.Source{ID: "src-" + uri, URI: uri, Kind: kg.KindXLSX},
		Path:    path,
		Base:    ingest.TableName(uri),
		Options: opt,
		Name:    name,
	})
}

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := duck.Open(context.Background(), filepath.Join(t.TempDir(), "build.duckdb"), duck.Settings{Threads: 2})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func tableCount(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	must(t, db.QueryRow("SELECT count(*) FROM information_schema.tables").Scan(&n))
	return n
}

// queryRow runs q and returns its one row's columns, which must be strings.
func queryRow(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	must(t, err)
	defer func() { must(t, rows.Close()) }()
	cols, err := rows.Columns()
	must(t, err)
	if !rows.Next() {
		t.Fatalf("%s: no row", q)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	must(t, rows.Scan(ptrs...))
	must(t, rows.Err())
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v.String
	}
	return out
}

func types(tb kg.Table) map[string]string {
	m := map[string]string{}
	for _, c := range tb.Columns {
		m[c.Name] = c.Type
	}
	return m
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func ptr[T any](v T) *T { return &v }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
