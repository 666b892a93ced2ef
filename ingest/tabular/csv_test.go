package tabular_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"

	"kgforge/ingest"
	"kgforge/ingest/tabular"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func TestLoadTable_ProfilesAndFindsJoins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "suppliers.csv"), []byte("supplier_id,name\nS1,Kestrel\nS2,Serra\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "parts.csv"), []byte("part_id,supplier_id,cost\nP1,S1,10\nP2,S1,\nP3,S2,7\n"), 0o600))
	db, err := duck.Open(ctx, filepath.Join(dir, "d.duckdb"), duck.Settings{})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	var tables []kg.Table
	for _, f := range []string{"suppliers.csv", "parts.csv"} {
		tb, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: kg.Source{ID: f, URI: f, Kind: kg.KindCSV, Bytes: 1}, Path: filepath.Join(dir, f), Base: ingest.TableName(f)})
		must(t, err)
		tables = append(tables, tb...)
	}
	parts := tables[1]
	if parts.Name != "parts" || parts.Rows != 3 || len(parts.Columns) != 3 {
		t.Fatalf("parts = %+v", parts)
	}
	cost := parts.Columns[2]
	if cost.Nulls != 1 || cost.Distinct != 2 || len(cost.Samples) != 2 {
		t.Errorf("cost column = %+v", cost)
	}
	must(t, ingest.FindKeys(ctx, db, tables))
	if got := tables[0].PrimaryKeys; len(got) != 2 || got[0] != "supplier_id" {
		t.Errorf("suppliers keys = %v, want supplier_id and name", got)
	}
	if got := tables[1].PrimaryKeys; len(got) != 1 || got[0] != "part_id" {
		t.Errorf("parts keys = %v, want part_id", got)
	}
	fks := tables[1].ForeignKeys
	if len(fks) != 1 || fks[0] != (kg.ForeignKey{Column: "supplier_id", RefTable: "suppliers", RefColumn: "supplier_id", Score: 1}) {
		t.Errorf("parts foreign keys = %+v", fks)
	}
	if len(tables[0].ForeignKeys) != 0 {
		t.Errorf("suppliers foreign keys = %+v, want none", tables[0].ForeignKeys)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// loadFile writes data to a file named name and loads it with
// ingest.LoadTables into db.
func loadFile(t *testing.T, db *sql.DB, name string, kind kg.SourceKind, data []byte) ([]kg.Table, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	must(t, os.WriteFile(p, data, 0o600))
	return ingest.LoadTables(context.Background(), db, ingest.TableInput{
		Source: kg.Source{ID: name, URI: name, Kind: kind, Bytes: int64(len(data))},
		Path:   p,
		Base:   ingest.TableName(name),
	})
}

// contents returns a table's column names and its rows as text, NULL as "".
func contents(t *testing.T, db *sql.DB, table string) (cols []string, rows [][]string) {
	t.Helper()
	r, err := db.Query("SELECT CAST(COLUMNS(*) AS VARCHAR) FROM " + duck.QuoteIdent(table))
	must(t, err)
	defer func() { must(t, r.Close()) }()
	cols, err = r.Columns()
	must(t, err)
	for r.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		must(t, r.Scan(ptrs...))
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		rows = append(rows, row)
	}
	must(t, r.Err())
	return cols, rows
}

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := duck.Open(context.Background(), filepath.Join(t.TempDir(), "d.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func encode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	must(t, err)
	return b
}

func TestLoadTables_CSV(t *testing.T) {
	utf16be := unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	noBOM := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	tests := []struct {
		name     string
		data     []byte
		cols     []string
		rows     [][]string
		warnings []string
	}{
		{
			name: "semicolon.csv",
			data: []byte("id;name;city\n1;Kestrel Alloys;Águeda\n2;Serra Components;Guimarães\n"),
			cols: []string{"id", "name", "city"},
			rows: [][]string{{"1", "Kestrel Alloys", "Águeda"}, {"2", "Serra Components", "Guimarães"}},
		},
		{
			name: "tab.tsv",
			data: []byte("part_id\tdescription\ton_hand\nVC-FR-001\tFrame, aluminium 54 cm\t42\nVC-FK-010\tFork; carbon\t18\n"),
			cols: []string{"part_id", "description", "on_hand"},
			rows: [][]string{{"VC-FR-001", "Frame, aluminium 54 cm", "42"}, {"VC-FK-010", "Fork; carbon", "18"}},
		},
		{
			name: "quoted.csv",
			data: []byte("id,note\n1,\"frame, alloy\"\n2,\"line one\nline two\"\n3,\"say \"\"hi\"\"\"\n"),
			cols: []string{"id", "note"},
			rows: [][]string{{"1", "frame, alloy"}, {"2", "line one\nline two"}, {"3", `say "hi"`}},
		},
		{
			name: "no_header.csv",
			data: []byte("VC-FR-001,S1,42,2025-03-01\nVC-FK-010,S2,18,2025-03-02\nVC-WH-020,S2,24,2025-03-04\n"),
			cols: []string{"column0", "column1", "column2", "column3"},
			rows: [][]string{{"VC-FR-001", "S1", "42", "2025-03-01"}, {"VC-FK-010", "S2", "18", "2025-03-02"}, {"VC-WH-020", "S2", "24", "2025-03-04"}},
		},
		{
			name: "bom.csv",
			data: []byte("\xEF\xBB\xBFid,city\n1,Águeda\n"),
			cols: []string{"id", "city"},
			rows: [][]string{{"1", "Águeda"}},
		},
		{
			// DuckDB's own 'utf-16' refuses the bicycle (outside the BMP).
			name: "utf16le.csv",
			data: encode(t, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "id,city\n1,Guimarães 🚲\n2,Porto\n"),
			cols: []string{"id", "city"},
			rows: [][]string{{"1", "Guimarães 🚲"}, {"2", "Porto"}},
		},
		{
			name: "utf16be.csv",
			data: encode(t, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "id,city\n1,Águeda\n"),
			cols: []string{"id", "city"},
			rows: [][]string{{"1", "Águeda"}},
		},
		{
			name:     "utf16_no_bom.csv",
			data:     encode(t, noBOM, "id,city\n1,Águeda\n"),
			cols:     []string{"id", "city"},
			rows:     [][]string{{"1", "Águeda"}},
			warnings: []string{"no byte-order mark: read as UTF-16LE from its NUL bytes"},
		},
		{
			name:     "latin1.csv",
			data:     []byte("id;city\n1;Porto\n2;\xC1gueda\n3;Guimar\xE3es\n"),
			cols:     []string{"id", "city"},
			rows:     [][]string{{"1", "Porto"}, {"2", "Águeda"}, {"3", "Guimarães"}},
			warnings: []string{"not valid UTF-8 (byte 0xC1 on line 3): read as Windows-1252 (Latin-1); check accented text"},
		},
		{
			// DuckDB's own 'latin-1' refuses the whole file for 0x80 and 0x93.
			name:     "windows1252.csv",
			data:     []byte("id,note\n1,\x80 12 \x93caf\xE9\x94\n"),
			cols:     []string{"id", "note"},
			rows:     [][]string{{"1", "€ 12 “café”"}},
			warnings: []string{"not valid UTF-8 (byte 0x80 on line 2): read as Windows-1252 (Latin-1); check accented text"},
		},
		{
			// A byte-order mark says UTF-8: one bad byte does not make
			// the file Windows-1252, whose reading would turn the mark
			// into "ï»¿" in the first column's name.
			name:     "bom_then_latin1.csv",
			data:     []byte("\xEF\xBB\xBFid,city\n1,Porto\n2,\xC1gueda\n"),
			cols:     []string{"id", "city"},
			rows:     [][]string{{"1", "Porto"}, {"2", "\uFFFDgueda"}},
			warnings: []string{"not valid UTF-8 despite its byte-order mark (byte 0xC1 on line 3): bad bytes read as U+FFFD"},
		},
		{
			name: "ragged.csv",
			data: []byte("a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n"),
			cols: []string{"a", "b", "c"},
			rows: [][]string{{"1", "2", "3"}, {"10", "11", "12"}},
			warnings: []string{
				"read with delimiter ',', quote none, a header, encoding utf-8",
				"line 3: expected 3 columns, found 2 (row skipped)",
				"line 4: expected 3 columns, found 4 (row skipped)",
			},
		},
		{
			// The skipped rows' lines are the file's, past a quoted field
			// that spans lines, and past a Latin-1 transcoding.
			name: "ragged_multiline_latin1.csv",
			data: []byte("id;note\r\n1;\"m\xE9\r\nl\"\r\n2;3;4\r\n5;6\r\n"),
			cols: []string{"id", "note"},
			rows: [][]string{{"1", "mé\r\nl"}, {"5", "6"}},
			warnings: []string{
				"not valid UTF-8 (byte 0xE9 on line 2): read as Windows-1252 (Latin-1); check accented text",
				"read with delimiter ';', quote '\"', a header, encoding windows-1252",
				"line 4: expected 2 columns, found 3 (row skipped)",
			},
		},
		{
			name: "ragged_utf16be.csv",
			data: encode(t, utf16be, "id,city\n1,Águeda\n2,x,y\n"),
			cols: []string{"id", "city"},
			rows: [][]string{{"1", "Águeda"}},
			warnings: []string{
				"read with delimiter ',', quote none, a header, encoding utf-16be",
				"line 3: expected 2 columns, found 3 (row skipped)",
			},
		},
		{
			name: "header_only.csv",
			data: []byte("part_id,on_hand\n"),
			cols: []string{"part_id", "on_hand"},
		},
	}
	db := openDB(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tables, err := loadFile(t, db, tt.name, kg.KindCSV, tt.data)
			must(t, err)
			if len(tables) != 1 {
				t.Fatalf("%d tables, want 1", len(tables))
			}
			tb := tables[0]
			cols, rows := contents(t, db, tb.Name)
			if !slices.Equal(cols, tt.cols) {
				t.Errorf("columns = %q, want %q", cols, tt.cols)
			}
			if !slices.EqualFunc(rows, tt.rows, slices.Equal) {
				t.Errorf("rows = %q, want %q", rows, tt.rows)
			}
			if tb.Rows != int64(len(tt.rows)) {
				t.Errorf("Rows = %d, want %d", tb.Rows, len(tt.rows))
			}
			if !slices.Equal(tb.Warnings, tt.warnings) {
				t.Errorf("warnings:\n got %q\nwant %q", tb.Warnings, tt.warnings)
			}
		})
	}
}

func TestLoadTables_CSVManySkippedRows(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("id,qty\n")
	for i := range 100 {
		if i%2 == 0 {
			fmt.Fprintf(&sb, "%d,%d,extra\n", i, i)
		} else {
			fmt.Fprintf(&sb, "%d,%d\n", i, i)
		}
	}
	db := openDB(t)
	tables, err := loadFile(t, db, "many.csv", kg.KindCSV, []byte(sb.String()))
	must(t, err)
	w := tables[0].Warnings
	if tables[0].Rows != 50 || len(w) != 1+tabular.MaxRowWarnings+1 {
		t.Fatalf("rows %d, %d warnings: %q", tables[0].Rows, len(w), w)
	}
	if w[1] != "line 2: expected 2 columns, found 3 (row skipped)" || w[20] != "line 40: expected 2 columns, found 3 (row skipped)" {
		t.Errorf("warnings = %q", w)
	}
	if last := w[len(w)-1]; last != "and 30 more rows skipped" {
		t.Errorf("last warning = %q", last)
	}
}

func TestLoadTables_CSVColumnOutgrowsItsType(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("order_id,qty\n")
	const rows = 60_000
	for i := range rows {
		if i == rows-3 {
			fmt.Fprintf(&sb, "O-%d,n/a\n", i)
		} else {
			fmt.Fprintf(&sb, "O-%d,%d\n", i, i%20)
		}
	}
	db := openDB(t)
	tables, err := loadFile(t, db, "orders.csv", kg.KindCSV, []byte(sb.String()))
	must(t, err)
	tb := tables[0]
	want := []string{`column qty read as VARCHAR: line 59999: Could not convert string "n/a" to 'BIGINT'`}
	if tb.Rows != rows || !slices.Equal(tb.Warnings, want) {
		t.Errorf("rows %d, warnings %q, want %d, %q", tb.Rows, tb.Warnings, rows, want)
	}
	if tb.Columns[1].Type != "VARCHAR" {
		t.Errorf("qty is %s, want VARCHAR", tb.Columns[1].Type)
	}
}

func TestLoadTables_CSVRejected(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		why  string // in the error
	}{
		{"empty.csv", nil, "empty"},
		{"blank.csv", []byte("\n\r\n  \n\t\n"), "only blank lines"},
		{"bom_only.csv", []byte("\xEF\xBB\xBF\n"), "only blank lines"},
		{"utf16_blank.csv", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "\r\n\r\n"), "only blank lines"},
		{"binary.csv", []byte("id,name\n1,\x00\x01\x02\x03\n"), "binary content: a NUL character at offset 10"},
		{"utf16_nul.csv", []byte("\xFF\xFE\x00\x000"), "binary content: a NUL character at offset 2"},
		{"nul_in_a_long_header.csv", []byte(strings.Repeat("h", tabular.SniffLen) + "\x00,b\n1,2\n"), "binary content: a NUL character in the header"},
		{"png.csv", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "binary content"},
		{"all_bad.csv", []byte("a,b,c\n1\n2,3,4,5\n6\n"), "every row was rejected (3 rows; delimiter ',', quote none, a header, encoding utf-8); first: line 2: expected 3 columns, found 1"},
		{"long_line.csv", []byte("a,b\n" + strings.Repeat("x", 3<<20) + ",1\n"), "Maximum line size of 2000000 bytes exceeded"},
	}
	db := openDB(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadFile(t, db, tt.name, kg.KindCSV, tt.data)
			if !errors.Is(err, kg.ErrRejected) {
				t.Fatalf("err = %v, want kg.ErrRejected", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "source "+tt.name+": ") || !strings.Contains(msg, tt.why) {
				t.Errorf("err = %q, want it to name the source and say %q", msg, tt.why)
			}
			if strings.Contains(msg, os.TempDir()) {
				t.Errorf("err = %q names a local path", msg)
			}
			var n int
			must(t, db.QueryRow("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", ingest.TableName(tt.name)).Scan(&n))
			if n != 0 {
				t.Errorf("table %s left behind", ingest.TableName(tt.name))
			}
		})
	}
}

func TestLoadTables_CSVCancelledIsNotARejection(t *testing.T) {
	db := openDB(t)
	p := filepath.Join(t.TempDir(), "a.csv")
	must(t, os.WriteFile(p, []byte("a,b\n1,2\n"), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: kg.Source{URI: "a.csv", Kind: kg.KindCSV}, Path: p, Base: "a"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, kg.ErrRejected) {
		t.Errorf("err = %v, want context.Canceled and no rejection", err)
	}
}

func TestFindKeys_JoinsByNameLikenessAndInclusion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := map[string]string{
		"customers.csv": "id,name,credit\n1,Ciclos Norte,1500.5\n2,Pedal Praha,900.25\n3,Velora Webshop,0.75\n",
		"orders.csv":    "order_id,customer_id,amount\nO1,1,1500.5\nO2,2,900.25\nO3,2,0.75\nO4,3,10.0\n",
	}
	db, err := duck.Open(ctx, filepath.Join(dir, "d.duckdb"), duck.Settings{})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	var tables []kg.Table
	for _, f := range []string{"customers.csv", "orders.csv"} {
		must(t, os.WriteFile(filepath.Join(dir, f), []byte(files[f]), 0o600))
		tb, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: kg.Source{ID: f, URI: f, Kind: kg.KindCSV, Bytes: 1}, Path: filepath.Join(dir, f), Base: ingest.TableName(f)})
		must(t, err)
		tables = append(tables, tb...)
	}
	must(t, ingest.FindKeys(ctx, db, tables))
	if got := tables[0].PrimaryKeys; len(got) != 2 || got[0] != "id" || got[1] != "name" {
		t.Errorf("customers keys = %v, want id and name (credit is a measure, not a key)", got)
	}
	fks := tables[1].ForeignKeys
	if len(fks) != 1 || fks[0] != (kg.ForeignKey{Column: "customer_id", RefTable: "customers", RefColumn: "id", Score: 1}) {
		t.Errorf("orders foreign keys = %+v, want customer_id -> customers.id only (amount's values are in credit, but it is no key)", fks)
	}
}
