package docx

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"kgforge/ingest"
)

// The namespaces of the elements the reader knows: WordprocessingML, in
// its transitional and strict forms, and markup compatibility.
const (
	wordNS       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	wordStrictNS = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	compatNS     = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

func isWord(n xml.Name) bool { return n.Space == wordNS || n.Space == wordStrictNS }

// skippedParts are the WordprocessingML elements whose content is not the
// document's text: deleted and moved-away text of tracked changes, the old
// properties they keep, and field instructions.
var skippedParts = map[string]bool{
	"del": true, "moveFrom": true, "delText": true, "instrText": true, "delInstrText": true,
	"pPrChange": true, "rPrChange": true, "sectPrChange": true,
	"tblPrChange": true, "trPrChange": true, "tcPrChange": true,
}

// skipped reports whether an element's content is left out: see
// skippedParts, and mc:Fallback, which repeats what mc:Choice holds for
// older readers.
func skipped(n xml.Name) bool {
	return (isWord(n) && skippedParts[n.Local]) || (n.Space == compatNS && n.Local == "Fallback")
}

// checkEvery is how many XML tokens the walk reads between looks at its
// context.
const checkEvery = 1 << 14

// extract walks word/document.xml, streaming, and lays its text out; ok is
// false when it has none. levels are the heading levels of the document's
// paragraph styles by id (see styleLevels). An error is malformed XML, or
// the context's.
func extract(ctx context.Context, data []byte, levels map[string]int) (_ ingest.Document, ok bool, err error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	w := walker{levels: levels}
	root := false
	for n := 1; ; n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return ingest.Document{}, false, err
			}
		}
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return ingest.Document{}, false, fmt.Errorf("malformed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !root {
				if !isWord(t.Name) || t.Name.Local != "document" {
					return ingest.Document{}, false, fmt.Errorf("root element is %s, not a WordprocessingML document", t.Name.Local)
				}
				root = true
			}
			if skipped(t.Name) {
				if err := d.Skip(); err != nil {
					return ingest.Document{}, false, fmt.Errorf("malformed XML: %w", err)
				}
				continue
			}
			if isWord(t.Name) {
				w.start(t)
			}
		case xml.EndElement:
			if isWord(t.Name) {
				w.end(t.Name.Local)
			}
		case xml.CharData:
			if w.inText && len(w.paras) > 0 {
				w.paras[len(w.paras)-1].text.Write(t)
			}
		}
	}
	if !root {
		return ingest.Document{}, false, errors.New("no XML element")
	}
	doc, ok := w.Document()
	return doc, ok, nil
}

// paragraph is a w:p being read.
type paragraph struct {
	text    strings.Builder
	style   string // w:pStyle, a style id
	outline int    // w:outlineLvl: 0 to 8 for headings, 9 for body text; -1 when unset
	list    bool   // it has numbering: a list item
}

// table is a w:tbl being read.
type table struct {
	rows   []string // rows done, cells joined by " | "
	cells  []string // cells done of the current row
	cell   []string // paragraphs of the current cell
	inCell bool
}

// walker lays out the text of a document as its XML streams by.
type walker struct {
	ingest.Layout
	levels map[string]int
	paras  []*paragraph // open paragraphs: a text box puts one inside another
	tables []*table     // open tables: a table may be in another's cell
	run    int          // depth of w:r
	props  int          // depth of w:pPr
	inText bool         // inside w:t
	list   bool         // the last paragraph written was a list item
}

func (w *walker) start(t xml.StartElement) {
	p := w.paragraph()
	inProps := w.props > 0 && p != nil
	switch t.Name.Local {
	case "p":
		w.paras = append(w.paras, &paragraph{outline: -1})
	case "pPr":
		w.props++
	case "pStyle":
		if inProps {
			p.style = attr(t, "val")
		}
	case "outlineLvl":
		if inProps {
			if n, err := strconv.Atoi(attr(t, "val")); err == nil {
				p.outline = n
			}
		}
	case "numPr":
		if inProps {
			p.list = true
		}
	case "r":
		w.run++
	case "t":
		w.inText = w.run > 0
	case "tab", "ptab":
		w.write("\t")
	case "br", "cr":
		w.write("\n")
	case "noBreakHyphen":
		w.write("-")
	case "tbl":
		w.tables = append(w.tables, &table{})
	case "tr":
		if tb := w.table(); tb != nil {
			tb.cells = nil
		}
	case "tc":
		if tb := w.table(); tb != nil {
			tb.cell, tb.inCell = nil, true
		}
	}
}

func (w *walker) end(local string) {
	switch local {
	case "p":
		if p := w.paragraph(); p != nil {
			w.paras = w.paras[:len(w.paras)-1]
			w.finish(p)
		}
	case "pPr":
		w.props--
	case "r":
		w.run--
	case "t":
		w.inText = false
	case "tc":
		if tb := w.table(); tb != nil && tb.inCell {
			tb.cells = append(tb.cells, strings.Join(tb.cell, " "))
			tb.cell, tb.inCell = nil, false
		}
	case "tr":
		if tb := w.table(); tb != nil {
			if strings.TrimSpace(strings.Join(tb.cells, "")) != "" {
				tb.rows = append(tb.rows, strings.TrimSpace(strings.Join(tb.cells, " | ")))
			}
			tb.cells = nil
		}
	case "tbl":
		if tb := w.table(); tb != nil {
			w.tables = w.tables[:len(w.tables)-1]
			w.finishTable(tb)
		}
	}
}

func (w *walker) paragraph() *paragraph {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

func (w *walker) table() *table {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

// write adds what a run's tab, break or hyphen stands for to the open
// paragraph. Outside runs these elements are properties (tab stops).
func (w *walker) write(s string) {
	if p := w.paragraph(); p != nil && w.run > 0 {
		p.text.WriteString(s)
	}
}

// finish lays out a paragraph that ended: into its table cell, as a
// heading, or as a paragraph.
func (w *walker) finish(p *paragraph) {
	text := p.text.String()
	if tb := w.table(); tb != nil && tb.inCell {
		if s := oneLine(text); s != "" {
			tb.cell = append(tb.cell, s)
		}
		return
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if level, ok := w.level(p); ok {
		w.Heading(level, oneLine(text))
		w.list = false
		return
	}
	if p.list && w.list {
		w.LineBreak(1)
	} else {
		w.LineBreak(2)
	}
	w.PayBreaks()
	w.Write(text)
	w.list = p.list
}

// finishTable lays out a table that ended: whole, one line per row, or,
// when it sits in another table's cell, into that cell with "; " between
// its rows.
func (w *walker) finishTable(tb *table) {
	if len(tb.rows) == 0 {
		return
	}
	if outer := w.table(); outer != nil && outer.inCell {
		outer.cell = append(outer.cell, strings.Join(tb.rows, "; "))
		return
	}
	w.LineBreak(2)
	w.PayBreaks()
	w.Write(strings.Join(tb.rows, "\n"))
	w.LineBreak(2)
	w.list = false
}

// level returns the heading level of a paragraph (0 for a title, 1 to 9 for
// headings) and whether it is a heading at all. The paragraph's own outline
// level wins over its style's.
func (w *walker) level(p *paragraph) (int, bool) {
	switch {
	case p.outline >= 0 && p.outline <= 8:
		return p.outline + 1, true
	case p.outline == 9, p.style == "":
		return 0, false
	}
	if level, known := w.levels[p.style]; known {
		return level, level >= 0
	}
	return styleIDLevel(p.style)
}

// styleIDLevel tells a heading by its style id alone, for a style that
// word/styles.xml does not define: "Title" and "Heading1" to "Heading9",
// ignoring case.
func styleIDLevel(id string) (int, bool) {
	id = strings.ToLower(id)
	if id == "title" {
		return 0, true
	}
	if n, ok := strings.CutPrefix(id, "heading"); ok && len(n) == 1 && n[0] >= '1' && n[0] <= '9' {
		return int(n[0] - '0'), true
	}
	return 0, false
}

// oneLine collapses white space, line breaks and tabs included, to single
// spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// attr returns the value of an element's attribute with the given local
// name, whatever its namespace prefix.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
