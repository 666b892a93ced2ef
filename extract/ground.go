package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
)

// Match says how a quote was found in a text.
type Match string

// The ways Locate finds a quote, strictest first.
const (
	MatchNone       Match = ""
	MatchExact      Match = "exact"
	MatchNormalized Match = "normalized" // equal after folding case and white space
)

// Locate finds quote in text: first verbatim, then ignoring case and runs of
// white space. It returns the byte span of the matching part of text.
func Locate(text, quote string) (kg.Span, Match) {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return kg.Span{}, MatchNone
	}
	if i := indexAligned(text, quote); i >= 0 {
		return kg.Span{Start: i, End: i + len(quote)}, MatchExact
	}
	folded, offsets := fold(text)
	fq, _ := fold(quote)
	fq = strings.TrimSpace(fq)
	if fq == "" {
		return kg.Span{}, MatchNone
	}
	i := indexAligned(folded, fq)
	if i < 0 {
		return kg.Span{}, MatchNone
	}
	end := i + len(fq) // offsets has one entry per byte of folded, plus the end
	return kg.Span{Start: offsets[i], End: offsets[end]}, MatchNormalized
}

// fold lower-cases s and collapses each run of white space to one space. It
// returns the folded string and, for each byte of it (and its end), the
// offset in s where that byte's rune came from.
func fold(s string) (string, []int) {
	var b strings.Builder
	offsets := make([]int, 0, len(s)+1)
	space := false
	lastEnd := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				offsets = append(offsets, i)
				lastEnd = i
				space = true
			}
			i += w
			continue
		}
		space = false
		if r == utf8.RuneError && w == 1 {
			b.WriteByte(s[i]) // invalid UTF-8 stays as its byte
			offsets = append(offsets, i)
		} else {
			lr := unicode.ToLower(r)
			b.WriteRune(lr)
			for range utf8.RuneLen(lr) {
				offsets = append(offsets, i)
			}
		}
		i += w
		lastEnd = i
	}
	// The end entry: after the last rune, or where a trailing run of
	// white space began.
	offsets = append(offsets, lastEnd)
	return b.String(), offsets
}

// indexAligned is strings.Index restricted to matches that start and end on
// rune boundaries, so a quote never matches half of a character.
func indexAligned(s, sub string) int {
	for off := 0; off <= len(s)-len(sub); {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(sub)
		if utf8.RuneStart(s[i]) && (end == len(s) || utf8.RuneStart(s[end])) {
			return i
		}
		off = i + 1
	}
	return -1
}
