package agent

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// maxWhNoun is how many words after "which" or "what" may name what a
// question asks for ("which feature type").
const maxWhNoun = 3

// whStops end the noun after "which" or "what": a verb, an article, a
// preposition, a pronoun or a comparison is no part of it ("What is the
// …", "Which of the …", "In which country is …", "visitors below age 30").
var whStops = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true,
	"do": true, "does": true, "did": true, "has": true, "have": true, "had": true,
	"can": true, "could": true, "will": true, "would": true, "should": true, "may": true, "might": true,
	"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "at": true, "for": true,
	"to": true, "from": true, "by": true, "with": true, "that": true, "this": true, "these": true,
	"those": true, "it": true, "its": true, "their": true, "there": true, "one": true, "ones": true,
	"who": true, "whose": true, "which": true, "below": true, "above": true, "under": true, "over": true,
	"than": true, "between": true, "aged": true, "older": true, "younger": true,
}

// whNoun returns the words a question's first "which" or "what" asks for
// ("In which country is the supplier … based?": country; "Which parts
// does …": part), each as words writes it; nil when a verb, an article or
// nothing follows ("What is the name of …").
func whNoun(question string) []string {
	ws := lowerWords(question)
	for i, w := range ws {
		if w == "which" || w == "what" {
			return nounFrom(ws, i+1)
		}
	}
	return nil
}

// nounFrom returns the noun that starts at ws[start]: up to maxWhNoun
// words, to the first of whStops, each as words writes it.
func nounFrom(ws []string, start int) []string {
	var noun []string
	for _, n := range ws[start:min(len(ws), start+maxWhNoun)] {
		if whStops[n] {
			break
		}
		noun = append(noun, n)
	}
	return words(strings.Join(noun, " "))
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
		col, some := oneColumn(columns, func(col string) bool {
			return !identifierName(columnName(col)) && sameWords(columnWords(col), noun[:k])
		})
		if some {
			return col // "" when several fit: none is the one
		}
	}
	return ""
}

// ofNoun returns the noun a question asks for as "What is the X of …"
// ("What is the rating of the supplier of the Carbon frame GV7?":
// rating), when X is no word that names any row's column (name, id,
// code, number, type, title: "What is the name of the supplier …" asks
// for the supplier's name, not the part's); nil otherwise.
func ofNoun(question string) []string {
	ws := lowerWords(question)
	if len(ws) < 5 || ws[0] != "what" || ws[1] != "is" && ws[1] != "are" && ws[1] != "was" && ws[1] != "were" || ws[2] != "the" {
		return nil
	}
	end := slices.Index(ws[3:], "of")
	if end < 1 {
		return nil
	}
	noun := nounFrom(ws[3:3+end], 0)
	if len(noun) == 0 || slices.ContainsFunc(noun, func(w string) bool { return slices.Contains(genericColumnWords, w) }) {
		return nil
	}
	return noun
}

// verbColumn returns the numeric column a question asks for with the
// verb it ends on ("What does the Sport saddle cost?": unit_cost_eur):
// for a question that opens with "what" or "how" and asks with do, does
// or did, the one column whose name's last word but a unit is that verb
// (headColumn); "" when none or several fit.
func verbColumn(question string, columns []string, types map[string]string) string {
	ws := lowerWords(question)
	if len(ws) < 4 || ws[0] != "what" && ws[0] != "how" || !slices.ContainsFunc(ws[1:3], func(w string) bool { return w == "do" || w == "does" || w == "did" }) {
		return ""
	}
	return headColumn(words(ws[len(ws)-1]), columns, types)
}

// answerColumn repairs the column a lookup answers with, by the noun the
// question asks for: "In which country is the supplier of the 48V battery
// pack based?" selected the supplier's name, where the question asks for
// a country. When a plain typed query (no aggregate or grouping) of one
// column has rows and the words after the question's "which" or "what"
// (whNoun) name another column the query's table offers, its own or one
// join away (whColumn), or so do the words of "What is the X of …"
// (ofNoun: "the rating of the supplier of …"), or the verb it ends on
// names a number (verbColumn: "What does the Sport saddle cost?"), or
// the noun names the query's own table ("Which purchase order was
// returned?": its name or key, rowLabel), kgforge runs the query again
// selecting that column, as a step of its
// own (Step.By). A column the query filters on
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
	if col == "" {
		col = whColumn(ofNoun(r.ans.Question), columns)
	}
	if col == "" {
		if _, t := r.queryTable(args); t != nil {
			col = verbColumn(r.ans.Question, columns, t.types)
		}
	}
	if col == "" && whTable(whNoun(r.ans.Question), r.schema) == c.Table {
		col = r.rowLabel(c.Table)
	}
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

// rowLabel returns the column that tells a table's rows apart for a
// reader: its one name column (nameColumn), else its one-column key; ""
// when it has neither.
func (r *run) rowLabel(table string) string {
	dt := r.dataTable(table)
	if dt == nil {
		return ""
	}
	if name := nameColumn(dt, ""); name != "" {
		return name
	}
	if len(dt.PrimaryKeys) == 1 {
		return dt.PrimaryKeys[0]
	}
	return ""
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
	tt := r.schemaTable(target)
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
	dt := r.dataTable(target)
	if dt == nil {
		return nil, "", nil
	}
	label := nameColumn(dt, "")
	if label == "" {
		return nil, "", nil
	}
	return r.rerun(ctx, map[string]any{"table": target, "columns": []string{label}, "where": where})
}

// listToken is a word or a comma of a question, for namedList.
var listToken = regexp.MustCompile(`[\pL\pN]+|,`)

// listJoints may stand between two columns a question lists ("the age
// and hometown", "name, country, age").
var listJoints = map[string]bool{",": true, "and": true, "the": true, "its": true, "their": true}

// namedList returns the longest run of columns the question lists: each
// written by every word of its name (columnWords, in any order), the next
// one after nothing but commas, "and" and articles; nil when no two
// columns stand so.
func namedList(question string, columns []string) []string {
	var toks []string // words as words writes them (short ones as written), commas
	for _, t := range listToken.FindAllString(strings.ToLower(question), -1) {
		if ws := words(t); len(ws) == 1 && !listJoints[t] {
			if long, ok := abbreviations[ws[0]]; ok {
				ws[0] = long
			}
			t = ws[0]
		}
		toks = append(toks, t)
	}
	type at struct {
		col        string
		start, end int
	}
	var spans []at
	for _, col := range columns {
		cw := columnWords(col)
		for s := 0; s+len(cw) <= len(toks) && len(cw) > 0; s++ {
			if sameWords(toks[s:s+len(cw)], cw) && len(uniq(toks[s:s+len(cw)])) == len(uniq(cw)) {
				end := s + len(cw)
				for end < len(toks) && len(toks[end]) < 3 && slices.Contains(nameParts(col), toks[end]) {
					end++ // "supplier id": the short part words leaves out
				}
				spans = append(spans, at{col, s, end})
			}
		}
	}
	slices.SortStableFunc(spans, func(a, b at) int { return a.start - b.start })
	var best []string
	for i := range spans {
		run := []string{spans[i].col}
		for end, j := spans[i].end, i+1; j < len(spans); j++ {
			if spans[j].start < end {
				continue // overlaps the last: "song name" beside "name"
			}
			joint := toks[end:spans[j].start]
			if len(joint) == 0 || !allJoints(joint) || slices.Contains(run, spans[j].col) {
				break
			}
			run, end = append(run, spans[j].col), spans[j].end
		}
		if len(run) > len(best) {
			best = run
		}
	}
	if len(best) < 2 {
		return nil
	}
	return best
}

// nameParts are the lower-case parts of a column's name, short ones
// included ("supplier_id": supplier, id).
func nameParts(col string) []string {
	return strings.FieldsFunc(strings.ToLower(strings.NewReplacer("ID", "_id", "Id", "_id").Replace(columnName(col))), func(r rune) bool { return r == '_' || r == ' ' || r == '-' })
}

func allJoints(ts []string) bool {
	for _, t := range ts {
		if !listJoints[t] {
			return false
		}
	}
	return true
}

// namedSelection repairs the columns of a lookup by the columns the
// question lists: "What is the age and hometown of every teacher?"
// selected Name and Age. When a plain typed query (no aggregate or
// grouping) has rows, the question lists two or more columns of the
// query's own table (namedList: "the age and hometown", "name, country,
// age") — a key (identifierName) only when the question asks for one
// (keyWords), no column the query filters on — and the query selects
// another set of columns, kgforge runs it again selecting the listed
// columns, in the question's order, as a step of its own (Step.By).
// chosen is that query, nil when none.
func (r *run) namedSelection(ctx context.Context, args json.RawMessage, out string) (chosen json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Columns) == 0 || c.Aggregate != nil || len(c.GroupBy) > 0 {
		return nil, "", nil
	}
	keys := asksForKey(r.ans.Question)
	var own []string
	for _, col := range columns {
		filtered := false
		for _, w := range c.Where {
			filtered = filtered || w.Column == col
		}
		if !strings.Contains(col, ".") && !filtered && (keys || !identifierName(col)) {
			own = append(own, col)
		}
	}
	cols := namedList(r.ans.Question, own)
	if cols == nil || len(cols) == len(c.Columns) && allIn(cols, c.Columns) {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["columns"] = cols
	return r.rerun(ctx, m)
}

// countNoun returns the words of what a question counts: the noun after
// "how many", "number of" or "count" (countStart; up to maxWhNoun words,
// to the first verb, article, preposition or pronoun); nil when it counts
// nothing so.
func countNoun(question string) []string {
	ws := lowerWords(question)
	if start := countStart(ws); start >= 0 {
		return nounFrom(ws, start)
	}
	return nil
}

// countStart returns where the counted noun starts after a question's
// first "how many", "number of" or "count" ("count the number of" and
// "count all" included), in its words (lowerWords); -1 when it has none.
func countStart(ws []string) int {
	for i, w := range ws {
		switch {
		case (w == "how" && i+1 < len(ws) && ws[i+1] == "many") || (w == "number" && i+1 < len(ws) && ws[i+1] == "of"):
			return i + 2
		case w == "count":
			start := i + 1
			for start < len(ws) && (ws[start] == "the" || ws[start] == "all") {
				start++
			}
			if start+1 < len(ws) && ws[start] == "number" && ws[start+1] == "of" {
				start += 2
			}
			return start
		}
	}
	return -1
}

// countTable repairs a count of the wrong table's rows: "Count the number
// of poker players." counted the rows of people, where a table of poker
// players exists. When a typed query counts the rows of a whole table (no
// filter, grouping or order) and what the question counts (countNoun)
// names another data table (whTable), kgforge counts that table's rows
// instead, as a step of its own (Step.By). counted is that query, nil
// when none.
func (r *run) countTable(ctx context.Context, args json.RawMessage) (counted json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || c.Aggregate.Fn != "count" || len(c.Where) > 0 || len(c.GroupBy) > 0 || c.OrderBy != nil {
		return nil, "", nil
	}
	target := whTable(countNoun(r.ans.Question), r.schema)
	if target == "" || target == c.Table {
		return nil, "", nil
	}
	tt := r.schemaTable(target)
	if len(tt.columns) == 0 {
		return nil, "", nil
	}
	return r.rerun(ctx, map[string]any{
		"table":     target,
		"aggregate": map[string]any{"fn": "count", "column": tt.columns[0]},
	})
}

// countsRows reports whether a question asks for a number of rows: "how
// many", "number of", "count" (countStart).
func countsRows(question string) bool { return countStart(lowerWords(question)) >= 0 }

// ungroupKey repairs a count per row: "Which suppliers have a rating below
// 4?" written as a count grouped by supplier_id, the table's key, where
// every group is one row and every count 1. When a typed query counts its
// rows grouped by nothing but a candidate key of its own table (unique,
// never empty: kg.Table.PrimaryKeys), and the question asks for no number
// of rows (countsRows), kgforge runs it again as the plain list of that
// column, as a step of its own (Step.By); the key repair after it names
// the rows. listed is that query, nil when none.
func (r *run) ungroupKey(ctx context.Context, args json.RawMessage) (listed json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || c.Aggregate.Fn != "count" || len(c.GroupBy) != 1 || c.Having != nil || countsRows(r.ans.Question) {
		return nil, "", nil
	}
	if dt := r.dataTable(c.Table); dt == nil || !slices.Contains(dt.PrimaryKeys, c.GroupBy[0]) {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	delete(m, "aggregate")
	delete(m, "group_by")
	if o, ok := m["order_by"].(map[string]any); ok && o["column"] == "aggregate" {
		delete(m, "order_by")
	}
	m["columns"] = c.GroupBy
	return r.rerun(ctx, m)
}

// filtersOnKey reports whether a typed query filters with = on its
// table's one-column key.
func (r *run) filtersOnKey(c selectCall) bool {
	dt := r.dataTable(c.Table)
	if dt == nil || len(dt.PrimaryKeys) != 1 {
		return false
	}
	for _, w := range c.Where {
		if w.Column == dt.PrimaryKeys[0] && w.Op == "=" {
			return true
		}
	}
	return false
}

// namesAColumn reports whether a word is a word of the name of one of
// columns (columnWords: "customer" of customer, "supplier" of
// suppliers.name through its table).
func namesAColumn(w string, columns []string) bool {
	return slices.ContainsFunc(columns, func(col string) bool {
		tbl, _, _ := strings.Cut(col, ".")
		return slices.Contains(columnWords(col), w) || strings.Contains(col, ".") && slices.Contains(words(tbl), w)
	})
}

// ungroupNamed repairs an aggregate per group for a question that names
// the group it asks about: "How many parts in the wheels category are
// made in Porto?" written as the count of parts per category, seven
// numbers where one is asked for. When a typed query aggregates rows
// grouped by columns of its own table, without a condition on the groups
// (having), for a question that asks for a number (countsRows, or
// "what is the total, average, …": aggregateWords) of no group in turn
// ("each", "every", "per") and of no order (asksAnOrder), and the
// question writes whole a value of every group column (namedValues, the
// longest), kgforge runs it again filtered on those values (=) with no
// groups, the group columns and any order on the aggregate dropped, as a
// step of its own (Step.By); filterEveryValue then adds any other value
// the question writes. A yes-or-no question's groups are
// filterEveryValue's. ungrouped is that query, nil when none.
func (r *run) ungroupNamed(ctx context.Context, args json.RawMessage) (ungrouped json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || len(c.GroupBy) == 0 || c.Having != nil || yesNoQuestion(r.ans.Question) || asksAnOrder(r.ans.Question) {
		return nil, "", nil
	}
	ws := lowerWords(r.ans.Question)
	if slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(eachGroupWords, w) }) {
		return nil, "", nil
	}
	if !countsRows(r.ans.Question) && !slices.ContainsFunc(ws, func(w string) bool { return aggregateWords[w] != "" }) {
		return nil, "", nil
	}
	named := r.namedValues(c.Table, c.GroupBy)
	var where []any
	for _, g := range c.GroupBy {
		i := slices.IndexFunc(named, func(n linkedFilter) bool { return n.column == g })
		if strings.Contains(g, ".") || i < 0 {
			return nil, "", nil // a group the question does not name
		}
		where = append(where, map[string]any{"column": g, "op": "=", "value": named[i].value})
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	if old, ok := m["where"].([]any); ok {
		where = append(old, where...)
	}
	m["where"] = where
	delete(m, "group_by")
	delete(m, "limit")
	if o, ok := m["order_by"].(map[string]any); ok && o["column"] == "aggregate" {
		delete(m, "order_by")
	}
	if cols := slices.DeleteFunc(slices.Clone(c.Columns), func(col string) bool { return slices.Contains(c.GroupBy, col) }); len(cols) > 0 {
		m["columns"] = cols
	} else {
		delete(m, "columns")
	}
	return r.rerun(ctx, m)
}

// amountWords name an amount a row holds rather than rows ("How many
// units did … order?"), and amountColumnWords the last word of a column
// that holds one (quantity, qty, planned_units; not unit_cost_eur).
var (
	amountWords       = []string{"unit", "piece", "item"}
	amountColumnWords = []string{"quantity", "unit", "piece", "item"}
)

// totalWords are words of a column's name that say it holds a number of
// things, not what they are ("Total_Horses", "Number_of_products").
var totalWords = []string{"total", "number"}

// countedColumn returns the one numeric column of columns, the table's
// own and no key (identifierName), that the counted noun names: a column
// whose words but totalWords are the noun's last words ("horses" names
// Total_Horses, "scrap units" names units), else, when the noun ends in
// an amount word (amountWords), the one column that holds an amount
// (amountColumnWords: "units" names quantity); "" when none or several
// fit.
func countedColumn(noun, columns []string, types map[string]string) string {
	if len(noun) == 0 {
		return ""
	}
	var named, amounts []string
	for _, col := range columns {
		if strings.Contains(col, ".") || identifierName(columnName(col)) || !numericType(types[col]) {
			continue
		}
		cw := slices.DeleteFunc(columnWords(col), func(w string) bool { return slices.Contains(totalWords, w) })
		if len(cw) > 0 && len(cw) <= len(noun) && sameWords(cw, noun[len(noun)-len(cw):]) {
			named = append(named, col)
		}
		if len(cw) > 0 && slices.Contains(amountColumnWords, cw[len(cw)-1]) {
			amounts = append(amounts, col)
		}
	}
	switch {
	case len(named) == 1:
		return named[0]
	case len(named) == 0 && len(amounts) == 1 && slices.Contains(amountWords, noun[len(noun)-1]):
		return amounts[0]
	}
	return ""
}

// sumCounted repairs a count of rows for a question that counts an
// amount the rows hold: "How many scrap units were recorded in total?"
// counted the scrap records (4) where their units add up to 19. When a
// typed query counts rows (fn count) and what the question counts
// (countNoun) names no data table (whTable) but one numeric column of the
// query's table (countedColumn), or, for a question that writes "total"
// or a query that filters on the table's key (filtersOnKey: one row, whose
// count is no answer), names no column at all and the table has one
// amount column ("How many bicycles did Pedal & Co order in total?",
// "How many bicycles were in order O-1025?": quantity), kgforge runs it again as the sum of that
// column — its filters and groups kept — as a step of its own (Step.By).
// A question that counts "different" or "distinct" things counts rows.
// summed is that query, nil when none.
func (r *run) sumCounted(ctx context.Context, args json.RawMessage) (summed json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || c.Aggregate.Fn != "count" {
		return nil, "", nil
	}
	ws := lowerWords(r.ans.Question)
	if slices.Contains(ws, "different") || slices.Contains(ws, "distinct") {
		return nil, "", nil
	}
	noun := countNoun(r.ans.Question)
	if whTable(noun, r.schema) != "" {
		return nil, "", nil
	}
	col := countedColumn(noun, t.columns, t.types)
	if col == "" && (slices.Contains(ws, "total") || r.filtersOnKey(c)) && len(noun) > 0 && !namesAColumn(noun[len(noun)-1], t.columns) {
		// "How many bicycles did Pedal & Co order in total?": things no
		// table or column is named for, counted "in total"
		col = countedColumn(append(slices.Clone(noun), amountWords[0]), t.columns, t.types)
	}
	if col == "" {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["aggregate"] = map[string]any{"fn": "sum", "column": col}
	return r.rerun(ctx, m)
}

// valueTable repairs an aggregate over a table that cannot hold the value
// the question names: "How many units of the City 300 were ordered in
// total?" counted the scrap records, and no column of production_plan_scrap
// holds "City 300". When a typed query counts (or sums, averages, takes
// the maximum or minimum of) rows, counts no table the question counts
// by name (countNoun, whTable), and the question writes whole a value
// that a column of another data table holds and no column its table
// offers (value linking: "2025-W15", filtered on part_id of
// production_plan_scrap, is a week of the production plan; "Brno", which
// a joined part's plant holds, does not keep the query where it is),
// kgforge runs the aggregate on that other table filtered on that value
// (=), as a step of its own (Step.By): a count counts its rows, another
// aggregate takes the column the question names after its aggregate word
// (namedAfter). When several tables hold the value, the one whose name's
// words begin words of the question ("ordered" for orders, "planned" for
// production_plan_plan) is taken, and none when that leaves more than one.
// The repairs after it (sumCounted, aggregateColumn, …) look at its
// result. moved is that query, nil when none.
func (r *run) valueTable(ctx context.Context, args json.RawMessage) (moved json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || len(c.GroupBy) > 0 || c.Having != nil {
		return nil, "", nil
	}
	if whTable(countNoun(r.ans.Question), r.schema) == c.Table {
		return nil, "", nil
	}
	here := r.namedValues(c.Table, t.columns)
	type cell struct{ table, column, value string }
	var cells []cell
	for _, st := range r.schema {
		if st.name == c.Table {
			continue
		}
		var own []string
		for _, col := range st.columns {
			if !strings.Contains(col, ".") {
				own = append(own, col)
			}
		}
		for _, n := range r.namedValues(st.name, own) {
			if !slices.ContainsFunc(here, func(h linkedFilter) bool { return strings.EqualFold(h.value, n.value) }) {
				cells = append(cells, cell{st.name, n.column, n.value}) // the query's table cannot filter on it
			}
		}
	}
	if len(cells) == 0 {
		return nil, "", nil
	}
	slices.SortStableFunc(cells, func(a, b cell) int { return len(b.value) - len(a.value) })
	var fit []cell
	for _, x := range cells {
		if strings.EqualFold(x.value, cells[0].value) && !slices.ContainsFunc(fit, func(f cell) bool { return f.table == x.table }) {
			fit = append(fit, x)
		}
	}
	if len(fit) > 1 {
		qw := lowerWords(r.ans.Question)
		fit = slices.DeleteFunc(fit, func(x cell) bool {
			return !slices.ContainsFunc(words(x.table), func(tw string) bool {
				return len(tw) >= 4 && slices.ContainsFunc(qw, func(w string) bool { return strings.HasPrefix(w, tw) })
			})
		})
	}
	if len(fit) != 1 {
		return nil, "", nil
	}
	target := r.schemaTable(fit[0].table)
	if target == nil || len(target.columns) == 0 {
		return nil, "", nil
	}
	agg := map[string]any{"fn": c.Aggregate.Fn, "column": target.columns[0]}
	if c.Aggregate.Fn != "count" {
		col, fn := namedAfter(r.ans.Question, target.columns, target.types, func(w string) string { return aggregateWords[w] })
		if col == "" || fn != c.Aggregate.Fn {
			return nil, "", nil
		}
		agg["column"] = col
	}
	return r.rerun(ctx, map[string]any{
		"table":     fit[0].table,
		"where":     []map[string]string{{"column": fit[0].column, "op": "=", "value": fit[0].value}},
		"aggregate": agg,
	})
}

// countRows repairs a lookup for a question that asks how many rows:
// "How many suppliers are based in Portugal?" listed the names of the
// Portuguese suppliers. When a plain typed query (no aggregate or group)
// selects no number other than a key, and what the question counts
// (countNoun) names the query's own table (whTable), kgforge runs it
// again as the count of its rows — its filters kept, its order and cut
// dropped — as a step of its own (Step.By). A lookup of a number ("How
// many seats does the arena have?" selecting Capacity) stands. counted
// is that query, nil when none.
func (r *run) countRows(ctx context.Context, args json.RawMessage) (counted json.RawMessage, result string, err error) {
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate != nil || len(c.GroupBy) > 0 || len(t.columns) == 0 {
		return nil, "", nil
	}
	if whTable(countNoun(r.ans.Question), r.schema) != c.Table {
		return nil, "", nil
	}
	dt := r.dataTable(c.Table)
	for _, col := range c.Columns {
		if numericType(t.types[col]) && !identifierName(columnName(col)) && (dt == nil || !slices.Contains(dt.PrimaryKeys, col)) {
			return nil, "", nil
		}
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	asCount(m, t.columns[0])
	return r.rerun(ctx, m)
}

// kindFilter repairs a query over every row for a question that names a
// kind of thing by a word its names share: "Which wheelset is the
// cheapest?" ranked every part, where three parts' names end in
// "wheelset". When a typed query (no groups) does not filter on a text
// column of its own table of which two values linked to the question or
// more hold a content word of the question as a word of their own
// (questionWords; value linking), that word names no table and no column
// the query's table offers (namesAColumn), and no value the question
// writes whole holds it, and exactly one such column and word fit,
// kgforge runs the query again with that column containing the word
// (contains), as a step of its own (Step.By), and takes the result when
// rows match (rerunMatching); a lookup of one column the question does
// not name selects that column instead ("What is the cheapest frame?"
// selected the category). filtered is that query, nil when none.
func (r *run) kindFilter(ctx context.Context, args json.RawMessage, out string) (filtered json.RawMessage, result string, err error) {
	if _, _, isRows := ResultRows(out); !isRows {
		return nil, "", nil
	}
	c, t := r.queryTable(args)
	if t == nil || len(c.GroupBy) > 0 {
		return nil, "", nil
	}
	onColumn := map[string]bool{}
	for _, w := range c.Where {
		onColumn[w.Column] = true
	}
	whole := r.writtenValues()
	tableWords := words(c.Table)
	type kind struct{ column, word string }
	var fit []kind
	for _, w := range questionWords(r.ans.Question) {
		if slices.Contains(tableWords, w) || namesAColumn(w, t.columns) || slices.ContainsFunc(whole, func(v string) bool { return slices.Contains(words(v), w) }) {
			continue
		}
		for _, col := range t.columns {
			if strings.Contains(col, ".") || onColumn[col] || numericType(t.types[col]) || dateType(t.types[col]) {
				continue
			}
			n := 0
			for _, v := range r.linkedOf(c.Table, col) {
				if slices.Contains(words(v), w) {
					n++
				}
			}
			if n >= 2 {
				fit = append(fit, kind{col, w})
			}
		}
	}
	if len(fit) != 1 {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	where, _ := m["where"].([]any)
	m["where"] = append(where, map[string]any{"column": fit[0].column, "op": "contains", "value": fit[0].word})
	if c.Aggregate == nil && len(c.Columns) == 1 && c.Columns[0] != fit[0].column && !questionNames(r.ans.Question, c.Columns[0]) {
		m["columns"] = []string{fit[0].column} // "What is the cheapest frame?" selected the category
	}
	return r.rerunMatching(ctx, m)
}
