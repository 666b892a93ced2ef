package agent

import (
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
