package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxItemWords is the most words a piece of a list answer may have and
// still be read as an item: longer pieces are prose around the items.
const maxItemWords = 6

// framing are the words around the items of a list answer that are not
// items ("the answer is", "they are both").
var framing = map[string]bool{
	"a": true, "an": true, "and": true, "or": true, "is": true, "are": true, "was": true, "were": true,
	"answer": true, "answers": true, "result": true, "results": true, "they": true, "these": true,
	"those": true, "them": true, "it": true, "here": true, "there": true, "of": true, "in": true,
	"on": true, "by": true, "for": true, "to": true, "with": true, "from": true, "at": true, "all": true,
	"both": true, "only": true, "also": true, "include": true, "includes": true, "including": true,
	"following": true, "list": true, "names": true, "name": true, "which": true, "who": true, "what": true,
	"s": true, "etc": true,
}

// listItems matches the answer's pieces (cut at commas, semicolons, line
// breaks, bullets, full stops, "and" and "or") to gold items: found[k]
// says gold item k is named; extra lists the pieces that name none. Gold
// items are found first, longest first, so that a separator word inside a
// gold name ("Pedal and Co") does not cut it.
func listItems(answer string, items, questionWords []string) (found []bool, extra []string) {
	found = make([]bool, len(items))
	if got, ok := jsonList(answer); ok {
		answer = strings.Join(got, "\n")
	}
	toks := tokens(answer)
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(words(items[b])) - len(words(items[a])) })
	for _, k := range order {
		g := words(items[k])
		for i := indexWords(toks, g); i >= 0; i = indexWords(toks, g) {
			toks = slices.Replace(toks, i, i+len(g), markerToken(k))
		}
	}
	qw := map[string]bool{}
	for _, w := range questionWords {
		qw[w] = true
	}
	var piece []string
	end := func() {
		content, marked := 0, false
		for _, t := range piece {
			if k, ok := markerIndex(t); ok {
				found[k], marked = true, true
			} else if !framing[t] && !qw[t] {
				content++
			}
		}
		if !marked && content > 0 && len(piece) <= maxItemWords {
			extra = append(extra, strings.Join(piece, " "))
		}
		piece = piece[:0]
	}
	for _, t := range toks {
		if t == sepToken || t == "and" || t == "or" {
			end()
			continue
		}
		piece = append(piece, t)
	}
	end()
	return found, extra
}

func markerToken(k int) string { return fmt.Sprintf("\x00%d", k) }

func markerIndex(t string) (int, bool) {
	if !strings.HasPrefix(t, "\x00") {
		return 0, false
	}
	k, err := strconv.Atoi(t[1:])
	return k, err == nil
}

func scoreList(q *Question, answer string) Verdict {
	found, extra := listItems(answer, q.gold.items, words(q.Question))
	var missing []string
	for k, ok := range found {
		if !ok {
			missing = append(missing, q.gold.items[k])
		}
	}
	switch {
	case len(missing) > 0:
		return verdict(false, fmt.Sprintf("missing %q", missing))
	case len(extra) > 0:
		return verdict(false, fmt.Sprintf("not in the gold set: %q", extra))
	}
	return verdict(true, "")
}

// rowsIn cuts a table answer into rows: a JSON array of arrays, or
// lines and semicolon-separated pieces; with commas too when wide is set.
func rowsIn(answer string, wide bool) []string {
	var rows [][]any
	if s := strings.TrimSpace(answer); strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &rows) == nil {
		out := make([]string, len(rows))
		for i, r := range rows {
			cells := make([]string, len(r))
			for j, c := range r {
				cells[j] = fmt.Sprint(c)
			}
			out[i] = strings.Join(cells, " | ")
		}
		return out
	}
	sep := "\n;"
	if wide {
		sep += ","
	}
	return strings.FieldsFunc(answer, func(r rune) bool { return strings.ContainsRune(sep, r) })
}

// rowHolds says whether one row of an answer holds every cell of a gold
// row: numbers as numbers (rounding tolerance), other cells as words.
func rowHolds(row string, cells []string, tol float64) bool {
	ws := words(row)
	nums := numbersIn(row)
	for _, c := range cells {
		if v, ok := parseNumber(c); ok {
			want := num{v: v, decimals: decimalsOf(strings.TrimSpace(c))}
			if !slices.ContainsFunc(nums, func(n num) bool { return closeTo(n, want, tol) }) {
				return false
			}
			continue
		}
		if cw := words(c); len(cw) > 0 && indexWords(ws, cw) < 0 {
			return false
		}
	}
	return true
}

// recall is the share of gold rows some row of the answer holds.
func recall(answer string, gold [][]string, tol float64) float64 {
	best := 0.0
	for _, wide := range []bool{false, true} {
		rows := rowsIn(answer, wide)
		hit := 0
		for _, g := range gold {
			if slices.ContainsFunc(rows, func(r string) bool { return rowHolds(r, g, tol) }) {
				hit++
			}
		}
		best = max(best, float64(hit)/float64(len(gold)))
	}
	return best
}

func scoreTable(q *Question, answer string) Verdict {
	r := recall(answer, q.gold.rows, q.Tolerance)
	need := q.MinRecall
	if need == 0 {
		need = 1
	}
	v := Verdict{Correct: r >= need-1e-9, Score: r}
	if !v.Correct {
		v.Note = fmt.Sprintf("recall of gold rows %.2f, need %.2f", r, need)
	}
	return v
}
