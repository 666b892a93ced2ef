package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"kgforge/kg"
)

// maxWhNoun is how many words after "which" or "what" may name what a
// question asks for ("which feature type").
const maxWhNoun = 3

// whStops end the noun after "which" or "what": a verb, an article, a
// preposition or a pronoun is no part of it ("What is the …", "Which of
// the …", "In which country is …").
var whStops = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true,
	"do": true, "does": true, "did": true, "has": true, "have": true, "had": true,
	"can": true, "could": true, "will": true, "would": true, "should": true, "may": true, "might": true,
	"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "at": true, "for": true,
	"to": true, "from": true, "by": true, "with": true, "that": true, "this": true, "these": true,
	"those": true, "it": true, "its": true, "their": true, "there": true, "one": true, "ones": true,
}

// whNoun returns the words a question's first "which" or "what" asks for
// ("In which country is the supplier … based?": country; "Which parts
// does …": part), each as words writes it; nil when a verb, an article or
// nothing follows ("What is the name of …").
func whNoun(question string) []string {
	ws := lowerWords(question)
	for i, w := range ws {
		if w != "which" && w != "what" {
			continue
		}
		var noun []string
		for _, n := range ws[i+1 : min(len(ws), i+1+maxWhNoun)] {
			if whStops[n] {
				break
			}
			noun = append(noun, n)
		}
		return words(strings.Join(noun, " "))
	}
	return nil
}

// sameWords reports whether a and b hold the same words, in any order.
func sameWords(a, b []string) bool {
	a, b = uniq(a), uniq(b)
	return len(a) > 0 && len(a) == len(b) && allIn(a, b)
}

// whColumn returns the one column of columns whose name's words are the
// noun's first k words, for the longest k that names one: the table's own
// column before a joined one; "" when none or several fit. A key
// (identifierName: "part_id" for "which part") is no answer to "which".
func whColumn(noun, columns []string) string {
	for k := len(noun); k > 0; k-- {
		var own, joined []string
		for _, col := range columns {
			if identifierName(columnName(col)) || !sameWords(columnWords(col), noun[:k]) {
				continue
			}
			if strings.Contains(col, ".") {
				joined = append(joined, col)
			} else {
				own = append(own, col)
			}
		}
		switch {
		case len(own) == 1:
			return own[0]
		case len(own) == 0 && len(joined) == 1:
			return joined[0]
		case len(own)+len(joined) > 0:
			return "" // several columns fit: none is the one
		}
	}
	return ""
}

// answerColumn repairs the column a lookup answers with, by the noun the
// question asks for: "In which country is the supplier of the 48V battery
// pack based?" selected the supplier's name, where the question asks for
// a country. When a plain typed query (no aggregate or grouping) of one
// column has rows and the words after the question's "which" or "what"
// (whNoun) name another column the query's table offers, its own or one
// join away (whColumn), kgforge runs the query again selecting that
// column, as a step of its own (Step.By). A column the query filters on
// with = is not taken (its value is in the question already). chosen is
// that query, nil when none.
func (r *run) answerColumn(ctx context.Context, args json.RawMessage, out string) (chosen json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Columns) != 1 || c.Aggregate != nil || len(c.GroupBy) > 0 {
		return nil, "", nil
	}
	col := whColumn(whNoun(r.ans.Question), columns)
	if col == "" || col == c.Columns[0] {
		return nil, "", nil
	}
	for _, w := range c.Where {
		if w.Column == col && w.Op == "=" {
			return nil, "", nil
		}
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["columns"] = []string{col}
	return r.rerun(ctx, m)
}

// whTable returns the one data table of tables whose name ends in the
// noun's words (the noun "part" names "parts", "purchase order" names
// "purchasing_purchase_orders"), a table named by them whole before one
// that only ends in them; "" when none or several fit.
func whTable(noun []string, tables []selectTable) string {
	if len(noun) == 0 {
		return ""
	}
	var whole, ending []string
	for _, t := range tables {
		tw := words(t.name)
		switch {
		case sameWords(tw, noun):
			whole = append(whole, t.name)
		case len(tw) > len(noun) && slices.Equal(tw[len(tw)-len(noun):], noun):
			ending = append(ending, t.name)
		}
	}
	if len(whole) == 1 {
		return whole[0]
	}
	if len(whole) == 0 && len(ending) == 1 {
		return ending[0]
	}
	return ""
}

// answerTable repairs a lookup on the table the question's condition is
// about where it asks for rows of another: "Which parts does the supplier
// from Spain supply?" selected the names of suppliers whose country is
// Spain. When a plain typed query (no aggregate, grouping or order) of one
// column has filters, and the noun after the question's "which" or
// "what" (whNoun) names another data table (whTable) one join away whose
// view offers every filter's column, kgforge runs the query on that
// table instead — its name column (nameColumn), the same filters seen
// through the join — as a step of its own (Step.By). A query that already
// selects a column of that table is left alone. chosen is that query, nil
// when none.
func (r *run) answerTable(ctx context.Context, args json.RawMessage, out string) (chosen json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 {
		return nil, "", nil
	}
	c, t := r.queryTable(args)
	if t == nil || len(c.Columns) != 1 || len(c.Where) == 0 || c.Aggregate != nil || len(c.GroupBy) > 0 || c.OrderBy != nil {
		return nil, "", nil
	}
	target := whTable(whNoun(r.ans.Question), r.schema)
	if target == "" || target == c.Table || strings.HasPrefix(c.Columns[0], target+".") {
		return nil, "", nil
	}
	ti := slices.IndexFunc(r.schema, func(st selectTable) bool { return st.name == target })
	tt := &r.schema[ti]
	if _, joined := tt.joins[c.Table]; !joined {
		return nil, "", nil
	}
	// A column as the target's view names it: the query table's own
	// columns through the join, the target's own without its table.
	seen := func(col string) (string, bool) {
		name := c.Table + "." + col
		if tbl, own, isJoined := strings.Cut(col, "."); isJoined {
			name = col
			if tbl == target {
				name = own
			}
		}
		return name, slices.Contains(tt.columns, name)
	}
	var where []map[string]string
	for _, w := range c.Where {
		col, ok := seen(w.Column)
		if !ok {
			return nil, "", nil
		}
		where = append(where, map[string]string{"column": col, "op": w.Op, "value": w.Value})
	}
	data, err := r.dataTables()
	if err != nil {
		return nil, "", nil
	}
	di := slices.IndexFunc(data, func(d kg.Table) bool { return d.Name == target })
	if di < 0 {
		return nil, "", nil
	}
	label := nameColumn(&data[di], "")
	if label == "" {
		return nil, "", nil
	}
	return r.rerun(ctx, map[string]any{"table": target, "columns": []string{label}, "where": where})
}

// namedSelection repairs the columns of a lookup by the columns the
// question lists: "What is the age and hometown of every teacher?"
// selected Name and Age. When a plain typed query (no aggregate or
// grouping) has rows and the question names by every word of their names
// (namedColumns) at least two columns of the query's own table — a key
// (identifierName) only when the question asks for one (keyWords), not a
// column the query filters on, not one named only by the table's own noun,
// and not one whose words are part of another named column's ("name"
// beside "song name") — and the query selects another set of columns,
// kgforge runs it again selecting those columns, in the order the question
// names them, as a step of its own (Step.By). chosen is that query, nil
// when none.
func (r *run) namedSelection(ctx context.Context, args json.RawMessage, out string) (chosen json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Columns) == 0 || c.Aggregate != nil || len(c.GroupBy) > 0 {
		return nil, "", nil
	}
	qw := lowerWords(r.ans.Question)
	keys := slices.ContainsFunc(qw, func(w string) bool { return slices.Contains(keyWords, w) })
	tableWords := uniq(words(c.Table))
	var named []string
	for _, col := range namedColumns(r.ans.Question, columns) {
		filtered := false
		for _, w := range c.Where {
			filtered = filtered || w.Column == col
		}
		key := identifierName(col)
		if strings.Contains(col, ".") || filtered || key && !keys || !key && allIn(columnWords(col), tableWords) {
			continue
		}
		named = append(named, col)
	}
	var cols []string
	for _, col := range named {
		cw := uniq(columnWords(col))
		if !slices.ContainsFunc(named, func(o string) bool { ow := uniq(columnWords(o)); return len(ow) > len(cw) && allIn(cw, ow) }) {
			cols = append(cols, col)
		}
	}
	if len(cols) < 2 || len(cols) == len(c.Columns) && allIn(cols, c.Columns) {
		return nil, "", nil
	}
	ws := words(r.ans.Question)
	first := func(col string) int {
		at := len(ws)
		for _, w := range columnWords(col) {
			if i := slices.Index(ws, w); i >= 0 {
				at = min(at, i)
			}
		}
		return at
	}
	slices.SortStableFunc(cols, func(a, b string) int { return first(a) - first(b) })
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["columns"] = cols
	return r.rerun(ctx, m)
}
