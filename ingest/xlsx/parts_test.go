package xlsx

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

func TestTagStart(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{`<sheetData/><mergeCells count="1">`, 12},
		{`<x:sheetData/><x:mergeCells>`, 14},
		{`<c><is><t>mergeCells</t></is></c><mergeCells>`, 33},
		{`</mergeCells>`, -1},
		{`mergeCells`, -1},
		{``, -1},
	}
	for _, tc := range cases {
		if got := tagStart([]byte(tc.in), mergeMarker); got != tc.want {
			t.Errorf("tagStart(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func FuzzTagStart(f *testing.F) {
	f.Add([]byte(`<a:mergeCells>`))
	f.Add([]byte(`:mergeCells<mergeCells`))
	f.Fuzz(func(t *testing.T, b []byte) {
		i := tagStart(b, mergeMarker)
		if i >= 0 && (b[i] != '<' || !bytes.Contains(b[i:], []byte(mergeMarker))) {
			t.Errorf("tagStart(%q) = %d", b, i)
		}
	})
}

func TestParseRange(t *testing.T) {
	got, ok, err := parseRange("D3:B1")
	if err != nil || !ok || got != (cellRange{top: 1, bottom: 3, left: 1, right: 3}) {
		t.Errorf("parseRange(D3:B1) = %+v, %v, %v", got, ok, err)
	}
	if _, ok, err := parseRange("A1"); ok || err != nil {
		t.Errorf("parseRange(A1) = %v, %v, want a single cell", ok, err)
	}
	if _, _, err := parseRange("A1:ZZZZ1"); err == nil {
		t.Error("parseRange(A1:ZZZZ1): no error")
	}
}

// TestScanMerges reads merges split across the scan's window, with a
// namespace prefix, after a sheet large enough to need several windows.
func TestScanMerges(t *testing.T) {
	var sheet strings.Builder
	sheet.WriteString(`<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>`)
	for sheet.Len() < 600<<10 {
		sheet.WriteString(`<x:row><x:c t="inlineStr"><x:is><x:t>mergeCells</x:t></x:is></x:c></x:row>`)
	}
	sheet.WriteString(`</x:sheetData><x:mergeCells count="3"><x:mergeCell ref="A1:C1"/><x:mergeCell ref="B7:B9"/><x:mergeCell ref="A2:B2"/></x:mergeCells></x:worksheet>`)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("xl/worksheets/sheet1.xml")
	must(t, err)
	_, err = w.Write([]byte(sheet.String()))
	must(t, err)
	must(t, zw.Close())
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	must(t, err)
	got, err := scanMerges(zr.File[0], func(m cellRange) bool { return m.top <= 2 })
	must(t, err)
	want := []cellRange{{top: 1, bottom: 1, left: 0, right: 2}, {top: 2, bottom: 2, left: 0, right: 1}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("merges = %+v, want %+v", got, want)
	}
}
