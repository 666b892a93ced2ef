package resolve

import (
	_ "embed"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// codes returns the words of a name that hold a digit ("sx130",
// "32lk330", "2024"), as NormalizeName spells them, with its Roman
// numerals (II to XXXIX) as their values and month names as "m" and their
// number, in order.
func codes(toks []string) []string {
	var out []string
	for _, t := range toks {
		if c, ok := code(t); ok {
			out = append(out, c)
		}
	}
	return out
}

// code is the code of one word for codes, and whether it has one.
func code(t string) (string, bool) {
	if v, ok := months[t]; ok {
		return "m" + strconv.Itoa(v), true
	} else if v, ok := romans[t]; ok {
		return strconv.Itoa(v), true
	}
	return t, strings.ContainsFunc(t, unicode.IsDigit)
}

// nameCodes is codes for an entity's name: number words count as the
// numbers they spell ("BBC One" / "BBC1"; "the fourth conference" / "the
// 4th conference") unless they are part of a hyphenated word of the name
// as written ("One-Touch", "All-in-One", "Three-Self": a feature or a
// name, not a number), and in a person's name a month is a given name, not
// a date ("Henrik August Angell" / "Henrik Angell").
func nameCodes(name string, toks []string, person bool) []string {
	var compound map[string]bool
	for _, f := range strings.Fields(name) {
		if strings.ContainsAny(f, "-\u2010\u2011\u2012\u2013") {
			if compound == nil {
				compound = map[string]bool{}
			}
			for _, w := range strings.Fields(NormalizeName(f)) {
				compound[w] = true
			}
		}
	}
	var out []string
	for _, t := range toks {
		if v, ok := numberWords[t]; ok {
			if !compound[t] {
				out = append(out, v)
			}
		} else if _, ok := months[t]; ok && person {
			continue
		} else if c, ok := code(t); ok {
			out = append(out, c)
		}
	}
	return out
}

// numberWords are the number words one to twelve and first to twelfth, as
// the codes their digits give ("1", "4th").
var numberWords = func() map[string]string {
	m := map[string]string{}
	for i, w := range strings.Fields("one two three four five six seven eight nine ten eleven twelve") {
		m[w] = strconv.Itoa(i + 1)
	}
	suffix := func(n int) string {
		switch n {
		case 1:
			return "st"
		case 2:
			return "nd"
		case 3:
			return "rd"
		}
		return "th"
	}
	for i, w := range strings.Fields("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth") {
		m[w] = strconv.Itoa(i+1) + suffix(i+1)
	}
	return m
}()

// numbersDiffer reports whether two names name different things by their
// numbers, compared after normalising their writing: case, separators and
// spaces do not count ("SX130-IS" and "SX130IS" agree), a Roman numeral is
// its value and a month its number, and a code found whole inside the
// other name agrees ("32LK330" in a longer title), where whole means not
// inside a longer number ("X50" is not in "X500"). They differ when only
// one has numbers ("Station" / "Station 1"), or when each has a number the
// other lacks ("Station 1" / "Station 2", "2023 report" / "2024 report");
// extra numbers on one side only (a longer title's specifications) do not
// count.
//
// Two product names whose model marks (marksOf: "LCS-CSJ",
// "NDSUSGSKB") each hold one the other name lacks differ too ("Sony
// LCS-CSJ Soft Carrying Case" / "Sony LCS-TWA/B Soft Leather Carrying
// Case"); a name with marks beside one without does not (a catalogue
// writes the code on one side only).
func numbersDiffer(a, b *features) bool {
	na, nb := a.numbers(), b.numbers()
	if (len(na) == 0) != (len(nb) == 0) {
		return true
	}
	if !allFound(na, b) && !allFound(nb, a) {
		return true
	}
	ma, mb := a.modelMarks(), b.modelMarks()
	return len(ma) > 0 && len(mb) > 0 && !marksFound(ma, b) && !marksFound(mb, a)
}

// marksFound reports whether every mark is one of the other name's marks,
// or that with two neighbouring letters swapped (a typo: "HSOLOMDNT" /
// "HSOLOMNDT"), or inside its compact name.
func marksFound(marks []string, other *features) bool {
	for _, m := range marks {
		if !strings.Contains(other.name, m) && !slices.ContainsFunc(other.modelMarks(), func(o string) bool { return o == m || swapped(o, m) }) {
			return false
		}
	}
	return true
}

// minMark is the fewest letters of a model mark.
const minMark = 5

// marksOf returns the model codes of a product name that hold no digit
// (those with a digit are codes already): its words as written (split at
// spaces, commas and parentheses) of at least minMark letters, all in
// capitals, in a name that also writes small letters (a name in capitals
// throughout has no way to set a code apart), as NormalizeName spells
// them without spaces: "LCS-CSQ/B" is "lcscsqb". "SONY" is too short to
// be one; a brand in capitals ("PHILIPS") is a mark that the other name
// holds as a word, so it agrees.
func marksOf(name string) []string {
	if !strings.ContainsFunc(name, unicode.IsLower) {
		return nil
	}
	var out []string
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",;()[]", r) }) {
		letters := 0
		ok := true
		for _, r := range w {
			switch {
			case unicode.IsUpper(r):
				letters++
			case unicode.IsLower(r) || unicode.IsDigit(r):
				ok = false
			}
		}
		if ok && letters >= minMark {
			if m := strings.ReplaceAll(NormalizeName(w), " ", ""); !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// allFound reports whether every code is one of the other name's codes or
// inside its compact name whole.
func allFound(codes []string, other *features) bool {
	for _, c := range codes {
		if !slices.Contains(other.numbers(), c) && !foundWhole(c, other.name) {
			return false
		}
	}
	return true
}

// foundWhole reports whether code occurs in s with no digit running on
// from a digit at either end of it.
func foundWhole(code, s string) bool {
	for from := 0; ; {
		k := strings.Index(s[from:], code)
		if k < 0 {
			return false
		}
		start, end := from+k, from+k+len(code)
		left := start == 0 || !isDigit(s[start-1]) || !isDigit(code[0])
		right := end == len(s) || !isDigit(s[end]) || !isDigit(code[len(code)-1])
		if left && right {
			return true
		}
		from = start + 1
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// variantWords learns which words of the build are variants within a
// family of names: a word is a variant when, in at least two different
// contexts, it is the one word in which two names differ ("Tee black XL" /
// "Tee white XL" and "Mug black" / "Mug red" make "black" a variant; so do
// "Hood for Nikon" / "Hood for Canon" and "Strap for Nikon" / "Strap for
// Sony" for "nikon"). A context is the set of the other words. Names of
// more than maxVariantWords words are left out, and so are words of fewer
// than minVariantLetters letters: abbreviations and legal-form leftovers
// ("V", "VNL", "SOC" alternate in the names of one company). Bags are
// sorted word ids of v.
func variantWords(bag [][]uint32, v *vocabulary) []bool {
	n := len(v.df)
	long := make([]bool, n)
	for w, id := range v.ids {
		long[id] = utf8.RuneCountInString(w) >= minVariantLetters
	}
	ctx := map[uint64][]uint32{}
	for _, b := range bag {
		if len(b) < 2 || len(b) > maxVariantWords {
			continue
		}
		for k, w := range b {
			h := fnv.New64a()
			for x, o := range b {
				if x != k {
					h.Write([]byte{byte(o), byte(o >> 8), byte(o >> 16), byte(o >> 24)})
				}
			}
			s := h.Sum64()
			if !slices.Contains(ctx[s], w) {
				ctx[s] = append(ctx[s], w)
			}
		}
	}
	contexts := make([]int, n)
	for _, ws := range ctx {
		if len(ws) >= 2 {
			for _, w := range ws {
				contexts[w]++
			}
		}
	}
	out := make([]bool, n)
	for w, c := range contexts {
		out[w] = c >= 2 && long[w]
	}
	return out
}

// minVariantLetters is the length from which a variant word guards.
const minVariantLetters = 4

// maxVariantWords bounds the names variantWords learns from.
const maxVariantWords = 16

// oneWordEach returns the word each bag has and the other lacks, when
// each has exactly one.
func oneWordEach(a, b []uint32) (int, int, bool) {
	onlyA, onlyB := -1, -1
	for x, y := 0, 0; x < len(a) || y < len(b); {
		switch {
		case y == len(b) || (x < len(a) && a[x] < b[y]):
			if onlyA >= 0 {
				return 0, 0, false
			}
			onlyA = int(a[x])
			x++
		case x == len(a) || a[x] > b[y]:
			if onlyB >= 0 {
				return 0, 0, false
			}
			onlyB = int(b[y])
			y++
		default:
			x++
			y++
		}
	}
	return onlyA, onlyB, onlyA >= 0 && onlyB >= 0
}

// respelling reports whether one word is a prefix of the other
// ("INTERNAT" / "INTERNATL", "V" / "VNL").
func respelling(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }

// substituted reports whether two bags differ in exactly one word each
// and the two words are not respellings of each other: "John Smith" /
// "Jane Smith", "Sodium chloride" / "Sodium chlorate", "North Plant" /
// "South Plant". Such a pair differs in what the word names, or in a
// typo; only a cosine of at least High tells a typo here.
func substituted(a, b []uint32, words []string) bool {
	wa, wb, ok := oneWordEach(a, b)
	return ok && !respelling(words[wa], words[wb])
}

// variantDiffer reports whether two bags differ in exactly one word each
// and one of the two words is a variant, the other not a respelling of it
// (one a prefix of the other: "INTERNAT" / "INTERNATL").
func variantDiffer(a, b []uint32, variant []bool, words []string) bool {
	wa, wb, ok := oneWordEach(a, b)
	return ok && (variant[wa] || variant[wb]) && !respelling(words[wa], words[wb]) && !swapped(words[wa], words[wb])
}

// swapped reports whether two words are the same letters with two
// neighbours swapped ("Dnever" / "Denver", "Johnasson" / "Johansson"): a
// typo, never another word of a family of variants nor another given
// name, which a letter put for another can be ("Mario" / "Maria").
func swapped(x, y string) bool {
	if len(x) != len(y) || x == y {
		return false
	}
	for k := 0; k < len(x); {
		cx, nx := utf8.DecodeRuneInString(x[k:])
		cy, ny := utf8.DecodeRuneInString(y[k:])
		if cx == cy {
			k += nx
			continue
		}
		// The first difference: x has cx then dx, y has cy then dy.
		dx, mx := utf8.DecodeRuneInString(x[k+nx:])
		dy, my := utf8.DecodeRuneInString(y[k+ny:])
		return cx == dy && dx == cy && nx+mx == ny+my && x[k+nx+mx:] == y[k+ny+my:]
	}
	return false
}

// typoLevel is the least edit similarity of two words that differ by a
// typo: at most one edit (an insertion, a deletion, a substitution or two
// letters swapped) in five letters.
const typoLevel = 0.8

// typoDiffer reports whether two bags differ in exactly one word each and
// the two words differ by a typo: "implementation" / "implementations",
// "facilitate" / "falilitate", "ALCATEL" / "ALKATEL", "NOBEL" / "NOBLE".
func typoDiffer(a, b []uint32, words []string) bool {
	wa, wb, ok := oneWordEach(a, b)
	return ok && editSimilarity(words[wa], words[wb]) >= typoLevel
}

// typoPair reports whether two names of two words or more differ in one
// word each by a typo (typoDiffer: "quering" / "querying", "ALCATEL BELL"
// / "ALKATEL BELL"), for a person's name only by two neighbouring letters
// swapped ("Johnasson" / "Johansson": one letter for another makes
// another name, "Mario" / "Maria"), and the one word is not the other
// with letters added at its end: that is a derived word as often as a
// respelling ("South Korea" / "South Korean"). A name of one word is its
// one word: a letter more or less there is as often another name
// ("Argentina" / "Argentine" on Re-DocRED). With a cosine of at least Low such a pair merges (RuleTypo):
// a typo is the one way two names this alike differ that a sentence
// encoder does not see past, and the guard on one word each
// (substituted) is for words that differ in what they name.
// bi and bj are the names' guardBags (typoPairOf finds them).
func (r *resolver) typoPair(i, j int, bi, bj []uint32) bool {
	if len(bi) < 2 || len(bj) < 2 {
		return false
	}
	words := r.text.names.words
	wa, wb, ok := oneWordEach(bi, bj)
	if !ok || respelling(words[wa], words[wb]) {
		return false
	}
	if r.kind[i] == KindPerson || r.kind[j] == KindPerson {
		return swapped(words[wa], words[wb]) // "Johnasson" / "Johansson"; not "Mario" / "Maria"
	}
	return editSimilarity(words[wa], words[wb]) >= typoLevel
}

func (r *resolver) typoPairOf(i, j int) bool {
	bi, bj := r.guardBags(i, j)
	return r.typoPair(i, j, bi, bj)
}

// editSimilarity is 1 minus the optimal-string-alignment distance of two
// words (Levenshtein with adjacent transpositions) over the longer's
// length in runes.
func editSimilarity(a, b string) float64 {
	// Three rows of the distance table, on the stack for words of up to
	// 32 runes: the guard runs on every candidate pair of one word each,
	// millions at a million names, and a table a call was most of the
	// garbage a resolve made.
	var sa, sb [32]rune
	ra, rb := appendRunes(sa[:0], a), appendRunes(sb[:0], b)
	n := max(len(ra), len(rb))
	if n == 0 {
		return 1
	}
	w := len(rb) + 1
	var rows [3 * 33]int
	buf := rows[:]
	if 3*w > len(buf) {
		buf = make([]int, 3*w)
	}
	prev2, prev, cur := buf[:w], buf[w:2*w], buf[2*w:3*w]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return 1 - float64(prev[len(rb)])/float64(n)
}

// appendRunes appends the runes of s to dst.
func appendRunes(dst []rune, s string) []rune {
	for _, c := range s {
		dst = append(dst, c)
	}
	return dst
}

// strictSubset reports whether every word of one bag is in the other and
// the other has more: one name inside a longer one. An empty bag (a name
// of numbers only) is inside none.
func strictSubset(a, b []uint32) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 || len(a) == len(b) {
		return false
	}
	for _, w := range a {
		if _, ok := slices.BinarySearch(b, w); !ok {
			return false
		}
	}
	return true
}

// legalFormWords are the words by which a longer name may extend a
// shorter one and still name the same company: the corporate suffixes,
// the stop words, and legal forms written out ("Naamloze Vennootschap",
// "Aktiengesellschaft", "Société Anonyme"), as NormalizeName spells them.
var legalFormWords = func() map[string]bool {
	m := setOf("naamloze", "naamlooze", "vennootschap", "besloten", "aktiengesellschaft", "gesellschaft", "mit", "beschrankter",
		"haftung", "societe", "anonyme", "kabushiki", "kaisha", "aktiebolag", "aktiebolaget", "aksjeselskap", "aktieselskab",
		"osakeyhtio", "spolka", "akcyjna", "sociedad", "anonima", "societa", "per", "azioni", "limitada", "compagnie", "cie")
	for w := range corporateSuffixes {
		m[w] = true
	}
	for w := range stopWords {
		m[w] = true
	}
	return m
}()

// legalFormWord reports whether a word is a legal-form word or a single
// letter, what is left of an abbreviated legal form ("N.V." written "N
// V", "V").
func legalFormWord(w string) bool { return legalFormWords[w] || utf8.RuneCountInString(w) == 1 }

//go:embed places.txt
var placesFile string

// placeWords are the words by which a longer organisation name may extend
// a shorter one and still name the same organisation: places (the
// one-word names of countries and of cities of 15,000 people or more, the
// countries' codes) and regional qualifiers ("Alcatel" / "Alcatel
// Amsterdam", "Whirlpool" / "Euro Whirlpool International"), as
// NormalizeName spells them. scripts/places.py writes the file from
// GeoNames' data and says which words it leaves out (a city named by a
// common English word: "Reading", "Mobile", "Orange"). placePhrases are
// the file's places of several words ("bergen op zoom", "frankfurt am
// main"), by each of their words: a word of one is a place in a name that
// holds all of its words (inPlace).
var placeWords, placePhrases = func() (map[string]bool, map[string][][]string) {
	m, ph := map[string]bool{}, map[string][][]string{}
	for _, l := range strings.Split(placesFile, "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.Contains(l, " "):
			ws := strings.Fields(l)
			for _, w := range ws {
				ph[w] = append(ph[w], ws)
			}
		default:
			m[l] = true
		}
	}
	return m, ph
}()

// inPlace reports whether word w of a name is a word of a place of several
// words whose every word the name's bag holds: "ZOOM" in "BERGEN CARGILL
// OP V ZOOM", "MAIN" in "FRANKFURT HOECHST AM MAIN".
func (r *resolver) inPlace(w uint32, bag []uint32) bool {
	v := r.text.names
	for _, ph := range placePhrases[v.words[w]] {
		if !slices.ContainsFunc(ph, func(p string) bool {
			id, ok := v.ids[p]
			if !ok {
				return true
			}
			_, in := slices.BinarySearch(bag, id)
			return !in
		}) {
			return true
		}
	}
	return false
}

// qualifierWord reports whether a longer name may add word to a shorter
// one of the same kind and still name the same thing: a legal-form word
// or a single letter for any kind, and for organisations a place or a
// regional qualifier.
func qualifierWord(w string, k Kind) bool {
	return legalFormWord(w) || k == KindOrganization && (placeWords[w] || doubledPlace(w))
}

// doubledPlace reports whether a word is a place written twice, in two
// spellings run together ("ARNHEIMARNHEM": a record's "ARNHEIM/ARNHEM"
// with its slash lost; doubled).
func doubledPlace(w string) bool {
	if len(w) > maxDoubledPlace {
		return false // no place is this long twice over; a hostile name's one long word costs nothing
	}
	for k := minDoubledLetters; k <= len(w)-minDoubledLetters; k++ {
		if a, b := w[:k], w[k:]; placeWords[a] && doubled(w, a) || placeWords[b] && doubled(w, b) {
			return true
		}
	}
	return false
}

// doubled reports whether word w is part p run together with a second
// spelling of it, before or after ("ARNHEIMARNHEM" and "ARNHEM"): the
// rest of w is a typo of p (typoLevel) or a prefix of it or p of the
// rest, and both have at least minDoubledLetters letters, so no short
// word makes another by being written twice.
func doubled(w, p string) bool {
	var rest string
	switch {
	case len(w) <= len(p) || utf8.RuneCountInString(p) < minDoubledLetters:
		return false
	case strings.HasSuffix(w, p):
		rest = w[:len(w)-len(p)]
	case strings.HasPrefix(w, p):
		rest = w[len(p):]
	default:
		return false
	}
	return utf8.RuneCountInString(rest) >= minDoubledLetters && (respelling(rest, p) || editSimilarity(rest, p) >= typoLevel)
}

// maxDoubledPlace is the longest word doubledPlace reads, in bytes: twice
// the longest one-word place of places.txt (26 letters) and some.
const maxDoubledPlace = 64

// minDoubledLetters is the fewest letters of each spelling of a word
// written twice (doubled).
const minDoubledLetters = 5

// guardBags are the word bags the one-word guards (variant, substituted)
// compare for the pair (i, j): the names' words, and for two organisation
// names their words less the legal-form words and single letters, when
// something is left of each. A legal form is not what two company names
// differ in: "AKZO NOBEL V" / "AKZO ARNHEM NOBEL" differ in a place, which
// the subset guard judges, not in "V" against "ARNHEM".
func (r *resolver) guardBags(i, j int) ([]uint32, []uint32) {
	t := r.text
	a, b := t.name[i], t.name[j]
	switch {
	case r.kind[i] == KindOrganization && r.kind[j] == KindOrganization:
		return r.withoutLegalForm(a), r.withoutLegalForm(b)
	case r.kind[i] == KindPerson && r.kind[j] == KindPerson:
		return r.dropWords(a, honorific), r.dropWords(b, honorific)
	}
	return a, b
}

// honorifics are the titles before a person's name, which are not part of
// it ("Dr. Olga Lange" / "Olga Lange").
var honorifics = setOf("dr", "mr", "mrs", "ms", "mx", "miss", "prof", "professor", "sir", "dame", "lord", "lady",
	"rev", "reverend", "hon", "herr", "frau", "mme", "mlle", "dott")

func honorific(w string) bool { return honorifics[w] }

// dropWords returns bag without the words drop says to leave out; the bag
// itself when it has none of them, or when nothing else would be left.
func (r *resolver) dropWords(bag []uint32, drop func(string) bool) []uint32 {
	words := r.text.names.words
	if !slices.ContainsFunc(bag, func(w uint32) bool { return drop(words[w]) }) {
		return bag
	}
	out := make([]uint32, 0, len(bag))
	for _, w := range bag {
		if !drop(words[w]) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return bag
	}
	return out
}

// withoutLegalForm returns a bag less its legal-form words and single
// letters, or the bag itself when nothing else is left or nothing is
// taken away.
func (r *resolver) withoutLegalForm(bag []uint32) []uint32 { return r.dropWords(bag, legalFormWord) }

// variantBags are the bags variantWords learns from: each name's words,
// and for an organisation name its words less its legal-form words and
// single letters, as the one-word guards compare them. "V", "VNL" and
// "NL" alternate in the names of one company ("AKZO NOBEL V", "AKZO
// ARNHEM NOBEL"); counted as the word another name has instead, they made
// the place in "AKZO ARNHEM NOBEL V" a variant of its family.
func (r *resolver) variantBags() [][]uint32 {
	bags := r.text.name
	var out [][]uint32
	for i, k := range r.kind {
		if k != KindOrganization {
			continue
		}
		if s := r.withoutLegalForm(bags[i]); len(s) != len(bags[i]) {
			if out == nil {
				out = slices.Clone(bags)
			}
			out[i] = s
		}
	}
	if out == nil {
		return bags
	}
	return out
}

// containers returns how many person names of the build hold every word
// of person name i and more, counted once per entity: a surname or a
// first name inside exactly one longer name is that person's. Names whose
// rarest word more than MaxBlockSize names hold count as many.
func (r *resolver) containers(i int) int {
	t := r.text
	if r.personWords == nil {
		r.personWords = map[uint32][]int32{}
		for k, bag := range t.name {
			if r.kind[k] != KindPerson {
				continue
			}
			for _, w := range bag {
				if t.names.df[w] <= r.cfg.MaxBlockSize {
					r.personWords[w] = append(r.personWords[w], int32(k))
				}
			}
		}
	}
	bag := t.name[i]
	if len(bag) == 0 {
		return 0
	}
	rarest := bag[0]
	for _, w := range bag[1:] {
		if t.names.df[w] < t.names.df[rarest] {
			rarest = w
		}
	}
	if t.names.df[rarest] > r.cfg.MaxBlockSize {
		return r.cfg.MaxBlockSize
	}
	n := 0
	for _, k := range r.personWords[rarest] {
		if int(k) != i && len(t.name[k]) > len(bag) && strictSubset(bag, t.name[k]) {
			n++
		}
	}
	return n
}

// tagged is the fewest words of a concept name that a few extra words
// only tag (subsetAlone).
const tagged = 4

// subsetAlone reports whether one name's words are a strict subset of the
// other's ("Philips" in "Intellectual Philips Property Standards",
// "Sanofi" in "Sanofi Synthelabo", "Velora Cycles" in "Velora Cycles
// Quality Review") and no second signal agrees. The cosine and the
// containment of such a pair are high whether the longer name is the same
// company with a qualifier or a subsidiary, a plant or a report of it, so
// they do not count. A second signal is one of: a suffix, plural or
// acronym key; extra words that are all legal-form words or single
// letters ("Akzo Nobel" / "Akzo Nobel Naamloze Vennootschap", "Euro
// Whirlpool" / "Euro V Whirlpool"), or for two organisation names places
// and regional qualifiers, when the shorter name is more than those words
// ("Alcatel" / "Alcatel Amsterdam", "Bayer" / "Antwerp Bayer"; not
// "Philips" / "Philips Intellectual Property Standards", "Sanofi" /
// "Sanofi Synthelabo"); a shared neighbour in the graph;
// the same anchor (one record of data); for person names, the longer
// being the only person name of the build that holds the shorter ("Obama"
// and "Barack Obama" in a build with no other Obama; not "Smithson" beside
// "John Smithson" and "Jane Smithson"); for two concept names (titles,
// free concepts: not organisations, persons or products, whose one extra
// word can be a subsidiary or a variant), the shorter of at least four
// words (tagged) and the longer with at most a quarter more ("Workflow
// automation: applications, technology and research" and the same title
// with "(Tutorial)"): a tag on a long title, not a thing of its own.
func (r *resolver) subsetAlone(i, j int, keys keyKind) bool {
	if r.text == nil {
		return false
	}
	// Two organisation names are compared without their legal forms:
	// "River Advisors Co." is inside "Accurate River Advisors Ltd.". Names
	// that differ in one word each, one the other's respelling, are not
	// (the words of "ALCATEL V" / "ALCATEL VNL", a legal form and the
	// same run on into a country's code, are no name inside another).
	t := r.text
	if wa, wb, ok := oneWordEach(t.name[i], t.name[j]); ok && respelling(t.names.words[wa], t.names.words[wb]) {
		return false
	}
	bi, bj := r.guardBags(i, j)
	return r.subsetAloneIn(i, j, keys, bi, bj)
}

// subsetAloneIn is subsetAlone over the bags bi and bj of the two names.
// The cluster bounds (guarded) pass the names' own bags, legal forms
// included: two members of a family that both extend a core linked to
// each ("AKZO ARNHEIMARNHEM NOBEL V" and "AKZO NAAMLOOZE NOBEL
// VENNOOTSCHAP" around "AKZO NOBEL") are not asked for a signal of their
// own because one's words, less its legal form, are inside the other's.
func (r *resolver) subsetAloneIn(i, j int, keys keyKind, bi, bj []uint32) bool {
	t := r.text
	if !strictSubset(bi, bj) {
		return false
	}
	if keys&(keySuffix|keyPlural|keyAcronym) != 0 {
		return false
	}
	if a := r.ents[i].Anchor; a != "" && a == r.ents[j].Anchor {
		return false
	}
	concepts := r.kind[i] == KindConcept && r.kind[j] == KindConcept
	if !concepts && len(t.nb[i]) > 0 && len(t.nb[j]) > 0 && t.neigh.overlap(t.nb[i], t.nb[j]) > 0 {
		return false
	}
	long, short := bi, bj
	s := j
	if len(long) < len(short) {
		long, short, s = short, long, i
	}
	if r.kind[i] == KindPerson && r.kind[j] == KindPerson && r.containers(s) == 1 {
		return false // "Obama" inside "Barack Obama", the only such name
	}
	if r.kind[i] == KindConcept && r.kind[j] == KindConcept && len(short) >= tagged && len(long)-len(short) <= max(1, len(short)/4) {
		return false // a long title and the same title tagged: "… (Tutorial)", "… - Book Review"
	}
	k := KindConcept
	if r.kind[i] == KindOrganization && r.kind[j] == KindOrganization && slices.ContainsFunc(short, func(w uint32) bool {
		return !qualifierWord(t.names.words[w], KindOrganization)
	}) {
		k = KindOrganization
	}
	for _, w := range long {
		if _, in := slices.BinarySearch(short, w); !in && !qualifierWord(t.names.words[w], k) && (k != KindOrganization || !r.inPlace(w, long)) {
			return true
		}
	}
	return false
}

// givenNamesDiffer reports whether two person names name two people by
// the words they do not share: each has such a word, and none of one's
// matches one of the other's as an initial ("J." / "John"), a shortening
// ("Alex" / "Alexander") or two neighbouring letters swapped ("Aednrs" is
// no name, "Andres" / "Anders" is): "Hugo Kenji Hernandez" / "Sven
// Hernandez", "Carlos Marco Fischer" / "Marco Diego Fischer", "Mario Rossi"
// / "Maria Rossi". Names of other kinds, and a name inside the other
// ("Obama" / "Barack Obama", which the subset guard judges), are not its
// business.
func (r *resolver) givenNamesDiffer(i, j int) bool {
	if r.text == nil || r.kind[i] != KindPerson || r.kind[j] != KindPerson {
		return false
	}
	a, b := r.guardBags(i, j)
	var bufA, bufB [16]uint32 // on the stack: this runs on every candidate pair of two persons
	onlyA, onlyB := without(bufA[:0], a, b, nil), without(bufB[:0], b, a, nil)
	if len(onlyA) == 0 || len(onlyB) == 0 {
		return false
	}
	words := r.text.names.words
	if runTogether(onlyA, b, words) || runTogether(onlyB, a, words) {
		return false // the same words, a space missing: "Emma LauraKowalski"
	}
	sa, sb := r.text.surname[i], r.text.surname[j]
	for _, x := range onlyA {
		for _, y := range onlyB {
			if sa >= 0 && sb >= 0 && (int32(x) == sa) != (int32(y) == sb) {
				// A surname and a given name are one name only as a typo
				// of each other, not as an initial or a shortening:
				// "Erik" is no shortening of "Eriksson".
				if swapped(words[x], words[y]) {
					return false
				}
				continue
			}
			if sameGivenName(words[x], words[y]) {
				return false
			}
		}
	}
	return true
}

// generational are the words after a surname that are not it ("Paul
// Desmarais Sr", "William DeMott II").
var generational = setOf("jr", "sr", "ii", "iii", "iv", "v")

// surnameWord returns the surname of a person's name as nameWords spells
// it: the last word before a comma ("Thompson, Leon Georg"), else the
// last of its words ws (nameWords(name)) that is not generational; "" for
// a name of one word, whose one word may be either.
func surnameWord(name string, ws []string) string {
	if k := strings.IndexByte(name, ','); k > 0 {
		if before := nameWords(name[:k]); len(before) > 0 && len(nameWords(name[k+1:])) > 0 {
			return before[len(before)-1]
		}
	}
	for len(ws) > 1 && generational[ws[len(ws)-1]] {
		ws = ws[:len(ws)-1]
	}
	if len(ws) < 2 {
		return ""
	}
	return ws[len(ws)-1]
}

// without appends to out the words of the sorted bag a that the sorted
// bag b lacks, leaving out those skip says to (nil: none).
func without(out, a, b []uint32, skip func(uint32) bool) []uint32 {
	for x, y := 0, 0; x < len(a); {
		switch {
		case y == len(b) || a[x] < b[y]:
			if skip == nil || !skip(a[x]) {
				out = append(out, a[x])
			}
			x++
		case a[x] > b[y]:
			y++
		default:
			x++
			y++
		}
	}
	return out
}

// sameGivenName reports whether two words can be one given name: an
// initial of the other, one the start of the other, or the same letters
// with two neighbours swapped.
func sameGivenName(x, y string) bool {
	if x == "" || y == "" {
		return false
	}
	fx, nx := utf8.DecodeRuneInString(x)
	fy, ny := utf8.DecodeRuneInString(y)
	if (nx == len(x) || ny == len(y)) && fx == fy {
		return true // an initial
	}
	return respelling(x, y) || swapped(x, y)
}

// organisationsDiffer reports whether two organisation names name two
// organisations by the words they do not share: leaving out legal forms,
// single letters and places, each has such a word, and none of one's is a
// respelling or a typo of one of the other's, or the other's words run
// together ("GISTBROCADES" / "BROCADES GIST"): "Zenith Machinery Corp." /
// "Zenith Legacy Consulting Corp.", "Metro Health KG" / "Prime Metro
// Medical KG". One word each is substituted's (guard_words already); a
// name inside the other is the subset guard's.
func (r *resolver) organisationsDiffer(i, j int, bi, bj []uint32) bool {
	if r.text == nil || r.kind[i] != KindOrganization || r.kind[j] != KindOrganization {
		return false
	}
	words := r.text.names.words
	qualifier := func(w uint32) bool { return qualifierWord(words[w], KindOrganization) }
	var bufA, bufB [16]uint32 // on the stack: this runs on every candidate pair of two organisations
	onlyA, onlyB := without(bufA[:0], bi, bj, qualifier), without(bufB[:0], bj, bi, qualifier)
	if len(onlyA) == 0 || len(onlyB) == 0 {
		return false
	}
	for _, x := range onlyA {
		for _, y := range onlyB {
			if respelling(words[x], words[y]) || editSimilarity(words[x], words[y]) >= typoLevel {
				return false
			}
		}
	}
	return !runTogether(onlyA, bj, words) && !runTogether(onlyB, bi, words)
}

// runTogether reports whether one of the words ws is the words of bag
// (two or more of them) written without spaces, in any order.
func runTogether(ws, bag []uint32, words []string) bool {
	return runTogetherOf(ws, bag, words, 2)
}

// runTogetherOf reports whether one of the words ws is at least need of
// the words of bag written without spaces, in any order (each word of bag
// once). Words of fewer than four letters are none: no two words of a
// name run together in fewer.
func runTogetherOf(ws, bag []uint32, words []string, need int) bool {
	var buf [8]string // on the stack for a name of up to eight words: this runs on candidate pairs
	var parts []string
	for _, w := range ws {
		if len(words[w]) < 4 {
			continue
		}
		if parts == nil {
			parts = buf[:0]
			for _, b := range bag {
				parts = append(parts, words[b])
			}
		}
		if splits(words[w], parts, 0) >= need {
			return true
		}
	}
	return false
}

// splits returns how many of parts make up s end to end (each used at
// most once; the first way found), or 0 when they cannot.
func splits(s string, parts []string, used uint64) int {
	if s == "" {
		return 0
	}
	for k, p := range parts {
		if k >= 64 || used&(1<<k) != 0 || p == "" || !strings.HasPrefix(s, p) {
			continue
		}
		if len(p) == len(s) {
			return 1
		}
		if n := splits(s[len(p):], parts, used|1<<k); n > 0 {
			return n + 1
		}
	}
	return 0
}
