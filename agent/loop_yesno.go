package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// yesNoOpeners are the verbs a question answered yes or no opens with
// ("Does Kestrel Alloys supply …?", "Is there a supplier in Spain?").
var yesNoOpeners = []string{
	"is", "are", "was", "were", "do", "does", "did", "has", "have", "had",
	"can", "could", "will", "would", "should",
}

// yesNoQuestion reports whether a question asks for yes or no: its first
// word is one of yesNoOpeners and it holds no "which", "what", "who" or
// "how" ("Is it true …?" yes; "Do you know which …?" no).
func yesNoQuestion(question string) bool {
	ws := lowerWords(question)
	if len(ws) == 0 || !slices.Contains(yesNoOpeners, ws[0]) {
		return false
	}
	return !slices.ContainsFunc(ws, func(w string) bool {
		return w == "which" || w == "what" || w == "who" || w == "whom" || w == "how" || w == "where" || w == "when"
	})
}

// questionBounds finds the bounds a question puts on a number, whatever
// it counts ("Does Kestrel Alloys supply more than 2 parts?": > 2): each
// number with an order comparator before it (comparatorBefore).
func questionBounds(question string) []comparison {
	toks := strings.FieldsFunc(question, func(r rune) bool { return unicode.IsSpace(r) || r == '?' || r == '!' || r == ';' })
	var out []comparison
	for i, tok := range toks {
		v := strings.TrimRight(tok, ".,:")
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			continue
		}
		if op := comparatorBefore(strings.ToLower(strings.Join(toks[:i], " "))); numericOps[op] {
			out = append(out, comparison{op: op, value: v})
		}
	}
	return out
}

// holds reports whether the number v meets the comparison (op and value);
// ok is false when either is no number.
func holds(v string, cmp comparison) (met, ok bool) {
	x, err1 := strconv.ParseFloat(strings.TrimSpace(v), 64)
	y, err2 := strconv.ParseFloat(cmp.value, 64)
	if err1 != nil || err2 != nil {
		return false, false
	}
	switch cmp.op {
	case "<":
		return x < y, true
	case "<=":
		return x <= y, true
	case ">":
		return x > y, true
	case ">=":
		return x >= y, true
	}
	return false, false
}

// yesNo reads the result of a typed query as the answer to a question
// asked for yes or no (yesNoQuestion); "" when it cannot tell. No row (or
// a count of none: noRowsMatched) is "No". A count the question bounds
// ("more than 2") is measured against the bound. Rows of a lookup are
// "No" when the question writes values of a column the result holds
// (namedValues, else mentionedValues) and none of them is in a row ("Is
// Kestrel Alloys based in Spain?" looked up Germany), or a value of a column the question compares with a number
// misses it ("rated above 4" against 3.5); else "Yes". Another aggregate
// (a sum, an average) the question does not bound tells nothing.
func (r *run) yesNo(c selectCall, header []string, rows [][]string) string {
	if noRowsMatched(c, rows) {
		return "No"
	}
	t := r.schemaTable(c.Table)
	if t == nil {
		return ""
	}
	var cmps []comparison
	if c.Aggregate != nil {
		if len(c.GroupBy) > 0 || len(rows) != 1 || len(rows[0]) != 1 {
			return ""
		}
		cmps = questionComparisons(r.ans.Question, []string{c.Aggregate.Column}, t.types)
		if c.Aggregate.Fn == "count" || c.Aggregate.Fn == "count_distinct" {
			if c.Aggregate.Fn == "count" && len(cmps) == 0 {
				cmps = questionBounds(r.ans.Question)
			}
			if len(cmps) == 0 {
				return "Yes" // some row matched
			}
		}
		if len(cmps) != 1 {
			return ""
		}
		if met, ok := holds(rows[0][0], cmps[0]); ok {
			return yesOrNo(met)
		}
		return ""
	}
	for j, h := range header {
		col := resultColumn(h, c.Columns)
		if col == "" {
			continue
		}
		cells := make([]string, 0, len(rows))
		for _, row := range rows {
			if j < len(row) {
				cells = append(cells, row[j])
			}
		}
		named := r.namedValues(c.Table, []string{col})
		if len(named) == 0 {
			named = r.mentionedValues(c.Table, []string{col})
		}
		if len(named) > 0 && !slices.ContainsFunc(named, func(n linkedFilter) bool {
			return slices.ContainsFunc(cells, func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), n.value) })
		}) {
			return "No"
		}
		for _, cmp := range questionComparisons(r.ans.Question, []string{col}, t.types) {
			for _, v := range cells {
				if met, ok := holds(v, cmp); ok && !met {
					return "No"
				}
			}
		}
	}
	return "Yes"
}

// resultColumn returns the column of a typed query's columns that a
// result's header names ("country" for "suppliers.country"); "" when none.
func resultColumn(header string, columns []string) string {
	for _, col := range columns {
		if strings.EqualFold(columnName(col), header) || strings.EqualFold(col, header) {
			return col
		}
	}
	return ""
}

func yesOrNo(yes bool) string {
	if yes {
		return "Yes"
	}
	return "No"
}

// filterEveryValue repairs a query that filters on some of the values the
// question writes but not all: "Is Kestrel Alloys based in Spain?"
// written as the suppliers whose country is Spain, which are some, and
// "Yes"; "How many Volt E8 orders were shipped?" counted every Volt E8
// order; "List the parts made in Brno that cost less than 90 euros."
// listed the cheap parts of both plants. For a question asked for yes or
// no (yesNoQuestion), or a typed query with a filter (addFilter takes one
// without), and no group, each value the question writes whole of a
// column the query's table offers (namedValues, the longest for a column,
// a value once, none written only inside a longer one) on a column the
// query neither filters nor selects becomes a filter (=), and kgforge
// runs it as a step of its own (Step.By), a result with no row included:
// that none matches is the answer "No", or 0; a lookup's result is taken
// only with rows. A yes-or-no question's
// sum, average, maximum or minimum per group ("Does Serra Brakes have a
// rating above 4.5?" written as each supplier's summed rating) is first
// read as the lookup of the group's rows and the aggregated column.
// filtered is that query, nil when none.
func (r *run) filterEveryValue(ctx context.Context, args json.RawMessage) (filtered json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil {
		return nil, "", nil
	}
	yesNo, changed := yesNoQuestion(r.ans.Question), false
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	switch {
	case yesNo && len(c.GroupBy) > 0 && c.Aggregate != nil && c.Aggregate.Fn != "count" && c.Aggregate.Fn != "count_distinct" && c.Having == nil:
		cols := slices.Clone(c.GroupBy)
		if !slices.Contains(cols, c.Aggregate.Column) {
			cols = append(cols, c.Aggregate.Column)
		}
		for _, k := range []string{"group_by", "aggregate", "order_by", "limit"} {
			delete(m, k)
		}
		m["columns"] = cols
		c.Columns, c.GroupBy, c.Aggregate = cols, nil, nil
		changed = true // the group's rows, whether or not a filter is added
	case len(c.GroupBy) > 0 || !yesNo && len(c.Where) == 0:
		return nil, "", nil
	}
	used, taken := map[string]bool{}, map[string]bool{}
	for _, w := range c.Where {
		used[w.Column], taken[strings.ToLower(strings.TrimSpace(w.Value))] = true, true
	}
	for _, col := range c.Columns {
		used[col] = true
	}
	where, _ := m["where"].([]any)
	var seen []string // the longer values the question writes
	for _, n := range r.namedValues(c.Table, t.columns) {
		inLonger := slices.ContainsFunc(seen, func(v string) bool { return namedWhole(v, n.value) })
		seen = append(seen, n.value)
		if used[n.column] || taken[strings.ToLower(n.value)] || inLonger {
			continue // "brakes" of part_category inside "Serra Brakes"
		}
		used[n.column], taken[strings.ToLower(n.value)] = true, true
		where = append(where, map[string]any{"column": n.column, "op": "=", "value": n.value})
		changed = true
	}
	if !changed {
		return nil, "", nil
	}
	m["where"] = where
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	lookup := !yesNo && c.Aggregate == nil
	return r.rerunIf(ctx, raw, func(rows [][]string) bool { return !lookup || len(rows) > 0 })
}

// negationWords say that a sentence denies what it states.
var negationWords = []string{"not", "no", "never", "neither", "nor", "none", "isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "hasn't", "haven't", "cannot", "can't", "won't"}

// negated reports whether text writes a word of negationWords.
func negated(text string) bool {
	return slices.ContainsFunc(strings.Fields(strings.ToLower(text)), func(f string) bool {
		return slices.Contains(negationWords, strings.Trim(f, ".,;:!?\"'()"))
	})
}
