package duck

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
)

func openTest(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(context.Background(), filepath.Join(dir, "d.duckdb"), Settings{Threads: 2, MemoryLimit: "512MB"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, dir
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadCSVWithRejects_LinesOfSkippedRows(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		rows     int64
		lines    []int64 // lines of the skipped rows
		types    []string
		newline  string
		rejected int64
	}{
		{
			name:  "clean",
			data:  "a,b\n1,x\n2,y\n",
			rows:  2,
			lines: nil,
		},
		{
			name:    "ragged",
			data:    "a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n",
			rows:    2,
			lines:   []int64{3, 4},
			types:   []string{"MISSING COLUMNS", "TOO MANY COLUMNS"},
			newline: `\n`,
		},
		{
			// DuckDB's own line counts rows: it would say 3 and 5.
			name:    "after a quoted field over several lines",
			data:    "a,b\n1,\"multi\nline\"\n2,3,4\n5,\"x\ny\nz\"\n6\n7,8\n",
			rows:    3,
			lines:   []int64{4, 8},
			types:   []string{"TOO MANY COLUMNS", "MISSING COLUMNS"},
			newline: `\n`,
		},
		{
			name:    "byte-order mark and CRLF",
			data:    "\xEF\xBB\xBFa,b\r\n1,\"x\r\ny\"\r\n2,3,4\r\n5,6\r\n",
			rows:    2,
			lines:   []int64{4},
			types:   []string{"TOO MANY COLUMNS"},
			newline: `\r\n`,
		},
		{
			name:    "old Mac line ends",
			data:    "a,b\r1,\"x\ry\"\r3\r4,5\r",
			rows:    2,
			lines:   []int64{4},
			types:   []string{"MISSING COLUMNS"},
			newline: `\r`,
		},
		{
			name:    "first row",
			data:    "a,b\n1,2,3\n4,5\n6,7\n",
			rows:    2,
			lines:   []int64{2},
			types:   []string{"TOO MANY COLUMNS"},
			newline: `\n`,
		},
	}
	ctx := context.Background()
	db, dir := openTest(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "f.csv", tt.data)
			res, err := LoadCSVWithRejects(ctx, db, "t", p, 10)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != tt.rows || res.Rejected != int64(len(tt.lines)) {
				t.Errorf("rows, rejected = %d, %d, want %d, %d", res.Rows, res.Rejected, tt.rows, len(tt.lines))
			}
			var lines []int64
			var types []string
			for _, r := range res.Rejects {
				lines = append(lines, r.Line)
				types = append(types, r.Type)
			}
			if !slices.Equal(lines, tt.lines) || !slices.Equal(types, tt.types) {
				t.Errorf("rejects at lines %v %v, want %v %v", lines, types, tt.lines, tt.types)
			}
			if res.Dialect.NewLine != tt.newline {
				t.Errorf("dialect new line = %q, want %q", res.Dialect.NewLine, tt.newline)
			}
		})
	}
}

func TestLoadCSVWithRejects_CapsDetailAndDropsRejectsTables(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	db.SetMaxOpenConns(1) // temporary tables are per connection
	var sb strings.Builder
	sb.WriteString("id,qty\n")
	for i := range 100 {
		if i%4 == 0 {
			fmt.Fprintf(&sb, "%d,%d,extra\n", i, i)
		} else {
			fmt.Fprintf(&sb, "%d,%d\n", i, i)
		}
	}
	p := writeFile(t, dir, "many.csv", sb.String())
	res, err := LoadCSVWithRejects(ctx, db, "many", p, 3)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 75 || res.Rejected != 25 || len(res.Rejects) != 3 || res.Rejects[2].Line != 10 {
		t.Errorf("rows %d, rejected %d, rejects %+v", res.Rows, res.Rejected, res.Rejects)
	}
	if want, got, ok := res.Rejects[0].Columns(); !ok || want != 2 || got != 3 {
		t.Errorf("Columns() = %d, %d, %v", want, got, ok)
	}
	if res.Dialect.Delimiter != "," || !res.Dialect.Header {
		t.Errorf("dialect = %+v", res.Dialect)
	}
	var temps int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE temporary").Scan(&temps); err != nil {
		t.Fatal(err)
	}
	if temps != 0 {
		t.Errorf("%d temporary tables left behind", temps)
	}
}

func TestLoadCSVWithRejects_RetypesColumnsThatOutgrowTheirSample(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	var sb strings.Builder
	sb.WriteString("id,qty,day,note\n")
	const rows = 100_000
	for i := range rows {
		switch i {
		case 10:
			// One more line than rows: DuckDB's own line numbers are
			// one short after it, the byte positions are not.
			fmt.Fprintf(&sb, "%d,%d,2025-01-01,\"two\nlines\"\n", i, i)
		case rows - 10:
			fmt.Fprintf(&sb, "%d,n/a,2025-01-01,\n", i)
		case rows - 5:
			fmt.Fprintf(&sb, "%d,7,soon,\n", i)
		default:
			fmt.Fprintf(&sb, "%d,%d,2025-01-%02d,\n", i, i, i%28+1)
		}
	}
	p := writeFile(t, dir, "late.csv", sb.String())
	res, err := LoadCSVWithRejects(ctx, db, "late", p, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != rows || res.Rejected != 0 {
		t.Errorf("rows %d, rejected %d, want %d, 0 (%+v)", res.Rows, res.Rejected, rows, res.Rejects)
	}
	var cols []string
	for _, r := range res.Retyped {
		cols = append(cols, fmt.Sprintf("%s@%d", r.Column, r.Line))
	}
	if want := []string{"qty@99993", "day@99998"}; !slices.Equal(cols, want) {
		t.Errorf("retyped = %v, want %v (%+v)", cols, want, res.Retyped)
	}
	var typ string
	if err := db.QueryRowContext(ctx, "SELECT data_type FROM information_schema.columns WHERE table_name = 'late' AND column_name = 'qty'").Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "VARCHAR" {
		t.Errorf("qty is %s, want VARCHAR", typ)
	}
}

func TestLoadCSVWithRejects_BadContentIsAnInputError(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	// A line over DuckDB's max_line_size (2 MB) fails the whole file,
	// rejects stored or not.
	p := writeFile(t, dir, "long.csv", "a,b\n"+strings.Repeat("x", 3<<20)+",1\n2,3\n")
	_, err := LoadCSVWithRejects(ctx, db, "long", p, 10)
	ie, ok := errors.AsType[*InputError](err)
	if !ok {
		t.Fatalf("err = %v, want an *InputError", err)
	}
	if strings.Contains(ie.Reason, "\n") || !strings.Contains(ie.Reason, "Maximum line size") {
		t.Errorf("reason = %q, want DuckDB's first paragraph on one line", ie.Reason)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'long'").Scan(&n); err != nil || n != 0 {
		t.Errorf("table left behind: %d, %v", n, err)
	}
}

func TestLoadCSVWithRejects_NotUTF8RowsAreSkipped(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	// Callers transcode first; rows DuckDB finds not UTF-8 are skipped.
	p := writeFile(t, dir, "latin1.csv", "id;name\n1;ok\n2;\xC1gueda\n")
	res, err := LoadCSVWithRejects(ctx, db, "latin1", p, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 1 || len(res.Rejects) != 1 || res.Rejects[0].Type != "INVALID ENCODING" || res.Rejects[0].Line != 3 {
		t.Errorf("rows %d, rejects %+v", res.Rows, res.Rejects)
	}
}

func TestLoadParquet_RoundTripAndCorrupt(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	p := filepath.Join(dir, "s.parquet")
	if _, err := db.ExecContext(ctx, "COPY (SELECT range AS id, 'S' || range AS name FROM range(7)) TO "+QuoteString(p)+" (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	n, err := LoadParquet(ctx, db, "s", p)
	if err != nil || n != 7 {
		t.Fatalf("LoadParquet = %d, %v", n, err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"magic only": []byte("PAR1"),
		"garbage":    []byte("PAR1 not a parquet file at all PAR1"),
		"truncated":  data[:len(data)/2],
		"no footer":  data[:len(data)-8],
	} {
		bp := writeFile(t, dir, "bad.parquet", string(bad))
		_, err := LoadParquet(ctx, db, "bad", bp)
		ie, ok := errors.AsType[*InputError](err)
		if !ok {
			t.Errorf("%s: err = %v, want an *InputError", name, err)
			continue
		}
		// Words for the user, DuckDB's message as detail.
		if !strings.Contains(ie.Reason, "Parquet file") || ie.Detail == "" || strings.Contains(ie.Reason, "Error") {
			t.Errorf("%s: reason %q, detail %q", name, ie.Reason, ie.Detail)
		}
	}
}

func TestCondense(t *testing.T) {
	msg := "Invalid Input Error: CSV Error on Line: 2\nOriginal Line: x\n\nPossible Solution: y\n\nLINE 1: SELECT"
	if got, want := condense(msg), "Invalid Input Error: CSV Error on Line: 2; Original Line: x"; got != want {
		t.Errorf("condense = %q, want %q", got, want)
	}
}

func TestLoadCSVWithRejects_RetypesOddlyNamedColumns(t *testing.T) {
	ctx := context.Background()
	db, dir := openTest(t)
	var sb strings.Builder
	sb.WriteString("n,n,\"it's \"\"odd\"\"\",\n")
	const rows = 60_000
	for i := range rows {
		if i == rows-1 {
			sb.WriteString("1,x,y,z\n")
		} else {
			fmt.Fprintf(&sb, "%d,%d,%d,%d\n", i, i, i, i)
		}
	}
	p := writeFile(t, dir, "odd.csv", sb.String())
	res, err := LoadCSVWithRejects(ctx, db, "odd", p, 10)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, r := range res.Retyped {
		cols = append(cols, r.Column)
	}
	if res.Rows != rows || res.Rejected != 0 || len(cols) != 3 {
		t.Errorf("rows %d, rejected %d, retyped %q", res.Rows, res.Rejected, cols)
	}
}
