package ingest

import (
	"bytes"
	"strings"

	"kgforge/kg"
)

// Layout accumulates the text a reader extracts from a structured format
// (HTML, DOCX) and cuts it into sections at headings. Sections are
// contiguous: each runs from its heading to the next one, the first from the
// start of the text. The zero value is ready to use.
type Layout struct {
	out      []byte
	brk      int      // line breaks owed before the next text: 1 ends the line, 2 also leaves a blank one
	titles   []string // heading titles by level
	path     string
	start    int // where the current section starts in out
	sections []Section
}

// LineBreak owes n line breaks (1 or 2) before the next text.
func (l *Layout) LineBreak(n int) { l.brk = max(l.brk, n) }

// PayBreaks writes the line breaks owed; none at the start of the text.
func (l *Layout) PayBreaks() {
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

// AtLineStart reports whether the text is empty or ends a line.
func (l *Layout) AtLineStart() bool {
	return len(l.out) == 0 || l.out[len(l.out)-1] == '\n'
}

// Heading ends the current section and starts one under title, a heading of
// the given level (0 for a document's title, above level 1), whose line it
// writes.
func (l *Layout) Heading(level int, title string) {
	l.LineBreak(2)
	l.PayBreaks()
	if len(l.out) > l.start {
		l.sections = append(l.sections, Section{Path: l.path, Span: kg.Span{Start: l.start, End: len(l.out)}})
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
	l.LineBreak(2)
}

// Document returns the text laid out, ending in one newline, with its
// sections; ok is false when there is no text.
func (l *Layout) Document() (_ Document, ok bool) {
	text := bytes.TrimRight(l.out, " \t\r\n\f\v")
	if len(bytes.TrimSpace(text)) == 0 {
		return Document{}, false
	}
	text = append(text, '\n')
	l.sections = append(l.sections, Section{Path: l.path, Span: kg.Span{Start: l.start, End: len(text)}})
	return Document{Text: string(text), Sections: l.sections}, true
}

// BreaksOwed reports whether line breaks are owed before the next text.
func (l *Layout) BreaksOwed() bool { return l.brk > 0 }

// Write appends text as it is, after no owed line breaks: call PayBreaks first.
func (l *Layout) Write(s string) { l.out = append(l.out, s...) }

// BreakLine owes one more line break than now, up to a blank line (a <br>).
func (l *Layout) BreakLine() { l.brk = min(l.brk+1, 2) }
