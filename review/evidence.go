package review

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"kgforge/kg"
)

// errEvidence is the error of a malformed evidence reference.
var errEvidence = errors.New("not CHUNK_ID:START-END")

// parseEvidence splits an evidence reference CHUNK_ID:START-END (byte
// offsets in the source) into its parts.
func parseEvidence(ref string) (chunk string, start, end int, err error) {
	i := strings.LastIndexByte(ref, ':')
	if i <= 0 {
		return "", 0, 0, errEvidence
	}
	from, to, ok := strings.Cut(ref[i+1:], "-")
	if !ok {
		return "", 0, 0, errEvidence
	}
	start, err1 := strconv.Atoi(from)
	end, err2 := strconv.Atoi(to)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return "", 0, 0, errEvidence
	}
	return ref[:i], start, end, nil
}

// snippet cuts the text around an evidence span out of its chunk, with
// up to contextBytes on each side. It never fails: a reference it cannot
// use gives a snippet that says why.
func snippet(ref string, chunks map[string]*kg.Chunk, uris map[string]string, contextBytes int) Snippet {
	s := Snippet{Ref: ref}
	id, start, end, err := parseEvidence(ref)
	if err != nil {
		s.Problem = fmt.Sprintf("malformed evidence reference (%v)", err)
		return s
	}
	c := chunks[id]
	if c == nil {
		s.Problem = "the bundle has no chunk " + id
		return s
	}
	s.Where = where(c, uris)
	// The span is in the source; the chunk starts at c.Span.Start in it.
	text := c.Text
	lo, hi := clamp(start-c.Span.Start, len(text)), clamp(end-c.Span.Start, len(text))
	if start < c.Span.Start || end > c.Span.Start+len(text) || lo > hi {
		s.Problem = fmt.Sprintf("the span lies outside chunk %s (bytes %d-%d of the source)", id, c.Span.Start, c.Span.Start+len(text))
		if lo >= hi {
			return s
		}
	}
	lo, hi = runeStart(text, lo, false), runeStart(text, hi, true)
	from, to := runeStart(text, clamp(lo-contextBytes, len(text)), true), runeStart(text, clamp(hi+contextBytes, len(text)), false)
	from, to = min(from, lo), max(to, hi)
	// Cut the context at white space, not inside a word, when it can.
	if from > 0 {
		if i := strings.IndexAny(text[from:lo], " \n\t"); i >= 0 {
			from += i + 1
		}
	}
	if to < len(text) {
		if i := strings.LastIndexAny(text[hi:to], " \n\t"); i >= 0 {
			to = hi + i
		}
	}
	s.Before, s.Match, s.After = text[from:lo], text[lo:hi], text[hi:to]
	if from > 0 {
		s.Before = "…" + s.Before
	}
	if to < len(text) {
		s.After += "…"
	}
	return s
}

// where names the place of a chunk: its source and section or page.
func where(c *kg.Chunk, uris map[string]string) string {
	parts := []string{c.SourceID}
	if u := uris[c.SourceID]; u != "" {
		parts[0] = u
	}
	if c.Page > 0 {
		parts = append(parts, fmt.Sprintf("page %d", c.Page))
	}
	if c.Section != "" {
		parts = append(parts, c.Section)
	}
	if c.LineStart > 0 {
		parts = append(parts, fmt.Sprintf("lines %d-%d", c.LineStart, c.LineEnd))
	}
	return strings.Join(parts, " · ")
}

// clamp bounds i to [0, n].
func clamp(i, n int) int { return max(0, min(i, n)) }

// runeStart moves i to the start of a UTF-8 sequence of s: forward when
// forward is true, else back, so a cut never splits a character.
func runeStart(s string, i int, forward bool) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		if forward {
			i++
		} else {
			i--
		}
	}
	return i
}
