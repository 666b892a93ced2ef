package link

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// The dictionary matches names on a normalised copy of each text, spelled
// the way resolve.NormalizeName spells name keys: NFKC, case folded, accents
// removed, full stops and apostrophes dropped inside a word ("S.A." → "sa"),
// every other run of punctuation, symbols and white space a word break. Two
// things differ, both applied to names and texts alike: a possessive "'s"
// ends a word and is dropped ("Kestrel's" matches "Kestrel"), and the words
// are laid out as " w1  w2  w3 " — one space before and one after each word
// — so that a pattern laid out the same way can only match whole words and
// two names side by side never share a byte.

// word is one word of a normalised text: where its folded form lies in the
// normalised buffer and which bytes of the original it came from.
type word struct {
	norm, normEnd int // the folded form, in the buffer
	start, end    int // the original bytes, first letter to last (with its accents)
}

// Markers in a rune's expansion (see expand).
const (
	markBreak = 0x00 // a word break
	markMark  = 0x01 // a combining mark: dropped, but part of the word's bytes
)

// normalizer lays a text out as normalised words. It keeps its buffers
// between calls, so one per goroutine.
type normalizer struct {
	buf   []byte
	words []word
	fold  cases.Caser
	cache map[rune]string
}

func newNormalizer() *normalizer {
	return &normalizer{fold: cases.Fold(), cache: map[rune]string{}}
}

// run normalises text into n.buf and n.words, replacing what they held.
func (n *normalizer) run(text string) {
	n.buf, n.words = n.buf[:0], n.words[:0]
	open := false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if isApostrophe(r) && open && possessive(text[i+size:]) {
			n.close(&open)
			i += size + 1 // the apostrophe and the s
			continue
		}
		if r < utf8.RuneSelf {
			n.ascii(byte(r), i, &open)
		} else {
			n.expansion(n.expand(r), i, i+size, &open)
		}
		i += size
	}
	n.close(&open)
}

// ascii handles one ASCII byte at offset i, the common case, without the
// Unicode tables.
func (n *normalizer) ascii(c byte, i int, open *bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		n.letter(c+'a'-'A', i, i+1, open)
	case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		n.letter(c, i, i+1, open)
	case c == '.' || c == '\'' || c == '`':
	default:
		n.close(open)
	}
}

// expansion handles the expansion of the rune at [start, end).
func (n *normalizer) expansion(x string, start, end int, open *bool) {
	for j := 0; j < len(x); j++ {
		switch x[j] {
		case markBreak:
			n.close(open)
		case markMark:
			if *open {
				n.words[len(n.words)-1].end = end
			}
		default:
			n.letter(x[j], start, end, open)
		}
	}
}

// letter appends one byte of a word's folded form that came from the
// original bytes [start, end).
func (n *normalizer) letter(c byte, start, end int, open *bool) {
	if !*open {
		n.buf = append(n.buf, ' ')
		n.words = append(n.words, word{norm: len(n.buf), start: start})
		*open = true
	}
	n.buf = append(n.buf, c)
	n.words[len(n.words)-1].end = end
}

func (n *normalizer) close(open *bool) {
	if !*open {
		return
	}
	n.words[len(n.words)-1].normEnd = len(n.buf)
	n.buf = append(n.buf, ' ')
	*open = false
}

// expand returns the folded form of a non-ASCII rune, with markBreak for a
// word break and markMark for a combining mark; "" drops the rune.
func (n *normalizer) expand(r rune) string {
	if x, ok := n.cache[r]; ok {
		return x
	}
	var b strings.Builder
	for _, q := range norm.NFD.String(n.fold.String(norm.NFKC.String(string(r)))) {
		switch {
		case unicode.Is(unicode.Mn, q):
			b.WriteByte(markMark)
		case unicode.IsLetter(q) || unicode.IsDigit(q):
			b.WriteRune(q)
		case q == '.' || isApostrophe(q) || q == '`' || q == '´':
		default:
			b.WriteByte(markBreak)
		}
	}
	x := b.String()
	if len(n.cache) < 4096 {
		n.cache[r] = x
	}
	return x
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

// possessive reports whether rest, the text after an apostrophe, starts with
// an "s" that ends the word.
func possessive(rest string) bool {
	if rest == "" || (rest[0] != 's' && rest[0] != 'S') {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest[1:])
	return len(rest) == 1 || !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// Key returns the dictionary key of a name: its words, normalised as the
// dictionary normalises texts, joined by single spaces ("Kestrel Alloys
// Ltd." → "kestrel alloys ltd"). For names without a possessive it equals
// resolve.NormalizeName.
func Key(name string) string {
	n := normalizers.Get().(*normalizer)
	defer normalizers.Put(n)
	n.run(name)
	return n.key()
}

// normalizers keeps normalisers for Key: a case folder and its cache cost
// more to make than a name costs to fold.
var normalizers = sync.Pool{New: func() any { return newNormalizer() }}

// key returns the words of the last run joined by single spaces.
func (n *normalizer) key() string {
	var b strings.Builder
	b.Grow(len(n.buf))
	for i, w := range n.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(n.buf[w.norm:w.normEnd])
	}
	return b.String()
}
