package xlsx

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

func TestNormalizeFormats(t *testing.T) {
	at := time.Date(2025, 3, 5, 13, 5, 6, 0, time.UTC)
	cases := []struct {
		name  string
		value any
		style excelize.Style
		want  string
	}{
		{"general", 1234.5, excelize.Style{}, "1234.5"},
		{"thousands", 1234.5, excelize.Style{NumFmt: 4}, "1234.5"},
		{"rounded", 1234.5, excelize.Style{NumFmt: 1}, "1234.5"},
		{"percent", 0.125, excelize.Style{NumFmt: 10}, "0.125"},
		{"currency", -12.5, excelize.Style{CustomNumFmt: ptr(`#,##0.00\ [$€-1];[Red]-#,##0.00\ [$€-1]`)}, "-12.5"},
		{"built-in date", at, excelize.Style{NumFmt: 14}, "2025-03-05"},
		{"built-in date-time", at, excelize.Style{NumFmt: 22}, "2025-03-05 13:05:06"},
		{"european date", at, excelize.Style{CustomNumFmt: ptr("dd/mm/yyyy")}, "2025-03-05"},
		{"month name", at, excelize.Style{CustomNumFmt: ptr("[$-409]d-mmm-yy;@")}, "2025-03-05"},
		{"custom date-time", at, excelize.Style{CustomNumFmt: ptr(`d/m/yyyy\ h:mm AM/PM`)}, "2025-03-05 13:05:06"},
		{"time of day kept", at, excelize.Style{NumFmt: 20}, "13:05"},
		{"text", "007", excelize.Style{NumFmt: 49}, "007"},
		{"boolean", true, excelize.Style{NumFmt: 4}, "TRUE"},
	}
	f := excelize.NewFile()
	for i, tc := range cases {
		cell, err := excelize.CoordinatesToCellName(i+1, 1)
		must(t, err)
		must(t, f.SetCellValue("Sheet1", cell, tc.value))
		id, err := f.NewStyle(&tc.style)
		must(t, err)
		must(t, f.SetCellStyle("Sheet1", cell, cell, id))
	}
	path := filepath.Join(t.TempDir(), "formats.xlsx")
	must(t, f.SaveAs(path))
	g, err := excelize.OpenFile(path)
	must(t, err)
	defer func() { must(t, g.Close()) }()
	must(t, normalizeFormats(g))
	rows, err := g.Rows("Sheet1")
	must(t, err)
	defer func() { must(t, rows.Close()) }()
	if !rows.Next() {
		t.Fatal("no row")
	}
	got, err := rows.Columns()
	must(t, err)
	for i, tc := range cases {
		if i >= len(got) || got[i] != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, slices.Concat(got[min(i, len(got)):min(i+1, len(got))]), tc.want)
		}
	}
}

func TestClassifyCode(t *testing.T) {
	cases := []struct {
		code string
		want formatKind
	}{
		{"General", formatNumber},
		{"0.00", formatNumber},
		{"#,##0.00 [$€-1]", formatNumber},
		{`0.0 "days"`, formatNumber},
		{`0\d`, formatNumber},
		{"[Red][>=100]0;0", formatNumber},
		{"0.00E+00", formatNumber},
		{"@", formatText},
		{"yyyy-mm-dd", formatDate},
		{"dd/mm/yy", formatDate},
		{"mmm yyyy", formatDate},
		{"mmmm", formatDate},
		{"[$-F800]dddd, mmmm dd, yyyy", formatDate},
		{"yyyy-mm-dd hh:mm:ss", formatDateTime},
		{"m/d/yy h:mm AM/PM", formatDateTime},
		{"h:mm", formatTime},
		{"mm:ss", formatTime},
		{"[h]:mm:ss", formatTime},
		{"h:mm AM/PM", formatTime},
		{`"Week "0`, formatNumber},
	}
	for _, tc := range cases {
		if got := classifyCode(tc.code); got != tc.want {
			t.Errorf("classifyCode(%q) = %d, want %d", tc.code, got, tc.want)
		}
	}
}

func TestClassifyFormat_BuiltIn(t *testing.T) {
	custom := map[int]string{14: "0.00"} // a workbook may redefine a built-in id
	cases := map[int]formatKind{0: formatNumber, 4: formatNumber, 10: formatNumber, 49: formatText, 15: formatDate, 22: formatDateTime, 21: formatTime, 46: formatTime, 57: formatDate, 14: formatNumber, 200: formatNumber}
	for id, want := range cases {
		if got := classifyFormat(id, custom); got != want {
			t.Errorf("classifyFormat(%d) = %d, want %d", id, got, want)
		}
	}
}

func FuzzClassifyCode(f *testing.F) {
	for _, s := range []string{"yyyy-mm-dd", `"a`, "[h", `\`, "[$-409]d-mmm-yy;@", `0.0 "x" \d _) *-`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if k := classifyCode(code); k < formatNumber || k > formatTime {
			t.Errorf("classifyCode(%q) = %d", code, k)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
