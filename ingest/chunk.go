package ingest

import (
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"kgforge/kg"
)

// ChunkOptions size the chunks in tokens.
type ChunkOptions struct {
	Size    int // upper bound on a chunk's tokens; 0 means DefaultChunkSize
	Overlap int // tokens repeated from the end of the previous chunk; 0 means none
	// Count counts the tokens of a text; nil means CountTokens (cl100k_base).
	Count func(string) int

	maxChunks int // stop after this many chunks and one more; 0: no bound (ChunkWithin sets it)
}

// Default chunk sizes, in tokens: about 1,200 bytes of English prose, room
// for the extraction prompt and its answer in a 4k context.
const (
	DefaultChunkSize    = 300
	DefaultChunkOverlap = 40
)

// cl100k is the tokenizer chunks are measured with. Chat models each have
// their own, but BPE vocabularies trained on similar text agree on lengths
// within a few percent for English prose, which is all sizing needs.
var cl100k = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		panic("ingest: cl100k_base tokenizer: " + err.Error()) // embedded data; cannot fail
	}
	return c
})

// countSegment bounds the text the tokenizer is given at once. Its memory
// grows with the longest piece it merges (about 50 bytes a byte): a 50 MB
// word once held 3.5 GB.
const countSegment = 64 << 10

// CountTokens returns the number of cl100k_base tokens in s. A text longer
// than 64 KiB is counted in segments cut before white space (inside a run
// longer than a segment, between runes), which bounds the tokenizer's
// memory and may count a token more at each cut of such a run.
func CountTokens(s string) int {
	n := 0
	for len(s) > 0 {
		cut := segmentEnd(s, countSegment)
		n += countAll(s[:cut])
		s = s[cut:]
	}
	return n
}

func countAll(s string) int {
	n, err := cl100k().Count(strings.ToValidUTF8(s, "\uFFFD"))
	if err != nil {
		// The split expression failed (a regexp2 timeout on pathological
		// input): fall back to the estimate.
		return EstimateTokens(s)
	}
	return n
}

// segmentEnd returns where the first segment of at most limit bytes of s
// ends: before its last white space, else at a rune boundary.
func segmentEnd(s string, limit int) int {
	if len(s) <= limit {
		return len(s)
	}
	if i := strings.LastIndexFunc(s[:limit], unicode.IsSpace); i > 0 {
		return i
	}
	for i := limit; i > limit-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return limit
}

// Chunk cuts a document into chunks of at most opt.Size tokens. A section
// that fits is one chunk. A longer one is cut between its units — records
// when the document has them, else paragraphs and sentences, with a table
// (a paragraph whose every line holds "|") kept whole — and a unit that does
// not fit alone is cut between words. Chunks never cut inside a word and
// never cross a section boundary. Each chunk's text equals
// doc.Text[Span.Start:Span.End]; its id hashes the source id and the text,
// so an unchanged source gives the same ids on every run.
func Chunk(doc Document, opt ChunkOptions) []kg.Chunk {
	if opt.Size <= 0 {
		opt.Size = DefaultChunkSize
	}
	if opt.Overlap < 0 || opt.Overlap >= opt.Size {
		opt.Overlap = 0
	}
	count := opt.Count
	if count == nil {
		count = CountTokens
	}
	c := chunker{doc: doc, opt: opt, count: count}
	if doc.Verbatim {
		c.lines = newlineIndex(doc.Text)
	}
	for _, sec := range doc.Sections {
		if c.full() {
			break
		}
		c.section(sec)
	}
	return c.out
}

// full reports whether the chunker has more chunks than opt.maxChunks.
func (c *chunker) full() bool {
	return c.opt.maxChunks > 0 && len(c.out) > c.opt.maxChunks
}

type chunker struct {
	doc   Document
	opt   ChunkOptions
	count func(string) int
	lines []int // offsets of '\n' in doc.Text, for verbatim documents
	out   []kg.Chunk
}

// unit is a piece of a section that the chunker keeps whole if it can.
type unit struct {
	span   kg.Span
	tokens int
}

func (c *chunker) section(sec Section) {
	span := trimSpan(c.doc.Text, sec.Span)
	if span.Len() == 0 {
		return
	}
	units := c.units(span)
	sum := 0
	for _, u := range units {
		sum += u.tokens
	}
	if sum <= c.opt.Size {
		if n := c.count(c.doc.Text[span.Start:span.End]); n <= c.opt.Size {
			c.emit(sec, span, n)
			return
		}
	}
	for i := 0; i < len(units); {
		j, sum := i, units[i].tokens
		for j+1 < len(units) && sum+units[j+1].tokens <= c.opt.Size {
			j++
			sum += units[j].tokens
		}
		// Tokens of joined text can differ from the sum of the parts (a
		// word may tokenize differently after a space): measure, and give
		// back units until the chunk fits.
		n := c.count(c.text(units[i].span.Start, units[j].span.End))
		for n > c.opt.Size && j > i {
			j--
			n = c.count(c.text(units[i].span.Start, units[j].span.End))
		}
		c.emit(sec, kg.Span{Start: units[i].span.Start, End: units[j].span.End}, n)
		if j+1 >= len(units) || c.full() {
			break
		}
		next, tail := j+1, 0
		for k := j; k > i; k-- {
			tail += units[k].tokens
			if tail > c.opt.Overlap {
				break
			}
			next = k
		}
		i = next
	}
}

// text returns the document's text between start and end with the white
// space at both ends trimmed, as a chunk holds it.
func (c *chunker) text(start, end int) string {
	s := trimSpan(c.doc.Text, kg.Span{Start: start, End: end})
	return c.doc.Text[s.Start:s.End]
}

// units cuts span into contiguous units that each fit in a chunk, except a
// single word longer than a chunk.
func (c *chunker) units(span kg.Span) []unit {
	var coarse []kg.Span
	if recs := c.recordsIn(span); len(recs) > 0 {
		coarse = cover(span, recs)
	} else {
		coarse = paragraphUnits(c.doc.Text, span)
	}
	var out []unit
	for _, u := range coarse {
		n := c.count(c.doc.Text[u.Start:u.End])
		if n <= c.opt.Size {
			out = append(out, unit{u, n})
			continue
		}
		for _, s := range sentenceUnits(c.doc.Text, u) {
			n := c.count(c.doc.Text[s.Start:s.End])
			if n <= c.opt.Size {
				out = append(out, unit{s, n})
				continue
			}
			for _, w := range wordUnits(c.doc.Text, s) {
				out = append(out, unit{w, c.count(c.doc.Text[w.Start:w.End])})
			}
		}
	}
	return out
}

// recordsIn returns the document's records that lie inside span.
func (c *chunker) recordsIn(span kg.Span) []kg.Span {
	var out []kg.Span
	for _, r := range c.doc.Records {
		if r.Span.Start >= span.Start && r.Span.End <= span.End {
			out = append(out, r.Span)
		}
	}
	return out
}

// cover extends records so that together they cover span without gaps: the
// text between two records joins the earlier one.
func cover(span kg.Span, recs []kg.Span) []kg.Span {
	out := slices.Clone(recs)
	out[0].Start = span.Start
	for i := range out {
		if i+1 < len(out) {
			out[i].End = out[i+1].Start
		} else {
			out[i].End = span.End
		}
	}
	return out
}

func (c *chunker) emit(sec Section, s kg.Span, tokens int) {
	s = trimSpan(c.doc.Text, s)
	if s.Len() == 0 {
		return
	}
	text := c.doc.Text[s.Start:s.End]
	if tokens < 0 {
		tokens = c.count(text)
	}
	ch := kg.Chunk{
		ID:       kg.ChunkID(c.doc.Source.ID, text),
		SourceID: c.doc.Source.ID,
		Ordinal:  len(c.out),
		Text:     text,
		Span:     s,
		Page:     sec.Page,
		Section:  sec.Path,
		Tokens:   tokens,
	}
	if c.lines != nil {
		ch.LineStart = lineAt(c.lines, s.Start)
		ch.LineEnd = lineAt(c.lines, s.End-1)
	}
	var first, last time.Time
	for _, r := range c.doc.Records {
		if r.Time.IsZero() || r.Span.End <= s.Start || r.Span.Start >= s.End {
			continue
		}
		if first.IsZero() || r.Time.Before(first) {
			first = r.Time
		}
		if r.Time.After(last) {
			last = r.Time
		}
	}
	if !first.IsZero() {
		ch.TimeStart, ch.TimeEnd = first.UTC().Format(time.RFC3339Nano), last.UTC().Format(time.RFC3339Nano)
	}
	c.out = append(c.out, ch)
}

func newlineIndex(text string) []int {
	idx := []int{}
	for i := 0; i < len(text); i++ {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j
		idx = append(idx, i)
	}
	return idx
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(newlines []int, off int) int {
	n, _ := slices.BinarySearch(newlines, off)
	return n + 1
}

// paragraphUnits cuts span at blank lines; each piece keeps its trailing
// white space.
func paragraphUnits(text string, span kg.Span) []kg.Span {
	var out []kg.Span
	start := span.Start
	for i := span.Start; i < span.End; {
		j := strings.Index(text[i:span.End], "\n\n")
		if j < 0 {
			break
		}
		end := i + j + 2
		for end < span.End && isSpace(text, end) {
			_, w := utf8.DecodeRuneInString(text[end:])
			end += w
		}
		out = append(out, kg.Span{Start: start, End: end})
		start, i = end, end
	}
	if start < span.End {
		out = append(out, kg.Span{Start: start, End: span.End})
	}
	return out
}

// isTable reports whether every non-blank line of s holds a "|": a Markdown
// table, or a table a reader flattened to one row per line.
func isTable(s string) bool {
	rows := 0
	for line := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		if !strings.Contains(line, "|") {
			return false
		}
		rows++
	}
	return rows > 1
}

// sentenceUnits cuts span into sentences (a table into rows), each keeping
// its trailing white space.
func sentenceUnits(text string, span kg.Span) []kg.Span {
	table := isTable(text[span.Start:span.End])
	var units []kg.Span
	start := span.Start
	for i := span.Start; i < span.End; {
		r, w := utf8.DecodeRuneInString(text[i:])
		i += w
		end := false
		switch r {
		case '.', '!', '?':
			end = !table && i < span.End && isSpace(text, i)
		case '\n':
			end = table || (i < span.End && text[i] == '\n')
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
	return units
}

// wordUnits cuts span into words, each with its trailing white space.
func wordUnits(text string, span kg.Span) []kg.Span {
	var out []kg.Span
	start := span.Start
	inSpace := false
	for i := span.Start; i < span.End; {
		sp := isSpace(text, i)
		if inSpace && !sp {
			out = append(out, kg.Span{Start: start, End: i})
			start = i
		}
		inSpace = sp
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
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
