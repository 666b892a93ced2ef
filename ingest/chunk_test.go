package ingest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kgforge/kg"
)

func TestChunk_LinesOfVerbatimDocuments(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "Line %d tells that frame batch KA-%d passed its weld inspection.\n", i, 2200+i)
	}
	doc := readDoc(t, kg.KindText, b.String())
	chunks := Chunk(doc, ChunkOptions{Size: 50})
	if len(chunks) < 4 {
		t.Fatalf("got %d chunks, want several", len(chunks))
	}
	checkChunks(t, doc, chunks, 50)
	next := 1
	for i, c := range chunks {
		first := strings.SplitN(c.Text, "\n", 2)[0]
		lines := strings.Count(c.Text, "\n") + 1
		if want := fmt.Sprintf("Line %d ", c.LineStart); !strings.HasPrefix(first, want) {
			t.Errorf("chunk %d: LineStart %d but text starts %q", i, c.LineStart, first)
		}
		if c.LineEnd != c.LineStart+lines-1 {
			t.Errorf("chunk %d: lines %d-%d for %d lines of text", i, c.LineStart, c.LineEnd, lines)
		}
		if c.LineStart != next {
			t.Errorf("chunk %d starts at line %d, want %d (no overlap asked)", i, c.LineStart, next)
		}
		next = c.LineEnd + 1
	}
	if next != 41 {
		t.Errorf("chunks end at line %d, want 40", next-1)
	}
}

func TestChunk_PacksRecordsWholeWithTheirTimes(t *testing.T) {
	base := time.Date(2025, 3, 14, 8, 0, 0, 0, time.UTC)
	var b strings.Builder
	var recs []Record
	for i := range 12 {
		start := b.Len()
		fmt.Fprintf(&b, "%s ERROR weld station %d rejected frame %d\n  at check(weld.go:%d)\n  at run(main.go:7)\n",
			base.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), i, i, i)
		recs = append(recs, Record{Span: kg.Span{Start: start, End: b.Len()}, Time: base.Add(time.Duration(i) * time.Minute)})
	}
	text := b.String()
	doc := Document{
		Source: kg.Source{ID: "log"}, Text: text, Verbatim: true, Records: recs,
		Sections: []Section{{Span: kg.Span{End: len(text)}}},
	}
	chunks := Chunk(doc, ChunkOptions{Size: 120, Overlap: 45})
	checkChunks(t, doc, chunks, 120)
	if len(chunks) < 3 {
		t.Fatalf("got %d chunks, want several", len(chunks))
	}
	for i, c := range chunks {
		if !strings.HasPrefix(c.Text, "2025-03-14T08:") || !strings.HasSuffix(c.Text, "at run(main.go:7)") {
			t.Errorf("chunk %d cuts a record: %q", i, c.Text)
		}
		n := strings.Count(c.Text, "ERROR")
		first := strings.Index(text, c.Text[:20])
		k := 0
		for k < len(recs) && recs[k].Span.Start != first {
			k++
		}
		if k == len(recs) {
			t.Fatalf("chunk %d does not start at a record", i)
		}
		wantStart := recs[k].Time.Format(time.RFC3339Nano)
		wantEnd := recs[k+n-1].Time.Format(time.RFC3339Nano)
		if c.TimeStart != wantStart || c.TimeEnd != wantEnd {
			t.Errorf("chunk %d times %s..%s, want %s..%s", i, c.TimeStart, c.TimeEnd, wantStart, wantEnd)
		}
		if c.LineStart != 3*k+1 || c.LineEnd != 3*(k+n) {
			t.Errorf("chunk %d lines %d-%d, want %d-%d", i, c.LineStart, c.LineEnd, 3*k+1, 3*(k+n))
		}
	}
	if !strings.Contains(chunks[1].Text, "frame "+fmt.Sprint(strings.Count(chunks[0].Text, "ERROR")-1)+"\n") {
		t.Errorf("no overlap: chunk 1 does not repeat the last record of chunk 0")
	}
}

func TestChunk_KeepsTablesWholeAndPagesKnown(t *testing.T) {
	prose := strings.Repeat("The Porto plant assembles trail bikes from aluminium frames. ", 12)
	table := "| part | supplier | cost |\n|---|---|---|\n| frame | Kestrel Alloys | 120 |\n| brake | Serra Components | 35 |\n| fork | Kestrel Alloys | 80 |"
	text := prose + "\n\n" + table + "\n\n" + prose
	doc := Document{
		Source: kg.Source{ID: "pdf"}, Text: text,
		Sections: []Section{{Page: 3, Span: kg.Span{End: len(text)}}},
	}
	chunks := Chunk(doc, ChunkOptions{Size: 120})
	checkChunks(t, doc, chunks, 120)
	whole := false
	for i, c := range chunks {
		if c.Page != 3 || c.LineStart != 0 {
			t.Errorf("chunk %d: page %d line %d, want page 3 and no lines", i, c.Page, c.LineStart)
		}
		if strings.Contains(c.Text, "| part |") {
			whole = strings.Contains(c.Text, table)
		}
	}
	if !whole {
		t.Errorf("the table was cut between chunks")
	}
}
