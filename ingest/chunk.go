package ingest

import (
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
)

// ChunkOptions size the chunks. Sizes are in bytes of UTF-8 text; about four
// bytes make one token for English prose, so the defaults give chunks of
// roughly 300 tokens with 40 tokens of overlap.
type ChunkOptions struct {
	Size    int // upper bound on a chunk's length; 0 means DefaultChunkSize
	Overlap int // text repeated from the end of the previous chunk; 0 means none
}

// Default chunk sizes.
const (
	DefaultChunkSize    = 1200
	DefaultChunkOverlap = 160
)

// Chunk cuts a document into chunks. A section that fits is one chunk; a
// longer one is cut between sentences (or between words inside an overlong
// sentence), never inside a word, and never across a section boundary. Each
// chunk's text equals doc.Text[Span.Start:Span.End].
func Chunk(doc Document, opt ChunkOptions) []kg.Chunk {
	if opt.Size <= 0 {
		opt.Size = DefaultChunkSize
	}
	if opt.Overlap < 0 || opt.Overlap >= opt.Size {
		opt.Overlap = 0
	}
	var out []kg.Chunk
	emit := func(sec Section, s kg.Span) {
		s = trimSpan(doc.Text, s)
		if s.Len() == 0 {
			return
		}
		text := doc.Text[s.Start:s.End]
		out = append(out, kg.Chunk{
			ID:       kg.ChunkID(doc.Source.ID, text),
			SourceID: doc.Source.ID,
			Ordinal:  len(out),
			Text:     text,
			Span:     s,
			Section:  sec.Path,
		})
	}
	for _, sec := range doc.Sections {
		span := trimSpan(doc.Text, sec.Span)
		if span.Len() <= opt.Size {
			emit(sec, span)
			continue
		}
		units := splitUnits(doc.Text, span, opt.Size)
		for i := 0; i < len(units); {
			j := i
			for j+1 < len(units) && units[j+1].End-units[i].Start <= opt.Size {
				j++
			}
			emit(sec, kg.Span{Start: units[i].Start, End: units[j].End})
			if j+1 >= len(units) {
				break
			}
			next := j + 1
			for k := j; k > i && units[j].End-units[k].Start <= opt.Overlap; k-- {
				next = k
			}
			i = next
		}
	}
	return out
}

// splitUnits cuts span into contiguous sentence units, and cuts any unit
// longer than size between words.
func splitUnits(text string, span kg.Span, size int) []kg.Span {
	var units []kg.Span
	start := span.Start
	for i := span.Start; i < span.End; {
		r, w := utf8.DecodeRuneInString(text[i:])
		i += w
		end := false
		switch r {
		case '.', '!', '?':
			end = i < span.End && isSpace(text, i)
		case '\n':
			end = i < span.End && text[i] == '\n' // blank line: paragraph end
		}
		if end {
			for i < span.End && isSpace(text, i) {
				_, w := utf8.DecodeRuneInString(text[i:])
				i += w
			}
			units = append(units, kg.Span{Start: start, End: i})
			start = i
		}
	}
	if start < span.End {
		units = append(units, kg.Span{Start: start, End: span.End})
	}
	var out []kg.Span
	for _, u := range units {
		if u.Len() <= size {
			out = append(out, u)
			continue
		}
		out = append(out, splitWords(text, u, size)...)
	}
	return out
}

// splitWords cuts span between words into pieces of at most size bytes; a
// single word longer than size becomes a piece of its own.
func splitWords(text string, span kg.Span, size int) []kg.Span {
	var out []kg.Span
	start, lastBreak := span.Start, -1
	for i := span.Start; i < span.End; {
		_, w := utf8.DecodeRuneInString(text[i:])
		if isSpace(text, i) {
			lastBreak = i + w
		}
		i += w
		if i-start > size && lastBreak > start {
			out = append(out, kg.Span{Start: start, End: lastBreak})
			start, lastBreak = lastBreak, -1
		}
	}
	if start < span.End {
		out = append(out, kg.Span{Start: start, End: span.End})
	}
	return out
}

func isSpace(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r)
}

func trimSpan(text string, s kg.Span) kg.Span {
	for s.Start < s.End {
		r, w := utf8.DecodeRuneInString(text[s.Start:])
		if !unicode.IsSpace(r) {
			break
		}
		s.Start += w
	}
	for s.End > s.Start {
		r, w := utf8.DecodeLastRuneInString(text[:s.End])
		if !unicode.IsSpace(r) {
			break
		}
		s.End -= w
	}
	return s
}
