package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Verdict is the score of one answer.
type Verdict struct {
	Correct bool    `json:"correct"`
	Score   float64 `json:"score"` // 1 or 0; a table's recall of gold rows
	Note    string  `json:"note,omitempty"`
}

// maxNumbers is the most distinct numbers (besides those of the question)
// an answer to a number question may give: more is a guess, not an answer.
const maxNumbers = 3

// Score compares an agent's answer with the question's gold answer,
// deterministically (Prepare must have run):
//   - number: any number of the answer that is not in the question matches
//     the gold one within Tolerance, or else at the rounding of the less
//     precise of the two (98 and 98.5 for 98.46) if it keeps two
//     significant digits;
//     "1.2 million" counts as 1200000 and as 1.2; an answer without a
//     digit is read for number words, zero to twenty and the tens
//     ("eight suppliers" is 8); more than three such
//     numbers are a guess and wrong;
//   - percent: as number, with the answer's numbers also read as fractions
//     or percentages (0.25 matches 25 and 25 matches 0.25);
//   - bool: the first yes/true/no/false/not word of the answer;
//   - text: the gold phrase (or an alias), normalised, is in the answer,
//     and the answer names at most five items (more is a list that holds
//     it among others: a guess and wrong);
//   - list: the answer's items equal the gold set: every gold item is
//     named, and no item outside it (pieces between commas, semicolons,
//     line breaks, "and", "or"; words of the question and framing words
//     are not items; pieces of more than six words are prose);
//   - table: the share of gold rows that one line of the answer holds
//     every cell of; correct at MinRecall (default all rows).
func Score(q *Question, answer string) Verdict {
	switch q.Kind {
	case KindNumber, KindPercent:
		return scoreNumber(q, answer)
	case KindBool:
		return scoreBool(q, answer)
	case KindText:
		return scoreText(q, answer)
	case KindList:
		return scoreList(q, answer)
	case KindTable:
		return scoreTable(q, answer)
	}
	return Verdict{Note: "unknown kind " + string(q.Kind)}
}

func verdict(ok bool, note string) Verdict {
	if ok {
		return Verdict{Correct: true, Score: 1, Note: note}
	}
	return Verdict{Note: note}
}

// num is a number read from text, with the decimals it was written with.
type num struct {
	v        float64
	decimals int  // negative for "1.2 million" read as 1200000
	scaled   bool // read times a scale word, besides as written
}

var (
	numberRE  = regexp.MustCompile(`[-+]?[$€£]?\d[\d,]*(?:\.\d+)?%?`)
	thousands = regexp.MustCompile(`^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$`)
	scaleRE   = regexp.MustCompile(`(?i)^\s*(thousand|million|billion|bn)\b`)
)

// numbersIn reads the numbers of text. Digits glued to letters, hyphens
// or other digits (S001, KA-2503-17, 2025-03-12) are ids or dates, not
// numbers; "1,234" is one number, "1,2,3" three. A number followed by a
// scale word is read both as written and times the scale.
func numbersIn(text string) []num {
	var out []num
	for _, m := range numberRE.FindAllStringIndex(text, -1) {
		s, e := m[0], m[1]
		tok := text[s:e]
		before, _ := utf8.DecodeLastRuneInString(text[:s])
		signed := tok[0] == '-' || tok[0] == '+'
		if s > 0 && (wordRune(before) || !signed && strings.ContainsRune("-._/", before)) {
			continue
		}
		after, n := utf8.DecodeRuneInString(text[e:])
		if wordRune(after) || after == '-' && e+n < len(text) && isDigit(text[e+n]) {
			continue
		}
		tok = strings.TrimRight(tok, ",")
		parts := []string{tok}
		if strings.Contains(tok, ",") && !thousands.MatchString(strings.Trim(tok, "+-$€£%")) {
			parts = strings.Split(tok, ",")
		}
		for _, p := range parts {
			if v, ok := parseNumber(p); ok {
				out = append(out, num{v: v, decimals: decimalsOf(p)})
			}
		}
		if sc := scaleRE.FindStringSubmatch(text[e:]); sc != nil && len(parts) == 1 && len(out) > 0 {
			word := strings.ToLower(sc[1])
			f := scales[word]
			if word == "bn" {
				f = 1e9
			}
			last := out[len(out)-1]
			out = append(out, num{v: last.v * f, decimals: last.decimals - int(math.Round(math.Log10(f))), scaled: true})
		}
	}
	return out
}

// countWords are the numbers written as a word that numberWordsIn reads,
// by value.
var countWords = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// numberWordsIn reads the numbers of text written as words, zero to
// twenty and the tens ("eight suppliers"; a compound such as "forty-two"
// is not read): Score reads them only in an answer that writes no number
// in digits.
func numberWordsIn(text string) []num {
	var out []num
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if v, ok := countWords[w]; ok {
			out = append(out, num{v: v})
		}
	}
	return out
}

func wordRune(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func decimalsOf(s string) int {
	s = strings.TrimRight(s, "%")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// goldNumber is the gold number with the decimals it is written with.
func goldNumber(v float64) num {
	return num{v: v, decimals: decimalsOf(strconv.FormatFloat(v, 'f', -1, 64))}
}

// closeTo says whether got matches want: within tol when it is set, else
// when both round to the same value at the precision of the less precise
// of the two, and that precision keeps two significant digits of want
// (98 and 98.5 match 98.46; 0 does not match 0.0123).
func closeTo(got, want num, tol float64) bool {
	d := math.Abs(got.v - want.v)
	if d <= 1e-9*math.Max(1, math.Abs(want.v)) {
		return true
	}
	if tol > 0 {
		return d <= tol+1e-12
	}
	dec := min(got.decimals, want.decimals)
	unit := math.Pow(10, -float64(dec))
	if unit > math.Abs(want.v)/10 {
		return false
	}
	return roundAt(got.v, dec) == roundAt(want.v, dec)
}

// roundAt rounds v to dec decimals (tens, hundreds for negative dec),
// half away from zero; it multiplies by a power of ten that is exact.
func roundAt(v float64, dec int) float64 {
	if dec >= 0 {
		return math.Round(v * math.Pow(10, float64(dec)))
	}
	return math.Round(v / math.Pow(10, float64(-dec)))
}

func scoreNumber(q *Question, answer string) Verdict {
	inQuestion := map[float64]bool{}
	for _, n := range numbersIn(q.Question) {
		inQuestion[n.v] = true
	}
	all := numbersIn(answer)
	if len(all) == 0 {
		all = numberWordsIn(answer) // "from eight suppliers": a sentence quoted as the answer
	}
	var cands []num
	distinct := map[float64]bool{}
	for _, n := range all {
		if !inQuestion[n.v] {
			cands = append(cands, n)
			if !n.scaled {
				distinct[n.v] = true
			}
		}
	}
	if len(cands) == 0 {
		cands = all
	}
	if len(cands) == 0 {
		return verdict(false, "no number in the answer")
	}
	if len(distinct) > maxNumbers {
		return verdict(false, fmt.Sprintf("%d numbers in the answer: a guess", len(distinct)))
	}
	wants := []num{goldNumber(q.gold.number)}
	if f := scales[q.Scale]; f != 1 {
		wants = append(wants, num{v: q.gold.number * f, decimals: goldNumber(q.gold.number).decimals - int(math.Round(math.Log10(f)))})
	}
	for _, c := range cands {
		for _, w := range wants {
			if closeTo(c, w, q.Tolerance) || q.Kind == KindPercent && percentClose(c, w, q.Tolerance) {
				return verdict(true, "")
			}
		}
	}
	return verdict(false, fmt.Sprintf("no number of the answer matches %v", q.gold.number))
}

// percentClose compares got read as a fraction and as a percentage.
func percentClose(got, want num, tol float64) bool {
	asPercent := num{v: got.v * 100, decimals: got.decimals - 2}
	asFraction := num{v: got.v / 100, decimals: got.decimals + 2}
	tolFraction := tol / 100
	return closeTo(asPercent, want, tol) || closeTo(asFraction, want, tolFraction)
}

var (
	yesWords = []string{"yes", "true", "correct", "yeah", "yep"}
	noWords  = []string{"no", "false", "not", "incorrect", "never", "none", "nope"}
)

// truthOf reads the first yes or no word of s.
func truthOf(s string) (bool, bool) {
	for _, w := range words(s) {
		if slices.Contains(yesWords, w) {
			return true, true
		}
		if slices.Contains(noWords, w) {
			return false, true
		}
	}
	return false, false
}

func scoreBool(q *Question, answer string) Verdict {
	got, ok := truthOf(answer)
	if !ok {
		return verdict(false, "no yes or no in the answer")
	}
	return verdict(got == q.gold.truth, "")
}

// maxTextItems is the most items a text answer may name (pieces between
// commas, semicolons and line breaks with a word that is not a number):
// more is a list that holds the gold value among others (every group of
// a table, one of which is the one asked for), a guess and wrong.
const maxTextItems = 5

func scoreText(q *Question, answer string) Verdict {
	if n := textItems(answer); n > maxTextItems {
		return verdict(false, fmt.Sprintf("%d items in the answer: a guess", n))
	}
	ws := words(answer)
	for _, g := range append([]string{q.gold.text}, q.Aliases...) {
		if indexWords(ws, words(g)) >= 0 {
			return verdict(true, "")
		}
	}
	return verdict(false, fmt.Sprintf("%q is not in the answer", q.gold.text))
}

// textItems counts the distinct pieces of an answer between separators
// (tokens' sepToken) that hold a word other than a number.
func textItems(answer string) int {
	seen := map[string]bool{}
	var piece []string
	flush := func() {
		if slices.ContainsFunc(piece, func(w string) bool { _, err := strconv.ParseFloat(w, 64); return err != nil }) {
			seen[strings.Join(piece, " ")] = true
		}
		piece = piece[:0]
	}
	for _, t := range tokens(answer) {
		if t == sepToken {
			flush()
			continue
		}
		piece = append(piece, t)
	}
	flush()
	return len(seen)
}

// words normalises s into lowercase words without accents or
// punctuation; "&" is the word "and", "the" is dropped.
func words(s string) []string {
	return slices.DeleteFunc(tokens(s), func(t string) bool { return t == sepToken })
}

// sepToken stands for a separator of items in tokens.
const sepToken = ","

// tokens is words, with a sepToken for each comma, semicolon, line break,
// bar, bullet and full stop before a space.
func tokens(s string) []string {
	rs := []rune(norm.NFKD.String(strings.ToLower(s)))
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 && b.String() != "the" {
			out = append(out, b.String())
		}
		b.Reset()
	}
	lineStart := true
	for i, r := range rs {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '&':
			flush()
			out = append(out, "and")
		case strings.ContainsRune(",;|\n•·", r),
			r == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])),
			lineStart && (r == '-' || r == '*'):
			flush()
			out = append(out, sepToken)
		default:
			flush()
		}
		lineStart = r == '\n' || lineStart && unicode.IsSpace(r)
	}
	flush()
	return out
}

// indexWords finds the word sequence sub in ws.
func indexWords(ws, sub []string) int {
	if len(sub) == 0 {
		return -1
	}
	for i := 0; i+len(sub) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// jsonList reads an answer given as a JSON array of strings.
func jsonList(answer string) ([]string, bool) {
	var items []string
	s := strings.TrimSpace(answer)
	if !strings.HasPrefix(s, "[") || json.Unmarshal([]byte(s), &items) != nil {
		return nil, false
	}
	return items, true
}
