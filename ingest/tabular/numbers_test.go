package tabular_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/kg"
)

// A statement's amounts as people write them: read as numbers, the sign
// kept as the unit; what is not such a column stays text.
func TestLoadTables_CSVReadsNumbersWrittenAsText(t *testing.T) {
	data := "item,2019,2018,margin,eur,code,mixed_cur,mixed_pct,range,plain,comma_decimal,big\n" +
		"Revenue,\"$19,373\",\"$24,264\",12.5%,€ 1.50,007,$5,5%,3 - 4.35,12,\"1,5\",\"12,345,678,901,234,567,890\"\n" +
		"Net cash used,\"(1,212)\",—,(3.25%),−2,012,€7,6,1 - 2,14,\"2,5\",1\n" +
		"Deferred tax,\"4,264\",-,-0.5%,€0.25,100,8,7%,2 - 3,x,\"3,5\",2\n"
	db := openDB(t)
	tables, err := loadFile(t, db, "statement.csv", kg.KindCSV, []byte(data))
	must(t, err)
	tb := tables[0]
	types, units := map[string]string{}, map[string]string{}
	for _, c := range tb.Columns {
		types[c.Name], units[c.Name] = c.Type, c.Unit
	}
	want := []struct{ col, typ, unit string }{
		{"2019", "BIGINT", "$"},
		{"2018", "BIGINT", "$"},
		{"margin", "DECIMAL(18,2)", "%"},
		{"eur", "DECIMAL(18,2)", "€"},
		{"big", "DECIMAL(38,0)", ""},
		// Codes with a leading zero, two currencies, percent signs on some
		// values only, ranges, a word among numbers, commas as decimal
		// points: text.
		{"code", "VARCHAR", ""},
		{"mixed_cur", "VARCHAR", ""},
		{"mixed_pct", "VARCHAR", ""},
		{"range", "VARCHAR", ""},
		{"plain", "VARCHAR", ""},
		{"comma_decimal", "VARCHAR", ""},
	}
	for _, w := range want {
		if types[w.col] != w.typ || units[w.col] != w.unit {
			t.Errorf("column %s: type %q unit %q, want %q %q", w.col, types[w.col], units[w.col], w.typ, w.unit)
		}
	}
	cols, rows := contents(t, db, tb.Name)
	got := map[string][]string{}
	for i, c := range cols {
		for _, r := range rows {
			got[c] = append(got[c], r[i])
		}
	}
	for col, vals := range map[string][]string{
		"2019":   {"19373", "-1212", "4264"},
		"2018":   {"24264", "", ""},
		"margin": {"12.50", "-3.25", "-0.50"},
		"eur":    {"1.50", "-2.00", "0.25"},
		"big":    {"12345678901234567890", "1", "2"},
		"code":   {"007", "012", "100"},
	} {
		if !slices.Equal(got[col], vals) {
			t.Errorf("column %s = %q, want %q", col, got[col], vals)
		}
	}
	// The profile is of the numbers: the smallest of 2019 is the negative.
	for _, c := range tb.Columns {
		if c.Name == "2019" && (c.Min != "-1212" || c.Max != "19373") {
			t.Errorf("2019: min %q max %q, want -1212 19373", c.Min, c.Max)
		}
	}
	warned := strings.Join(tb.Warnings, "\n")
	for _, w := range []string{
		`column "2019" read as numbers (BIGINT) from text such as "$19,373": currency sign $ dropped; parentheses and a minus sign read as negative`,
		`column "2018" read as numbers (BIGINT) from text such as "$24,264": currency sign $ dropped; parentheses and a minus sign read as negative; 2 dashes read as empty`,
		`column "margin" read as numbers (DECIMAL(18,2)) from text such as "(3.25%)": percent sign dropped, the number kept as written`,
	} {
		if !strings.Contains(warned, w) {
			t.Errorf("warnings lack %q:\n%s", w, warned)
		}
	}
	if strings.Contains(warned, `"code"`) || strings.Contains(warned, `"plain"`) {
		t.Errorf("a text column was reported as read:\n%s", warned)
	}
}

// A pipeline that wants the text the file wrote keeps it.
func TestLoadTables_CSVNumbersKeptAsText(t *testing.T) {
	db := openDB(t)
	p := filepath.Join(t.TempDir(), "amounts.csv")
	data := []byte("item,amount\nRevenue,\"$19,373\"\nCost,\"(1,212)\"\n")
	must(t, os.WriteFile(p, data, 0o600))
	tables, err := ingest.LoadTables(context.Background(), db, ingest.TableInput{
		Source:  kg.Source{ID: "amounts", URI: "amounts.csv", Kind: kg.KindCSV, Bytes: int64(len(data))},
		Path:    p,
		Base:    "amounts",
		Options: ingest.Options{Numbers: ingest.NumbersText},
	})
	must(t, err)
	_, rows := contents(t, db, tables[0].Name)
	if rows[0][1] != "$19,373" || rows[1][1] != "(1,212)" || tables[0].Columns[1].Unit != "" {
		t.Errorf("rows %q, columns %+v", rows, tables[0].Columns)
	}
}
