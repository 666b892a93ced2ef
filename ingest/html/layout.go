package html

import (
	"bytes"
	"strings"

	"kgforge/ingest"
	"kgforge/kg"
)

// layout accumulates extracted text and cuts it into sections at headings.
// Sections are contiguous: each runs from its heading to the next one, the
// first from the start of the text.
type layout struct {
	out      []byte
	brk      int      // line breaks owed before the next text: 1 ends the line, 2 also leaves a blank one
	titles   []string // heading titles by level
	path     string
	start    int // where the current section starts in out
	sections []ingest.Section
}

// lineBreak owes n line breaks (1 or 2) before the next text.
func (l *layout) lineBreak(n int) { l.brk = max(l.brk, n) }

// pay writes the line breaks owed; none at the start of the text.
func (l *layout) pay() {
	if len(l.out) > 0 {
		have := 0
		for i := len(l.out) - 1; i >= 0 && have < 2 && l.out[i] == '\n'; i-- {
			have++
		}
		for ; have < l.brk; have++ {
			l.out = append(l.out, '\n')
		}
	}
	l.brk = 0
}

func (l *layout) atLineStart() bool {
	return len(l.out) == 0 || l.out[len(l.out)-1] == '\n'
}

// heading ends the current section and starts one under title, a heading of
// the given level (0 for a document's title, above level 1), whose line it
// writes.
func (l *layout) heading(level int, title string) {
	l.lineBreak(2)
	l.pay()
	if len(l.out) > l.start {
		l.sections = append(l.sections, ingest.Section{Path: l.path, Span: kg.Span{Start: l.start, End: len(l.out)}})
	}
	l.start = len(l.out)
	for len(l.titles) <= level {
		l.titles = append(l.titles, "")
	}
	l.titles = append(l.titles[:level], title)
	parts := make([]string, 0, len(l.titles))
	for _, t := range l.titles {
		if t != "" {
			parts = append(parts, t)
		}
	}
	l.path = strings.Join(parts, " > ")
	l.out = append(l.out, title...)
	l.lineBreak(2)
}

// document returns the text laid out, ending in one newline, with its
// sections; ok is false when there is no text.
func (l *layout) document() (_ ingest.Document, ok bool) {
	text := bytes.TrimRight(l.out, " \t\r\n\f\v")
	if len(bytes.TrimSpace(text)) == 0 {
		return ingest.Document{}, false
	}
	text = append(text, '\n')
	l.sections = append(l.sections, ingest.Section{Path: l.path, Span: kg.Span{Start: l.start, End: len(text)}})
	return ingest.Document{Text: string(text), Sections: l.sections}, true
}
