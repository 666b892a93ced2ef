package resolve

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"kgforge/kg"
)

// keyKind is a set of blocking-key kinds, one bit each.
type keyKind uint8

const (
	keyName keyKind = 1 << iota
	keySuffix
	keyPlural
	keyAcronym
)

// signalMask returns the signals of the kinds in k (bits sigName to
// sigAcronym, strongest first).
func (k keyKind) signalMask() sigMask {
	var m sigMask
	for b, kk := range [...]keyKind{sigName: keyName, sigSuffix: keySuffix, sigPlural: keyPlural, sigAcronym: keyAcronym} {
		if k&kk != 0 {
			m |= 1 << b
		}
	}
	return m
}

// NormalizeName returns the form of a name that blocking keys start from:
// Unicode NFKC, case folded, accents removed, apostrophes and full stops
// dropped ("S.A." → "sa", "O'Neil" → "oneil"), every other run of
// punctuation, symbols and white space turned into one space.
func NormalizeName(s string) string {
	// Invalid bytes become a separator first: left in, they hide the next
	// character from the normalisers ("\xf0Á" kept its accent).
	s = cases.Fold().String(norm.NFKC.String(strings.ToValidUTF8(s, " ")))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		case r == '.' || r == '\'' || r == '’' || r == '`' || r == 'ʼ' || r == '´':
		default:
			space = true
		}
	}
	return norm.NFC.String(b.String())
}

// corporateSuffixes are legal-form words dropped from the end of a name for
// the suffix key, as NormalizeName spells them ("S.A." is "sa").
var corporateSuffixes = setOf(
	"inc", "incorporated", "corp", "corporation", "co", "company", "cos",
	"ltd", "limited", "llc", "llp", "lp", "plc", "lc",
	"gmbh", "ag", "kg", "kgaa", "ug", "ev",
	"sa", "sas", "sarl", "srl", "spa", "sl", "sau", "sca",
	"nv", "bv", "vof",
	"oy", "oyj", "ab", "as", "asa", "aps",
	"kk", "pte", "pty", "bhd", "sdn", "se", "ltda", "cv",
	"holding", "holdings",
)

// IsCorporateSuffix reports whether word, as NormalizeName spells it, is a
// legal-form word ("ltd", "inc", "gmbh", "sa"), one the suffix key drops.
func IsCorporateSuffix(word string) bool { return corporateSuffixes[word] }

// stopWords are left out of an expansion's initials ("Bank of America" →
// "ba"); the initials of all words are a second acronym key.
var stopWords = setOf("of", "the", "and", "for", "de", "la", "le", "les", "du", "des", "der", "die", "das", "und", "et", "y", "von", "van", "a", "an", "in", "on", "at", "to", "&")

var months = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
}

// romans maps Roman numerals II to XXXIX to their values; I, V and X alone
// are too often letters ("Model X").
var romans = func() map[string]int {
	m := map[string]int{}
	ones := []string{"", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"}
	tens := []string{"", "x", "xx", "xxx"}
	for v := 2; v < 40; v++ {
		if s := tens[v/10] + ones[v%10]; len(s) > 1 {
			m[s] = v
		}
	}
	return m
}()

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// numbers returns the codes of f that are not model marks.
func (f *features) numbers() []string { return f.codes[:len(f.codes)-int(f.marks)] }

// modelMarks returns f's model marks (a product's).
func (f *features) modelMarks() []string { return f.codes[len(f.codes)-int(f.marks):] }

// features is what resolution needs to know of a name besides its vector.
type features struct {
	name     string   // compact NormalizeName: spaces removed
	suffix   string   // compact, corporate suffixes and a leading "the" removed
	plural   string   // suffix with its last word made singular
	acrShort string   // the name as an acronym: one token of 2 to 6 letters
	acrLong  []string // initials of the name's significant words, then of all words
	codes    []string // the words holding a digit, Roman numerals, number words and months (nameCodes, guards.go), then the marks
	short    bool     // too short or too repetitive to trust a cosine alone
	marks    uint8    // how many of codes, at its end, are a product's model marks ("LCS-CSJ": marksOf, guards.go)
	typ      string   // folded type; "" when unknown
}

func nameFeatures(name, typ string) features {
	n := NormalizeName(name)
	toks := strings.Fields(n)
	f := features{name: strings.Join(toks, ""), typ: normalizeType(typ)}
	f.codes = nameCodes(name, toks, KindOf(typ) == KindPerson)
	if KindOf(typ) == KindProduct {
		if m := marksOf(name); len(m) > 0 {
			m = m[:min(len(m), math.MaxUint8)]
			f.codes, f.marks = append(f.codes, m...), uint8(len(m))
		}
	}

	core := toks
	if len(core) > 1 && core[0] == "the" {
		core = core[1:]
	}
	for len(core) > 1 && corporateSuffixes[core[len(core)-1]] {
		core = core[:len(core)-1]
	}
	f.suffix = strings.Join(core, "")
	if len(core) > 0 {
		last := singular(core[len(core)-1])
		f.plural = strings.Join(core[:len(core)-1], "") + last
	}

	switch {
	case len(core) == 1 && isAcronym(core[0], name):
		f.acrShort = core[0]
	case len(core) >= 2:
		var sig, all strings.Builder
		for _, t := range core {
			r, _ := utf8.DecodeRuneInString(t)
			all.WriteRune(r)
			if !stopWords[t] {
				sig.WriteRune(r)
			}
		}
		if utf8.RuneCountInString(sig.String()) >= 2 {
			f.acrLong = append(f.acrLong, sig.String())
		}
		if all.String() != sig.String() {
			f.acrLong = append(f.acrLong, all.String())
		}
	}
	f.short = isShort(f.suffix)
	return f
}

// isAcronym reports whether token t (folded) can be an acronym: 2 to 6
// letters, and written in capitals in the original when longer than 4.
func isAcronym(t, original string) bool {
	n := utf8.RuneCountInString(t)
	if n < 2 || n > 6 {
		return false
	}
	for _, r := range t {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	if n <= 4 {
		return true
	}
	for _, r := range original {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// isShort reports whether a compact name has fewer than 4 characters or a
// character entropy under 1.5 bits ("anna", "aaab").
func isShort(compact string) bool {
	counts := map[rune]int{}
	n := 0
	for _, r := range compact {
		counts[r]++
		n++
	}
	if n < 4 {
		return true
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h < 1.5
}

// singular returns an English singular of a plural word by simple rules;
// other words come back unchanged.
func singular(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "zes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// normalizeType folds an entity type; "" and "unknown" mean unknown.
func normalizeType(t string) string {
	t = kg.NormalizeName(t)
	if t == "unknown" {
		return ""
	}
	return t
}
