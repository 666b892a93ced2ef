package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// comparators are the phrases a question puts before a value to compare
// with it, and the filter operator each means; a phrase may stand up to
// maxComparatorGap words before the value ("below age 30", "more than 1
// room"). Longer phrases are tried first where one ends inside another
// ("not higher than" before "higher than").
var comparators = []struct {
	phrase string
	op     string
}{
	{"not higher than", "<="},
	{"not more than", "<="},
	{"no more than", "<="},
	{"not greater than", "<="},
	{"not above", "<="},
	{"not over", "<="},
	{"not exceeding", "<="},
	{"at most", "<="},
	{"up to", "<="},
	{"or less", "<="},
	{"or fewer", "<="},
	{"or below", "<="},
	{"not lower than", ">="},
	{"not less than", ">="},
	{"no less than", ">="},
	{"no fewer than", ">="},
	{"not below", ">="},
	{"not under", ">="},
	{"at least", ">="},
	{"or more", ">="},
	{"or above", ">="},
	{"or higher", ">="},
	{"since", ">="},
	{"higher than", ">"},
	{"more than", ">"},
	{"greater than", ">"},
	{"larger than", ">"},
	{"bigger than", ">"},
	{"older than", ">"},
	{"taller than", ">"},
	{"heavier than", ">"},
	{"wider than", ">"},
	{"faster than", ">"},
	{"more expensive than", ">"},
	{"longer than", ">"},
	{"later than", ">"},
	{"above", ">"},
	{"over", ">"},
	{"exceeding", ">"},
	{"exceeds", ">"},
	{"after", ">"},
	{"lower than", "<"},
	{"less than", "<"},
	{"fewer than", "<"},
	{"smaller than", "<"},
	{"younger than", "<"},
	{"lighter than", "<"},
	{"narrower than", "<"},
	{"slower than", "<"},
	{"cheaper than", "<"},
	{"less expensive than", "<"},
	{"shorter than", "<"},
	{"earlier than", "<"},
	{"below", "<"},
	{"under", "<"},
	{"before", "<"},
	{"is not", "!="},
	{"are not", "!="},
	{"isn't", "!="},
	{"aren't", "!="},
	{"other than", "!="},
	{"except", "!="},
	{"not", "!="},
}

// maxComparatorGap is how many words may stand between a comparator and
// its value (the column's name: "below age 30").
const maxComparatorGap = 2

// trailingComparators follow the value instead ("30 or more").
var trailingComparators = map[string]bool{"or less": true, "or fewer": true, "or below": true, "or more": true, "or above": true, "or higher": true}

// questionOp returns the operator the question puts on value: the
// comparator phrase nearest before the value (or right after it, "30 or
// more"), "=" when the question writes the value with none; ok false when
// the question does not write the value as a whole word.
func questionOp(question, value string) (op string, ok bool) {
	q := strings.ToLower(question)
	v := strings.ToLower(strings.TrimSpace(value))
	start := -1
	if v != "" {
		start = indexWhole(q, v)
	}
	if start < 0 {
		return "", false
	}
	if op, found := comparatorAfter(q[start+len(v):]); found {
		return op, true
	}
	return comparatorBefore(q[:start]), true
}

// comparatorBefore finds the comparator whose phrase ends at most
// maxComparatorGap words before the end of text; "=" when none does.
func comparatorBefore(text string) string {
	ws := strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) && r != '\'' })
	for gap := 0; gap <= maxComparatorGap && gap < len(ws); gap++ {
		end := len(ws) - gap // the phrase ends before ws[end]
		for _, c := range comparators {
			if trailingComparators[c.phrase] {
				continue
			}
			p := strings.Fields(c.phrase)
			if end-len(p) < 0 {
				continue
			}
			if strings.Join(ws[end-len(p):end], " ") == c.phrase {
				return c.op
			}
		}
		// A value, a comparator or a word of sentence structure in the gap
		// ends the search: "whose age is 30 and level is below …" does not
		// put "below" on 30.
		if gap < len(ws) && stopsComparator(ws[len(ws)-1-gap]) {
			break
		}
	}
	return splitComparative(ws)
}

// comparatives compare with "than" across the words that name what is
// compared ("a greater weight than 10", "more cylinders than 4").
var comparatives = map[string]string{
	"greater": ">", "higher": ">", "larger": ">", "bigger": ">", "more": ">", "longer": ">", "older": ">", "heavier": ">", "taller": ">",
	"less": "<", "lower": "<", "smaller": "<", "fewer": "<", "shorter": "<", "younger": "<", "lighter": "<",
}

// maxComparativeGap is how many words may stand between a comparative
// and its "than".
const maxComparativeGap = 2

// splitComparative finds a comparative (comparatives) one or two words
// before the "than" that ends ws, the words between it and "than" no
// sentence structure (stopsComparator) and no "not" or "no" before it;
// "=" when there is none.
func splitComparative(ws []string) string {
	n := len(ws)
	if n < 3 || ws[n-1] != "than" {
		return "="
	}
	for j := n - 3; j >= max(0, n-2-maxComparativeGap); j-- {
		if stopsComparator(ws[j+1]) {
			return "="
		}
		if op, ok := comparatives[ws[j]]; ok {
			if j > 0 && (ws[j-1] == "not" || ws[j-1] == "no") {
				return "="
			}
			return op
		}
	}
	return "="
}

// stopsComparator reports whether a word between a comparator and a value
// shows that they are not one phrase.
func stopsComparator(w string) bool {
	switch w {
	case "and", "or", "but", "whose", "which", "who", "where", "with", "is", "are", "was", "were", "the", "a", "an":
		return true
	}
	return strings.IndexFunc(w, unicode.IsDigit) >= 0
}

// comparatorAfter finds a trailing comparator right after a value.
func comparatorAfter(text string) (string, bool) {
	ws := strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
	for _, c := range comparators {
		if !trailingComparators[c.phrase] {
			continue
		}
		p := strings.Fields(c.phrase)
		if len(ws) >= len(p) && strings.Join(ws[:len(p)], " ") == c.phrase {
			return c.op, true
		}
	}
	return "", false
}

// numericOps are the operators that compare order, for values that read as
// a number or a date.
var numericOps = map[string]bool{"<": true, "<=": true, ">": true, ">=": true}

// fixOps repairs the operators of a typed query's filters by what the
// question says of their values: a value the question writes with a
// comparator takes its operator ("membership level is not higher than 4":
// <=, where the model wrote =), one it writes with none takes = (the
// model wrote < for "aged either 32 or 33"). An order operator is only set
// on a value that reads as a number or an ISO date. A filter on a value
// the question does not write (an id from a result, a linked spelling) is
// left alone. When an operator changed, kgforge runs the query again as a
// step of its own (Step.By) and answers from it, when it has rows; fixed
// is that query, nil when none.
func (r *run) fixOps(ctx context.Context, args json.RawMessage) (fixed json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Where) == 0 {
		return nil, "", nil
	}
	var m map[string]any
	changed := false
	for i, w := range c.Where {
		op, ok := questionOp(r.ans.Question, w.Value)
		if !ok || op == w.Op || w.Op == "contains" || numericOps[op] && !orderedValue(w.Value) {
			continue
		}
		if m == nil {
			if json.Unmarshal(args, &m) != nil {
				return nil, "", nil
			}
		}
		f := filterAt(m, i)
		if f == nil {
			return nil, "", nil
		}
		f["op"] = op
		changed = true
	}
	if !changed {
		return nil, "", nil
	}
	return r.rerun(ctx, m)
}

// lowerWords splits text into its lower-case words: runs of letters and
// digits, every other rune a break ("at most 4" → at, most, 4).
func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWordRune(r) })
}

// orderedValue reports whether a filter value reads as a number or an ISO
// date (2025-01-31, 2025-01, 2025), which order operators compare.
func orderedValue(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return false
	}
	digits := 0
	for _, r := range v {
		switch {
		case unicode.IsDigit(r):
			digits++
		case r == '.' || r == '-' || r == ',' || r == ':' || r == ' ' || r == 'T':
		default:
			return false
		}
	}
	return digits > 0
}

// sortWords say that a question asks for rows in an order; superlatives
// say that it asks for the first of them.
var (
	sortWords = []string{"sort", "sorted", "sorting", "ascending", "descending", "alphabetical", "alphabetically"}
	// sortPhrases: "order" alone is as often the business noun or verb
	// ("Which products has Urbanmove ordered?").
	sortPhrases = []string{"ordered by", "order by", "in order of", "in the order of"}
	superlative = []string{
		"most", "least", "fewest", "top", "first", "last", "maximum", "minimum", "max", "min", "best", "worst",
		"youngest", "oldest", "highest", "lowest", "largest", "smallest", "biggest", "latest", "earliest", "longest",
		"shortest", "cheapest", "fastest", "slowest", "greatest", "newest", "heaviest", "lightest", "richest", "poorest",
		"one", "single",
	}
)

// asksOrderedList reports whether a question asks for rows sorted ("List
// the names of teachers in ascending order of age", "Sort employee names
// by their age", "… ordered by age") and for no first or last of them (no
// superlative, no "top", "first", "one").
func asksOrderedList(question string) bool {
	ws := lowerWords(question)
	return asksSort(ws) && !slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(superlative, w) })
}

// asksSort reports whether a question's words (lowerWords) ask for a
// sort: a sort word or phrase.
func asksSort(ws []string) bool {
	joined := " " + strings.Join(ws, " ") + " "
	return slices.ContainsFunc(sortPhrases, func(p string) bool { return strings.Contains(joined, " "+p+" ") }) ||
		slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(sortWords, w) })
}

// unlimit repairs a sorted list cut to its first rows: a typed query with
// an order and a limit, for a question that asks for the rows in an order
// and for no first of them (asksOrderedList), runs again without the
// limit as kgforge's step ("List the names of teachers in ascending order
// of age" written with limit 1). unlimited is that query, nil when none.
func (r *run) unlimit(ctx context.Context, args json.RawMessage) (unlimited json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || c.Limit <= 0 || c.OrderBy == nil || !asksOrderedList(r.ans.Question) {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	delete(m, "limit")
	return r.rerun(ctx, m)
}

// asksFirstRows reports whether a question asks for some rows first: a
// superlative or direction word, "top", "first", "one", or a sort
// (asksSort).
func asksFirstRows(question string) bool {
	ws := lowerWords(question)
	return asksSort(ws) || slices.ContainsFunc(ws, func(w string) bool {
		return slices.Contains(superlative, w) || slices.Contains(descWords, w) || slices.Contains(ascWords, w)
	})
}

// dropLimit repairs a lookup cut to its first rows for a question that
// asks for no order at all ("List the name, date and result of each
// battle." ordered by result and cut to one row): a typed query with a
// limit and no aggregate or group, for a question with no superlative,
// "top", "first", "one" or sort word (asksFirstRows), runs again without
// its order and limit, as a step of its own (Step.By). dropped is that
// query, nil when none.
func (r *run) dropLimit(ctx context.Context, args json.RawMessage) (dropped json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || c.Limit <= 0 || c.Aggregate != nil || len(c.GroupBy) > 0 || asksFirstRows(r.ans.Question) {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	delete(m, "limit")
	delete(m, "order_by")
	return r.rerun(ctx, m)
}

// comparisonWindow is how many words before a compared number (its
// comparator and the column's name: "height higher than 200") and after
// it ("more than 4 cylinders") may name the column it is compared on.
const (
	comparisonBefore = 5
	comparisonAfter  = 2
)

// comparison is a filter a question states on a number: a column, an
// order operator and the number.
type comparison struct{ column, op, value string }

// questionComparisons finds the comparisons a question states on numbers
// ("How many cars have more than 4 cylinders?": Cylinders > 4): a number
// with a comparator before it (questionOp, an order operator) and, among
// the few words around it, every word of one numeric column's name, the
// only such column. columns are those a typed query's table offers, types
// their SQL types.
func questionComparisons(question string, columns []string, types map[string]string) []comparison {
	toks := strings.FieldsFunc(question, func(r rune) bool { return unicode.IsSpace(r) || r == '?' || r == '!' || r == ';' })
	var out []comparison
	for i, tok := range toks {
		v := strings.TrimRight(tok, ".,:")
		if !orderedValue(v) || strings.ContainsAny(v, " T:") {
			continue
		}
		op := comparatorBefore(strings.ToLower(strings.Join(toks[:i], " ")))
		if !numericOps[op] {
			continue
		}
		near := uniq(words(strings.Join(toks[max(0, i-comparisonBefore):min(len(toks), i+1+comparisonAfter)], " ")))
		found := ""
		rawNear := lowerWords(strings.Join(toks[max(0, i-comparisonBefore):i], " "))
		for _, col := range columns {
			if !numericType(types[col]) || identifierName(columnName(col)) && !slices.Contains(rawNear, "id") {
				continue // "farms with more than 5000 horses" compares no Farm_ID
			}
			cw := words(columnName(col))
			if len(cw) == 0 || !allIn(cw, near) {
				continue
			}
			if found != "" {
				found = ""
				break // two columns fit: not one comparison
			}
			found = col
		}
		if found == "" {
			found = headColumn(near, columns, types)
		}
		if found != "" {
			out = append(out, comparison{found, op, v})
		}
	}
	return out
}

// headColumn returns the one numeric column, no identifier, whose name's
// last word but a unit (unitWords) is among near, the table's own before
// a joined one (oneColumn): "parts cost more than 100 euros" compares
// unit_cost_eur, where no column's every word is near. "" when none or
// several fit.
func headColumn(near, columns []string, types map[string]string) string {
	col, _ := oneColumn(columns, func(col string) bool {
		if !numericType(types[col]) || identifierName(columnName(col)) {
			return false
		}
		cw := unitlessWords(col)
		return len(cw) > 0 && slices.Contains(near, cw[len(cw)-1])
	})
	return col
}

// takeWords before a number make it a count of rows to take ("the top 3
// ratings"), not a value.
var takeWords = []string{"top", "first", "last", "bottom", "best", "worst"}

// yearWords before a year make it the value of a year column ("produced
// in 1974").
var yearWords = []string{"in", "year", "during"}

// questionEqualities finds the values a question states for a numeric
// column without a comparator: a number right before every word of one
// numeric column's name ("the car with 8 cylinders": Cylinders = 8), or a
// year (1900 to 2099) right after "in", "year" or "during" where one
// numeric column is named "year" ("produced in 1974": Year = 1974); the
// table's own column before a joined one. A number after a word of
// takeWords ("the top 3 ratings") is none.
func questionEqualities(question string, columns []string, types map[string]string) []comparison {
	toks := strings.FieldsFunc(question, func(r rune) bool { return unicode.IsSpace(r) || r == '?' || r == '!' || r == ';' })
	var out []comparison
	for i, tok := range toks {
		v := strings.TrimRight(tok, ".,:")
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || strings.HasSuffix(tok, ",") {
			continue
		}
		before := strings.ToLower(strings.Join(toks[:i], " "))
		prev := ""
		if i > 0 {
			prev = strings.ToLower(toks[i-1])
		}
		if comparatorBefore(before) != "=" || slices.Contains(takeWords, prev) {
			continue
		}
		if _, trailing := comparatorAfter(strings.ToLower(strings.Join(toks[i+1:], " "))); trailing {
			continue
		}
		next := words(strings.Join(toks[i+1:min(len(toks), i+3)], " "))
		col, _ := oneColumn(columns, func(col string) bool {
			cw := columnWords(col)
			return numericType(types[col]) && len(cw) > 0 && len(cw) <= len(next) && slices.Equal(cw, next[:len(cw)])
		})
		if col == "" && n == float64(int(n)) && n >= 1900 && n <= 2099 && slices.Contains(yearWords, prev) {
			col, _ = oneColumn(columns, func(col string) bool {
				return numericType(types[col]) && slices.Equal(columnWords(col), []string{"year"})
			})
		}
		if col != "" {
			out = append(out, comparison{col, "=", v})
		}
	}
	return out
}

// oneColumn returns the one column of columns that fits, the table's own
// before a joined one; "" when none or several do. some reports whether
// any fits.
func oneColumn(columns []string, fits func(col string) bool) (col string, some bool) {
	var own, joined []string
	for _, col := range columns {
		switch {
		case !fits(col):
		case strings.Contains(col, "."):
			joined = append(joined, col)
		default:
			own = append(own, col)
		}
	}
	switch {
	case len(own) == 1:
		return own[0], true
	case len(own) == 0 && len(joined) == 1:
		return joined[0], true
	}
	return "", len(own)+len(joined) > 0
}

func allIn(ws, in []string) bool {
	for _, w := range ws {
		if !slices.Contains(in, w) {
			return false
		}
	}
	return true
}

// numericType reports whether a column's SQL type holds numbers.
func numericType(t string) bool {
	t = strings.ToUpper(t)
	for _, n := range []string{"INT", "DOUBLE", "FLOAT", "DECIMAL", "NUMERIC", "REAL", "HUGEINT"} {
		if strings.Contains(t, n) {
			return true
		}
	}
	return false
}

// addComparison repairs a query that leaves out a comparison the question
// states on a number ("How many cars have more than 4 cylinders?" counted
// every car): each comparison (questionComparisons) on a column the query
// has no filter on is added, and kgforge runs the query again as a step
// of its own (Step.By). added is that query, nil when none.
func (r *run) addComparison(ctx context.Context, args json.RawMessage) (added json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil {
		return nil, "", nil
	}
	var m map[string]any
	cmps := append(questionComparisons(r.ans.Question, t.columns, t.types), questionEqualities(r.ans.Question, t.columns, t.types)...)
	for _, cmp := range cmps {
		filtered := false
		for _, w := range c.Where {
			filtered = filtered || w.Column == cmp.column
		}
		if filtered {
			continue
		}
		if m == nil {
			if json.Unmarshal(args, &m) != nil {
				return nil, "", nil
			}
		}
		where, _ := m["where"].([]any)
		m["where"] = append(where, map[string]any{"column": cmp.column, "op": cmp.op, "value": cmp.value})
	}
	if m == nil {
		return nil, "", nil
	}
	return r.rerun(ctx, m)
}

// Direction words ask for the largest value first (descWords) or the
// smallest (ascWords): superlatives and the order words. "at most" and
// "at least" are comparators and do not count; "oldest" and "youngest"
// depend on the column (ageDirection). "best", "worst", "first" and
// "last" are left out: the best rank is the lowest number.
var (
	descWords = []string{
		"most", "highest", "largest", "biggest", "greatest", "maximum", "max", "top", "longest", "heaviest",
		"tallest", "latest", "newest", "richest", "descending",
	}
	ascWords = []string{
		"least", "fewest", "lowest", "smallest", "minimum", "min", "shortest", "lightest", "cheapest",
		"earliest", "poorest", "ascending",
	}
	// ageWords name a column where the oldest holds the largest value;
	// dateWords one where it holds the smallest.
	ageWords  = []string{"age", "aged", "old"}
	dateWords = []string{"date", "year", "birth", "born", "founded", "established", "built", "since", "start", "time"}
)

// questionDirection returns the order a question asks for on column:
// desc true when it asks for the largest value first ("the largest
// accelerate", "in descending order"), false the smallest ("the fewest
// employees"); ok false when it has no direction word or words that
// disagree. column decides "oldest" and "youngest" (an age: the oldest
// is the largest; a date or year: the earliest); "" or any other column
// leaves them out.
func questionDirection(question, column string) (desc, ok bool) {
	ws := lowerWords(question)
	cw := columnWords(column)
	ages := slices.ContainsFunc(cw, func(w string) bool { return slices.Contains(ageWords, w) })
	dates := slices.ContainsFunc(cw, func(w string) bool { return slices.Contains(dateWords, w) })
	seenDesc, seenAsc := false, false
	for i, w := range ws {
		if i > 0 && ws[i-1] == "at" && (w == "most" || w == "least") {
			continue // a comparator: "at most 4"
		}
		switch {
		case slices.Contains(descWords, w):
			seenDesc = true
		case slices.Contains(ascWords, w):
			seenAsc = true
		case w == "oldest" && ages != dates, w == "youngest" && ages != dates:
			if (w == "oldest") == ages {
				seenDesc = true
			} else {
				seenAsc = true
			}
		}
	}
	if seenDesc == seenAsc {
		return false, false
	}
	return seenDesc, true
}

// orderDirection repairs the direction of a typed query's order by the
// question's (questionDirection): "the car with the largest accelerate"
// ordered ascending, "the area where most crimes happen" ranked by the
// fewest. kgforge runs the query again, the other way, as a step of its
// own (Step.By). turned is that query, nil when none.
func (r *run) orderDirection(ctx context.Context, args json.RawMessage) (turned json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || c.OrderBy == nil {
		return nil, "", nil
	}
	column := c.OrderBy.Column
	if column == "aggregate" {
		column = "" // a count or a sum: no age or date
	}
	desc, ok := questionDirection(r.ans.Question, column)
	if !ok || desc == c.OrderBy.Desc {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	o, _ := m["order_by"].(map[string]any)
	if o == nil {
		return nil, "", nil
	}
	o["desc"] = desc
	return r.rerun(ctx, m)
}

// everyGroupWords say that a question asks for each group, not the first.
var everyGroupWords = []string{"each", "every", "per", "all"}

// numberWords are the counts a question may write in letters after "top".
var numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// topCount returns how many rows a question's superlative asks for: the
// number after "top" ("the top five states": 5, "top 3": 3), else 1.
func topCount(question string) int {
	ws := lowerWords(question)
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] != "top" {
			continue
		}
		if n := slices.Index(numberWords, ws[i+1]); n >= 0 {
			return n + 1
		}
		if n, err := strconv.Atoi(ws[i+1]); err == nil && n > 0 && n <= MaxRows {
			return n
		}
	}
	return 1
}

// rankGroups repairs a grouped aggregate that answers a superlative with
// every group: "Which year has the most concerts?" written as a count per
// year. The groups are ordered by the aggregate the way the question asks
// (questionDirection) and cut to the first (or the "top N"), and kgforge
// runs that query as a step of its own (Step.By), grouped only by the
// group columns the question names when it names some but not all. A
// question that asks for each group ("for each", "per", "every", "all")
// is left alone. ranked is that query, nil when none.
func (r *run) rankGroups(ctx context.Context, args json.RawMessage) (ranked json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.GroupBy) == 0 || c.Aggregate == nil || c.OrderBy != nil || c.Limit > 0 {
		return nil, "", nil
	}
	ws := lowerWords(r.ans.Question)
	if slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(everyGroupWords, w) }) {
		return nil, "", nil
	}
	desc, ok := questionDirection(r.ans.Question, "")
	if !ok {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	// Groups by columns the question names, when it names some but not
	// all: "the most common hometown of teachers" grouped by name and
	// hometown ranks every teacher.
	named := namedColumns(r.ans.Question, c.GroupBy)
	if len(named) > 0 && len(named) < len(c.GroupBy) {
		m["group_by"], m["columns"] = named, named
	}
	m["order_by"] = map[string]any{"column": "aggregate", "desc": desc}
	m["limit"] = topCount(r.ans.Question)
	return r.rerun(ctx, m)
}

// namedColumns returns the columns every word of whose name but a unit
// the question writes (questionNames: "unit cost" names unit_cost_eur).
func namedColumns(question string, columns []string) []string {
	var out []string
	for _, col := range columns {
		if questionNames(question, col) {
			out = append(out, col)
		}
	}
	return out
}

// distinctWords say that a question counts different values.
var distinctWords = []string{"different", "distinct", "unique"}

// countDistinct repairs a count of a column's rows for a question that
// counts its different values ("How many different countries …?"): the
// count becomes count_distinct and kgforge runs it as a step of its own
// (Step.By). counted is that query, nil when none.
func (r *run) countDistinct(ctx context.Context, args json.RawMessage) (counted json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || c.Aggregate == nil || c.Aggregate.Fn != "count" {
		return nil, "", nil
	}
	ws := lowerWords(r.ans.Question)
	if !slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(distinctWords, w) }) {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	a, _ := m["aggregate"].(map[string]any)
	if a == nil {
		return nil, "", nil
	}
	a["fn"] = "count_distinct"
	return r.rerun(ctx, m)
}

// orderColumnWindow is how many words after a superlative may name the
// column it ranks by ("the largest accelerate", "the highest average
// scale score").
const orderColumnWindow = 4

// superlativeColumn returns the column a question's superlative ranks
// by: the one numeric column (or date column, after "latest", "newest",
// "earliest"; among columns, their SQL types in types) every word of
// whose name stands in the few words after a superlative ("the car with
// the largest accelerate": Accelerate); for
// "oldest" and "youngest", the one numeric column with "age" in its name
// ("the youngest animal": pet_age); for "latest", "newest" and
// "earliest" that name no column so, the table's one date column of its
// own ("the date of the earliest order": order_date). "" when none or
// more than one fits.
func superlativeColumn(question string, columns []string, types map[string]string) string {
	col, by := namedAfter(question, columns, types, func(w string) string {
		switch {
		case w == "oldest" || w == "youngest":
			return "age"
		case w == "descending" || w == "ascending":
			return ""
		case slices.Contains(descWords, w) || slices.Contains(ascWords, w):
			return w
		}
		return ""
	})
	if col == "" && by == "" && slices.ContainsFunc(lowerWords(question), func(w string) bool { return temporalWords[w] }) {
		col, _ = oneColumn(columns, func(col string) bool { return !strings.Contains(col, ".") && dateType(types[col]) })
	}
	return col
}

// namedAfter finds the column a question names after a trigger word: the
// one numeric column, or date column after a temporal superlative
// (temporalWords: "the latest order date", not "the most units ordered"
// for ordered_on), among columns (their SQL types in types),
// every word of whose name (columnWords) stands in the orderColumnWindow
// words after a word trigger returns non-empty for, or, when trigger
// returns "age", the one numeric column with "age" in its name. A trigger
// right after "at" ("at most 4") does not count. It returns the column
// and what trigger returned for the word that named it; "" when none, or
// more than one column fits.
func namedAfter(question string, columns []string, types map[string]string, trigger func(w string) string) (column, by string) {
	ws := lowerWords(question)
	for i, w := range ws {
		tr := trigger(w)
		if tr == "" || i > 0 && ws[i-1] == "at" {
			continue
		}
		after := uniq(words(strings.Join(ws[i+1:min(len(ws), i+1+orderColumnWindow)], " ")))
		for _, col := range columns {
			t := types[col]
			if !numericType(t) && (!dateType(t) || !temporalWords[tr]) {
				continue // a date is ranked by "latest", not by "most"
			}
			cw := columnWords(col)
			fits := len(cw) > 0 && allIn(cw, after)
			if tr == "age" {
				fits = numericType(t) && slices.Contains(cw, "age")
			}
			if !fits || col == column {
				continue
			}
			if column != "" {
				return "", "" // two columns fit: none is the one
			}
			column, by = col, tr
		}
	}
	return column, by
}

// temporalWords are the superlatives that rank dates.
var temporalWords = map[string]bool{"latest": true, "newest": true, "earliest": true}

// abbreviations are the short forms column names use for a question's
// words ("Num_of_Staff": the number of staff).
var abbreviations = map[string]string{"num": "number", "nbr": "number", "qty": "quantity", "amt": "amount", "avg": "average", "pct": "percent"}

// columnName is a typed query's column without its table ("people.Height":
// Height).
func columnName(col string) string {
	if _, name, joined := strings.Cut(col, "."); joined {
		return name
	}
	return col
}

// columnWords are the words of a column's name (columnName),
// abbreviations written out.
func columnWords(col string) []string {
	ws := words(columnName(col))
	for i, w := range ws {
		if long, ok := abbreviations[w]; ok {
			ws[i] = long
		}
	}
	return ws
}

// dateType reports whether a column's SQL type holds dates or times.
func dateType(t string) bool {
	t = strings.ToUpper(t)
	return strings.Contains(t, "DATE") || strings.Contains(t, "TIME")
}

// orderColumn repairs the column a superlative query ranks by: a typed
// query ordered by another column than the one the question's
// superlative names (superlativeColumn: "What type of pet is the
// youngest animal?" ordered by weight) runs again ordered by that column,
// the way the question asks (questionDirection), as a step of its own
// (Step.By). A column the model ranks by that the question names as well
// (every word of its name but a unit: "the highest unit cost" for
// unit_cost_eur, where "unit" alone names a joined table's units) stays.
// reordered is that query, nil when none.
func (r *run) orderColumn(ctx context.Context, args json.RawMessage) (reordered json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.OrderBy == nil || c.OrderBy.Column == "aggregate" {
		return nil, "", nil
	}
	col := superlativeColumn(r.ans.Question, t.columns, t.types)
	if col == "" || col == c.OrderBy.Column || questionNames(r.ans.Question, c.OrderBy.Column) {
		return nil, "", nil // the question names the model's column too ("the highest unit cost" for unit_cost_eur)
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	o := map[string]any{"column": col, "desc": c.OrderBy.Desc}
	if desc, ok := questionDirection(r.ans.Question, col); ok {
		o["desc"] = desc
	}
	m["order_by"] = o
	return r.rerun(ctx, m)
}

// countWords are the superlatives of a number of rows ("Which model has
// the most versions?"), as against those of a value.
var countWords = map[string]bool{"most": true, "least": true, "fewest": true}

// frequencyWords after "most" or "least" say that the superlative is of
// a number of rows whatever column the model ordered by ("What is the
// most common type of crime?" ordered by the crime's timestamp).
var frequencyWords = map[string]bool{"common": true, "frequent": true, "popular": true, "often": true}

// rankByCount repairs a superlative of a number of rows written as an
// order by a text column: "Which model has the most versions?" ordered by
// Model, descending, cut to one row — text in reverse alphabetical order,
// not a count. A typed query of one text column, ordered by a text column
// (or by any column, when the superlative is "most common", "most
// frequent" …: frequencyWords) with a limit and no aggregate, for a
// question whose superlative is "most", "least" or "fewest" (not "at
// most", "at least"), runs again as
// a count per value of that column, ordered by the count that way and cut
// to the first (or "top N"), as a step of its own (Step.By). counted is
// that query, nil when none.
func (r *run) rankByCount(ctx context.Context, args json.RawMessage) (counted json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.OrderBy == nil || c.Limit <= 0 || c.Aggregate != nil || len(c.GroupBy) > 0 || len(c.Columns) != 1 {
		return nil, "", nil
	}
	col := c.Columns[0]
	ws := lowerWords(r.ans.Question)
	counts, frequent := false, false
	for i, w := range ws {
		counts = counts || countWords[w] && (i == 0 || ws[i-1] != "at")
		frequent = frequent || countWords[w] && i+1 < len(ws) && frequencyWords[ws[i+1]]
	}
	if o := c.OrderBy.Column; o == "aggregate" || numericType(t.types[col]) || !frequent && (numericType(t.types[o]) || dateType(t.types[o])) {
		return nil, "", nil
	}
	desc, ok := questionDirection(r.ans.Question, "")
	if !counts || !ok {
		return nil, "", nil
	}
	m := map[string]any{
		"table":     c.Table,
		"columns":   []string{col},
		"group_by":  []string{col},
		"aggregate": map[string]any{"fn": "count", "column": col},
		"order_by":  map[string]any{"column": "aggregate", "desc": desc},
		"limit":     topCount(r.ans.Question),
	}
	if len(c.Where) > 0 {
		m["where"] = c.Where
	}
	return r.rerun(ctx, m)
}

// countNumbers are the counts a question may write in words ("at least
// two teachers", "more than once"): numberWords, "once" and "twice".
var countNumbers = func() map[string]int {
	m := map[string]int{"once": 1, "twice": 2}
	for i, w := range numberWords {
		m[w] = i + 1
	}
	return m
}()

// groupCount finds the count a question compares each group's rows with
// ("Which countries have at least 3 car makers?": >= 3; "visitors who
// visited more than once": > 1): the one number, in digits or words,
// with an order comparator (questionOp) that is neither a comparison on a
// numeric column (questionComparisons) nor the value of one of filters.
// ok false when there is none or more than one.
func groupCount(question string, columns []string, types map[string]string, filters []string) (op, value string, ok bool) {
	taken := map[string]bool{}
	for _, cmp := range questionComparisons(question, columns, types) {
		taken[cmp.value] = true
	}
	for _, f := range filters {
		taken[strings.TrimSpace(f)] = true
	}
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(strings.ToLower(question), func(r rune) bool { return !isWordRune(r) && r != '.' }) {
		tok = strings.Trim(tok, ".")
		n, word := countNumbers[tok]
		if !word {
			v, err := strconv.Atoi(tok)
			if err != nil || v < 0 {
				continue
			}
			n = v
		}
		if seen[tok] || taken[tok] || taken[strconv.Itoa(n)] {
			continue
		}
		seen[tok] = true
		o, found := questionOp(question, tok)
		if !found || !numericOps[o] {
			continue
		}
		if value != "" {
			return "", "", false // two counts: not one comparison
		}
		op, value = o, strconv.Itoa(n)
	}
	return op, value, value != ""
}

// havingCount repairs a count per group that leaves out the comparison
// the question puts on it: "Which countries have at least 3 car makers?"
// written as a count per country. A grouped count without having, for a
// question with one such count (groupCount), runs again keeping the
// groups whose count compares that way (having), as a step of its own
// (Step.By). kept is that query, nil when none.
func (r *run) havingCount(ctx context.Context, args json.RawMessage) (kept json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || len(c.GroupBy) == 0 || c.Aggregate == nil || c.Having != nil ||
		c.Aggregate.Fn != "count" && c.Aggregate.Fn != "count_distinct" {
		return nil, "", nil
	}
	var values []string
	for _, w := range c.Where {
		values = append(values, w.Value)
	}
	op, value, ok := groupCount(r.ans.Question, t.columns, t.types, values)
	if !ok {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["having"] = map[string]any{"op": op, "value": value}
	return r.rerun(ctx, m)
}

// unitWords end a column's name with the unit of its numbers
// (unit_cost_eur, weight_kg): a question names the column without them.
var unitWords = []string{"eur", "usd", "gbp", "chf", "jpy", "kg", "km", "cm", "mm", "pct"}

// unitlessWords are the words of a column's name (columnWords) but a
// unit (unitWords).
func unitlessWords(col string) []string {
	return slices.DeleteFunc(columnWords(col), func(w string) bool { return slices.Contains(unitWords, w) })
}

// questionNames reports whether a question writes every word of a
// column's name but a unit (unitWords).
func questionNames(question, col string) bool {
	cw := unitlessWords(col)
	return len(cw) > 0 && allIn(cw, uniq(words(question)))
}

// aggregateWords are the words a question asks for an aggregate with,
// and its function.
var aggregateWords = map[string]string{
	"average": "avg", "mean": "avg", "total": "sum", "sum": "sum",
	"maximum": "max", "max": "max", "minimum": "min", "min": "min",
}

// aggregateColumn repairs the column a typed query aggregates: "What is
// the average age of the visitors …?" written as the average of
// Level_of_membership. When a word of aggregateWords names a numeric
// column in the words after it (namedAfter: "average age", "the total
// number of tickets"), and the query takes an average, sum, maximum or
// minimum of another column, kgforge runs it again on that column with
// that word's function, as a step of its own (Step.By). A column the
// question names as well (every word of its name but a unit: "the average
// unit cost" for unit_cost_eur, where "unit" alone names another) stays,
// with that word's function. A count is left alone. fixed is that query,
// nil when none.
func (r *run) aggregateColumn(ctx context.Context, args json.RawMessage) (fixed json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || c.Aggregate.Fn == "count" || c.Aggregate.Fn == "count_distinct" {
		return nil, "", nil
	}
	col, fn := namedAfter(r.ans.Question, t.columns, t.types, func(w string) string { return aggregateWords[w] })
	if col != "" && col != c.Aggregate.Column && questionNames(r.ans.Question, c.Aggregate.Column) {
		col = c.Aggregate.Column // the question names the model's column too ("unit cost" for unit_cost_eur)
	}
	if col == "" || !numericType(t.types[col]) || col == c.Aggregate.Column && fn == c.Aggregate.Fn {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["aggregate"] = map[string]any{"fn": fn, "column": col}
	return r.rerun(ctx, m)
}

// addSuperlative repairs a superlative question answered without an
// order: "What is the hometown of the youngest teacher?" written as a
// filter on a hometown the question never names. When the typed query
// has no order, no aggregate and no group, and the question's
// superlative names a column (superlativeColumn), kgforge runs it again
// ordered by that column the way the question asks (questionDirection)
// and cut to the first row (or "top N"), without the filters whose value
// neither the question nor an earlier result wrote (groundedValue: copied
// from the listing's samples), as a step of its own (Step.By). ordered
// is that query, nil when none.
func (r *run) addSuperlative(ctx context.Context, args json.RawMessage) (ordered json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.OrderBy != nil || c.Aggregate != nil || len(c.GroupBy) > 0 {
		return nil, "", nil
	}
	col := superlativeColumn(r.ans.Question, t.columns, t.types)
	if col == "" {
		return nil, "", nil
	}
	desc, ok := questionDirection(r.ans.Question, col)
	if !ok {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	var where []any
	for i, w := range c.Where {
		if r.groundedValue(w.Value) {
			where = append(where, filterAt(m, i))
		}
	}
	delete(m, "where")
	if len(where) > 0 {
		m["where"] = where
	}
	m["order_by"] = map[string]any{"column": col, "desc": desc}
	m["limit"] = topCount(r.ans.Question)
	return r.rerun(ctx, m)
}

// eachGroupWords say that a question asks for an aggregate of each group
// ("How many employees are there in each city?"); "all" is not one ("How
// many bicycles in all").
var eachGroupWords = []string{"each", "every", "per"}

// groupEach repairs an aggregate over the whole table for a question that
// asks for it per group: when "each", "every" or "per" is followed,
// within orderColumnWindow words, by every word of the name of exactly
// one column the query's table offers (columnWords: "each city", "each
// type of pet" for PetType, "each supplier" for supplier_id; its own
// column before a joined table's; not a column named by the table's own
// noun, part_id of parts, whose groups are its rows), the query is
// grouped by that column, which it also selects, and kgforge runs it as a
// step of its own (Step.By). grouped is that query, nil when none.
func (r *run) groupEach(ctx context.Context, args json.RawMessage) (grouped json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil || c.Aggregate == nil || len(c.GroupBy) > 0 || c.Having != nil {
		return nil, "", nil
	}
	ws := lowerWords(r.ans.Question)
	tableWords := uniq(words(c.Table))
	var own, joined []string // the columns that fit
	for i, w := range ws {
		if !slices.Contains(eachGroupWords, w) {
			continue
		}
		after := uniq(words(strings.Join(ws[i+1:min(len(ws), i+1+orderColumnWindow)], " ")))
		for _, cand := range columns {
			if cw := columnWords(cand); cand == c.Aggregate.Column || len(cw) == 0 || !allIn(cw, after) || allIn(cw, tableWords) {
				continue
			}
			if strings.Contains(cand, ".") {
				joined = append(joined, cand)
			} else {
				own = append(own, cand)
			}
		}
	}
	// The table's own column before a joined one of the same words (the
	// join key, "suppliers.supplier_id" beside "supplier_id").
	fit := uniq(own)
	if len(fit) == 0 {
		fit = uniq(joined)
	}
	if len(fit) != 1 {
		return nil, "", nil // none, or two columns fit: none is the one
	}
	col := fit[0]
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["group_by"], m["columns"] = []string{col}, []string{col}
	delete(m, "limit")
	return r.rerun(ctx, m)
}
