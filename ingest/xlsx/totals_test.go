package xlsx

import (
	"fmt"
	"strings"
	"testing"
)

func TestIsTotalLabel(t *testing.T) {
	cases := map[string]bool{
		"Total": true, "TOTAL:": true, "total": true, "Totals": true, "Subtotal": true, "Sub-total": true,
		"Grand total": true, "Grand Total (EUR)": true, "Porto Total": true, "Total Q1 2025": true, "Sum": true,
		"Gesamt": true, "Summe": true, "Zwischensumme": true, "Totale": true, "Sous-total": true, "Total général": true,
		"Totaal": true, "Suma": true,
		"": false, "Totalizer": false, "B-2503-01": false, "Porto": false, "Gesamtbetrag": false,
		"total loss of the frame": false, "the total of it all": false, "Summary": false,
	}
	for label, want := range cases {
		if got := isTotalLabel(label); got != want {
			t.Errorf("isTotalLabel(%q) = %v, want %v", label, got, want)
		}
	}
}

func TestTotalLabel_RestMustBeNumbers(t *testing.T) {
	cases := []struct {
		name  string
		cells []string
		want  bool
	}{
		{"label and numbers", []string{"Total", "", "", "19"}, true},
		{"label right of the table's first column", []string{"", "Subtotal", "4", "19"}, true},
		{"error value among the numbers", []string{"Total", "#N/A", "19"}, true},
		{"no number", []string{"Total", "", ""}, false},
		{"other text", []string{"Total", "Porto", "19"}, false},
		{"label not first", []string{"B-1", "Total", "19"}, false},
		{"first value a number", []string{"19", "Total"}, false},
		{"word in a free-text column", []string{"B-1", "S1", "total loss", "4"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, got := totalLabel(row{num: 9, cells: c.cells}, 0, 4); got != c.want {
				t.Errorf("totalLabel(%q) = %v, want %v", c.cells, got, c.want)
			}
		})
	}
	// Only the table's columns count: a note beyond them does not make the row data.
	if _, ok := totalLabel(row{num: 9, cells: []string{"Total", "19", "checked by Ana"}}, 0, 2); !ok {
		t.Error("a note beyond the table's columns made a total row data")
	}
}

func TestSumsAbove(t *testing.T) {
	cases := []struct {
		formula  string
		col, num int
		want     bool
	}{
		{"SUM(E3:E6)", 4, 7, true},
		{"sum(e3:e6)", 4, 7, true},
		{"=SUM($E$3:$E$6)", 4, 7, true},
		{"SUBTOTAL(9,E3:E6)", 4, 7, true},
		{"SUBTOTAL(109, E3:E6)", 4, 7, true},
		{"SUM(E7,E12)", 4, 13, true},
		{"SUM(E3:E6,E8)", 4, 9, true},
		{"SUM(E3:E6)", 4, 6, false},         // its own row: circular
		{"SUM(E3:E8)", 4, 7, false},         // reaches below
		{"SUM(D3:D6)", 4, 7, false},         // another column
		{"SUM(B7:D7)", 4, 7, false},         // a row total
		{"SUM(D3:E6)", 4, 7, false},         // several columns
		{"B7+C7", 4, 7, false},              // no sum
		{"SUM(E3:E6)*2", 4, 7, false},       // more than a sum
		{"SUM(E3:E6)+SUM(E8)", 4, 9, false}, // more than one sum
		{"SUM(Sheet2!E3:E6)", 4, 7, false},
		{"SUM(E:E)", 4, 7, false},
		{"SUBTOTAL(E3:E6)", 4, 7, false},
		{"AVERAGE(E3:E6)", 4, 7, false},
		{"SUM()", 4, 7, false},
	}
	for _, c := range cases {
		if got := sumsAbove(c.formula, c.col, c.num); got != c.want {
			t.Errorf("sumsAbove(%q, col %d, row %d) = %v, want %v", c.formula, c.col, c.num, got, c.want)
		}
	}
}

// FuzzDecodeSums feeds worksheet XML to the formula scan: it must not
// panic, and what it finds must be sums of cells above, one per row, in
// row order.
func FuzzDecodeSums(f *testing.F) {
	f.Add(`<worksheet><sheetData><row r="7"><c r="E7" t="str"><f>SUM(E3:E6)</f><v>19</v></c></row></sheetData></worksheet>`)
	f.Add(`<x:sheetData><x:row><x:c><x:f>SUBTOTAL(9,A1:A1)</x:f></x:c></x:row><x:row><x:c><x:f>SUM(A1)</x:f></x:c></x:row></x:sheetData>`)
	f.Add(`<row r="3"><c r="B3"><f t="shared" si="0"/></c><c><f>SUM(C1:C2)</f></c></row>`)
	f.Fuzz(func(t *testing.T, doc string) {
		sums, err := decodeSums(strings.NewReader(doc))
		if err != nil {
			return
		}
		for i, s := range sums {
			if i > 0 && s.row == sums[i-1].row {
				t.Errorf("two sums in row %d", s.row)
			}
			if !sumsAbove(s.formula, s.col, s.row) {
				t.Errorf("%s =%s is not a sum of the cells above it", s.ref, s.formula)
			}
		}
	})
}

// BenchmarkDecodeSums decodes a worksheet part of 100k rows of 7 cells
// with a SUM under them, the worst case of the formula scan: a part that
// holds a sum is decoded a second time, beside excelize's own pass.
func BenchmarkDecodeSums(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<worksheet><sheetData>`)
	const rows = 100_000
	for r := 1; r <= rows; r++ {
		fmt.Fprintf(&sb, `<row r="%d">`, r)
		for c := 'A'; c < 'H'; c++ {
			fmt.Fprintf(&sb, `<c r="%c%d" t="s"><v>%d</v></c>`, c, r, r%500)
		}
		sb.WriteString(`</row>`)
	}
	fmt.Fprintf(&sb, `<row r="%d"><c r="D%d"><f>SUM(D2:D%d)</f><v>1</v></c></row></sheetData></worksheet>`, rows+1, rows+1, rows)
	doc := sb.String()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		sums, err := decodeSums(strings.NewReader(doc))
		if err != nil || len(sums) != 1 {
			b.Fatalf("sums %v, %v", sums, err)
		}
	}
}
