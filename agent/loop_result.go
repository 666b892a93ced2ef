package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
)

// StepByKgforge marks a call kgforge wrote (Step.By).
const StepByKgforge = "kgforge"

// maxResultCitations bounds the rows an answer written from a result cites.
const maxResultCitations = 10

// resultAnswer ends the question of kgforge's action model with the
// result of its typed query: the model was trained to query once and then
// answer with the result's values, so kgforge writes that answer itself
// (ResultAnswerText) instead of having the model copy the values, which a
// 270M model does with typos ("Kaeercy" for "Kearsley") that the answer's
// grounding refuses. A result of the queried table's rows (no aggregate
// or group) cites them by the table's key (rowCitations). The confidence
// is the model's own certainty of its query: the probability of the least
// likely token of its reply (0 when the server gave none), as the model
// gave it before the grammar masked its choice, so a token the grammar
// forced on it counts as the doubt it was. The answer goes through the
// answer tool like any answer (its citations checked and completed); a
// result cut at its row limit is left to the model, as is an answer the
// tool refuses. done reports whether the question ended.
func (r *run) resultAnswer(ctx context.Context, args json.RawMessage, out string) (done bool, err error) {
	header, rows, ok := ResultRows(out)
	if !ok {
		return false, nil
	}
	aa := AnswerArgs{Answer: ResultAnswerText(rows), Confidence: leastProbability(r.logprobs)}
	var c selectCall
	parsed := json.Unmarshal(args, &c) == nil
	if parsed && emptyAggregate(c, rows) {
		aa.Answer = ResultAnswerText(nil) // a sum or an average of no rows is NULL: say that none matched
	}
	cite := parsed && c.Aggregate == nil && len(c.GroupBy) == 0 && len(rows) > 0 // the rows of a plain lookup
	if parsed {
		if both, ok, err := r.aggregatesAnswer(ctx, args, rows); err != nil {
			return false, err
		} else if ok {
			aa.Answer, cite = both, false // aggregates of the rows, not the rows
		}
	}
	if parsed && asksShare(r.ans.Question) {
		if share, ok, err := r.shareAnswer(ctx, args, rows); err != nil {
			return false, err
		} else if ok {
			aa.Answer = share
		}
	}
	if parsed && yesNoQuestion(r.ans.Question) {
		if v := r.yesNo(c, header, rows); v != "" {
			aa.Answer = v + ": " + aa.Answer // the verdict first, then what it rests on
		}
	}
	if cite {
		if aa.Citations, err = r.rowCitations(ctx, c.Table, args, header, rows); err != nil {
			return false, err
		}
	}
	done, err = r.answerWith(ctx, aa)
	if err == nil && !done && len(aa.Citations) > 0 {
		aa.Citations = nil // a row the tool cannot find: cite nothing rather than a row it refuses
		done, err = r.answerWith(ctx, aa)
	}
	return done, err
}

// answerWith ends the question with an answer kgforge wrote, through the
// answer tool's checks (its citations checked and completed) as a step of
// its own; done is false when the tool refused it.
func (r *run) answerWith(ctx context.Context, aa AnswerArgs) (done bool, err error) {
	raw, err := json.Marshal(aa)
	if err != nil {
		return false, err
	}
	res, err := r.a.tools.Call(ctx, ToolAnswer, raw)
	if ce := (*CallError)(nil); errors.As(err, &ce) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	var checked AnswerArgs
	if json.Unmarshal([]byte(res), &checked) != nil || checked.Answer == "" {
		checked = aa
	}
	r.ans.Text, r.ans.Citations, r.ans.Confidence, r.ans.Answered = checked.Answer, checked.Citations, checked.Confidence, true
	r.record(Step{Tool: ToolAnswer, Args: raw, By: StepByKgforge})
	return true, nil
}

// emptyAggregate says whether a result is one aggregate other than a
// count, without groups, over no row: SQL's NULL, which an answer reads
// as "No rows match." (a count of none is 0, an answer in itself).
func emptyAggregate(c selectCall, rows [][]string) bool {
	return c.Aggregate != nil && c.Aggregate.Fn != "count" && c.Aggregate.Fn != "count_distinct" && len(c.GroupBy) == 0 &&
		len(rows) == 1 && len(rows[0]) == 1 && rows[0][0] == "NULL"
}

// dataTables returns the bundle's data tables, read once a question: the
// repairs and the citations of one select each look at them, and the
// bundle does not change under a question.
func (r *run) dataTables() ([]kg.Table, error) {
	if r.data == nil {
		data, err := r.a.tools.b.Tables()
		if err != nil {
			return nil, err
		}
		r.data = data
	}
	return r.data, nil
}

// rowCitations cites the rows of a result of table by the table's key:
// {"kind":"row","id":KEY,"table":TABLE} per distinct key, at most
// maxResultCitations. When the result does not show the key, the same
// query is run again with the key as its first column (not a step of the
// model's: kgforge's own look-up, in the same sandbox) and those rows are
// cited. nil when the table has no key or that query fails.
func (r *run) rowCitations(ctx context.Context, table string, args json.RawMessage, header []string, rows [][]string) ([]Citation, error) {
	t := r.dataTable(table)
	if t == nil || len(t.PrimaryKeys) == 0 {
		return nil, nil
	}
	col := slices.IndexFunc(header, func(h string) bool { return slices.Contains(t.PrimaryKeys, h) })
	if col < 0 {
		var m map[string]any
		if json.Unmarshal(args, &m) != nil {
			return nil, nil
		}
		key := t.PrimaryKeys[0]
		cols, _ := m["columns"].([]any)
		m["columns"] = append([]any{key}, cols...)
		again, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		out, err := r.a.tools.Call(ctx, ToolSelect, again)
		if ce := (*CallError)(nil); errors.As(err, &ce) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		var ok bool
		if header, rows, ok = ResultRows(out); !ok || len(header) == 0 || header[0] != key {
			return nil, nil
		}
		col = 0
	}
	var cites []Citation
	for _, row := range rows {
		if len(cites) == maxResultCitations {
			break
		}
		if col < len(row) && row[col] != "" && !slices.ContainsFunc(cites, func(c Citation) bool { return c.ID == row[col] }) {
			cites = append(cites, Citation{Kind: "row", ID: row[col], Table: table})
		}
	}
	return cites, nil
}

// leastProbability is the least of the probabilities whose logs are lps;
// 0 for none.
func leastProbability(lps []float64) float64 {
	if len(lps) == 0 {
		return 0
	}
	return math.Exp(slices.Min(lps))
}

// ResultRows reads the text of a select or query result: the header, then
// one row a line with its cells apart by tabs. ok is false when the result
// was cut at its row limit (a line "… (first N rows; …)") or has no header.
func ResultRows(out string) (header []string, rows [][]string, ok bool) {
	lines := strings.Split(out, "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil, nil, false
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "… (") {
			return nil, nil, false
		}
		rows = append(rows, strings.Split(l, "\t"))
	}
	return strings.Split(lines[0], "\t"), rows, true
}

// ResultAnswerText writes result rows as an answer: one value as it is,
// one column as a list apart by ", ", rows of several columns apart by
// "; " with their cells apart by ", "; "No rows match." for none. A row
// that repeats an earlier one is written once ("Kestrel Alloys", not
// three times for the three parts it supplies); the citations still name
// every row. Every word is the result's, so the answer is grounded.
func ResultAnswerText(rows [][]string) string {
	if len(rows) == 0 {
		return "No rows match."
	}
	parts := make([]string, 0, len(rows))
	for _, r := range rows {
		if p := strings.Join(r, ", "); !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	if len(rows[0]) == 1 {
		return strings.Join(parts, ", ")
	}
	return strings.Join(parts, "; ")
}

// maxFilterMoves bounds the queries moveFilter (or addFilter) runs for one
// result.
const maxFilterMoves = 3

// moveFilter repairs the action model's most frequent wrong queries, whose
// filters match no row (noRowsMatched: no rows, or an aggregate of 0 or
// NULL): the value the question names filtered on another column
// than the one that holds it ("Spain" on supplier_id), or a filter whose
// value the question does not name at all, copied from the listing's
// samples ("Argentina" for "Which country is Kaiga-4 built in?"). When
// the typed query's filters match no row, kgforge runs it again with an
// = filter whose value is part of a linked value of its own column as
// contains ("Eden Street" for "On or near Eden Street"); failing that,
// with a filter (= or contains) moved to another column the query's table offers
// (its own or a joined table's) whose linked values (linkValues) hold the
// filter's value; failing that, with a filter whose value the question
// does not write replaced by a linked value the question writes whole,
// on that value's column, the longest first. Each try is a step of its
// own (Step.By); the first result that matches rows is taken. A query
// that failed on a value its column cannot hold ("Pedal & Co" compared
// with a date) comes here as one that matched nothing. moved is the query
// kgforge ran, nil when nothing was moved; result is its result.
func (r *run) moveFilter(ctx context.Context, args json.RawMessage, out string) (moved json.RawMessage, result string, err error) {
	_, rows, isRows := ResultRows(out)
	if !isRows || len(r.linked) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Where) == 0 || !noRowsMatched(c, rows) {
		return nil, "", nil
	}
	type rewrite struct {
		i int // the filter rewritten
		linkedFilter
		op string // "" keeps the filter's own (but see below)
	}
	var tries []rewrite
	for i, w := range c.Where {
		if w.Op != "=" && w.Op != "contains" || strings.TrimSpace(w.Value) == "" {
			continue
		}
		// Part of a value its own column holds ("Eden Street" for "On or
		// near Eden Street"): the same filter as contains.
		if own := r.linkedOf(c.Table, w.Column); w.Op == "=" {
			if _, equal := linkedMatch(own, "=", w.Value); !equal {
				if _, part := linkedMatch(own, "contains", w.Value); part {
					tries = append(tries, rewrite{i, linkedFilter{w.Column, w.Value}, "contains"})
				}
			}
		}
		for _, col := range columns {
			if col == w.Column {
				continue
			}
			if value, found := linkedMatch(r.linkedOf(c.Table, col), w.Op, w.Value); found {
				tries = append(tries, rewrite{i, linkedFilter{col, value}, ""})
			}
		}
	}
	whole := r.namedValues(c.Table, columns)
	var named []rewrite
	for i, w := range c.Where {
		if w.Op != "=" && w.Op != "contains" || namedWhole(r.ans.Question, w.Value) {
			continue
		}
		for _, f := range whole {
			if f.column != w.Column || !strings.EqualFold(f.value, w.Value) {
				named = append(named, rewrite{i, f, ""})
			}
		}
	}
	slices.SortStableFunc(named, func(a, b rewrite) int { return len(b.value) - len(a.value) })
	tries = append(tries, named...)
	for _, t := range tries[:min(len(tries), maxFilterMoves)] {
		op := t.op // "": the filter's own
		if w := c.Where[t.i]; op == "" && w.Op == "contains" && !strings.EqualFold(t.value, w.Value) {
			op = "="
		}
		m, ok := withFilter(args, t.i, t.column, op, t.value)
		if !ok {
			return nil, "", nil
		}
		if raw, res, err := r.rerunMatching(ctx, m); err != nil || raw != nil {
			return raw, res, err
		}
	}
	return nil, "", nil
}

// noRowsMatched reports whether a typed query's result rows say that its
// filters matched no row: none, or one aggregate without groups that came
// back 0 or NULL (a count or a maximum over nothing: "How many makers are
// in France?" with Country, a key, = 'France').
func noRowsMatched(c selectCall, rows [][]string) bool {
	if len(rows) == 0 {
		return true
	}
	if c.Aggregate == nil || len(c.GroupBy) > 0 || len(rows) != 1 || len(rows[0]) == 0 {
		return false
	}
	switch strings.TrimSpace(rows[0][len(rows[0])-1]) {
	case "0", "NULL", "":
		return true
	}
	return false
}

// addFilter repairs the action model's other frequent wrong query: an
// aggregate over a whole table ("How many PHWR are there today?" counted
// every row), or a lookup of every row ("Which products has Urbanmove
// Rentals ordered?" took the product of the largest order), although the
// question names a value of one of its columns. When the typed query has
// no filter or grouping and the question writes whole a value linked to a
// column the query's table offers (linkValues) — for a lookup, a column
// it does not select — kgforge runs the query again filtered on that
// value, the longest such value first, as a step of its own (Step.By),
// and takes that result when it has rows. A lookup keeps the question's
// "not" (!=), and loses an order and cut the question does not ask for.
// added is the query kgforge ran, nil when none; result is its result.
func (r *run) addFilter(ctx context.Context, args json.RawMessage, out string) (added json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 || len(r.linked) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Where) > 0 || len(c.GroupBy) > 0 || c.Aggregate == nil && len(c.Columns) == 0 {
		return nil, "", nil
	}
	named := r.namedValues(c.Table, columns)
	tries := 0
	for _, f := range named {
		op := "="
		if c.Aggregate == nil {
			// A lookup: the value's own column answers nothing, and the
			// question's comparator ("not from Russia") is the filter's.
			if slices.Contains(c.Columns, f.column) {
				continue
			}
			if qop, ok := questionOp(r.ans.Question, f.value); ok && (qop == "=" || qop == "!=") {
				op = qop
			}
		}
		if tries++; tries > maxFilterMoves {
			break
		}
		var m map[string]any
		if json.Unmarshal(args, &m) != nil {
			return nil, "", nil
		}
		m["where"] = []any{map[string]any{"column": f.column, "op": op, "value": f.value}}
		if c.Aggregate == nil && !asksAnOrder(r.ans.Question) {
			delete(m, "order_by") // the model's order and cut answered for a value it did not filter on
			delete(m, "limit")
		}
		if raw, res, err := r.rerun(ctx, m); err != nil || raw != nil {
			return raw, res, err
		}
	}
	return nil, "", nil
}

// groundFilter repairs a query whose rows answer another question: a
// filter (= or contains) on a value that neither the question writes
// (namedWhole) nor an earlier result held, copied from the listing's
// samples, while the question names a value of a column the query's
// table offers ("Which supplier supplies the battery pack?" filtered on
// supplier_id = S001, the first sample, and got Kestrel's rows; the
// question names "48V battery pack" of parts.name). When such a filter's
// result has rows, kgforge runs the query again with that filter replaced
// by a linked value (linkValues) of a column the table offers that the
// question writes whole or shares at least minGroundWords words with,
// in linkValues' order (whole first, then the most words shared), as a
// step of its own (Step.By), and takes the first result with rows. A
// value the model took from an earlier result (an id it looked up) or the
// question is left alone. grounded is the query kgforge ran, nil when
// none; result is its result.
func (r *run) groundFilter(ctx context.Context, args json.RawMessage, out string) (grounded json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 || len(r.linked) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil {
		return nil, "", nil
	}
	named := r.mentionedValues(c.Table, columns)
	if len(named) == 0 {
		return nil, "", nil
	}
	tries := 0
	for i, w := range c.Where {
		if w.Op != "=" && w.Op != "contains" || strings.TrimSpace(w.Value) == "" || r.groundedValue(w.Value) {
			continue
		}
		for _, f := range named {
			if f.column == w.Column && strings.EqualFold(f.value, w.Value) {
				continue
			}
			if tries++; tries > maxFilterMoves {
				return nil, "", nil
			}
			m, ok := withFilter(args, i, f.column, "=", f.value)
			if !ok {
				return nil, "", nil
			}
			dedupeFilters(m) // a value the query filters on already: the ungrounded filter goes
			if raw, res, err := r.rerun(ctx, m); err != nil || raw != nil {
				return raw, res, err
			}
		}
	}
	return nil, "", nil
}

// dropShape drops what shapes a typed query's rows, decoded as a map —
// its columns, order and cut — keeping its table, filters and groups.
func dropShape(m map[string]any) {
	for _, k := range []string{"columns", "order_by", "limit"} {
		delete(m, k)
	}
}

// asCount turns a typed query decoded as a map into the count of its rows
// on column: its filters kept, its columns, order and cut dropped.
func asCount(m map[string]any, column string) {
	dropShape(m)
	m["aggregate"] = map[string]any{"fn": "count", "column": column}
}

// dedupeFilters drops the filters of a typed query decoded as a map that
// repeat an earlier one (column, operator and value, case folded).
func dedupeFilters(m map[string]any) {
	where, _ := m["where"].([]any)
	var out []any
	seen := map[string]bool{}
	for _, f := range where {
		fm, _ := f.(map[string]any)
		key := strings.ToLower(fmt.Sprint(fm["column"], "\x00", fm["op"], "\x00", fm["value"]))
		if fm != nil && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, f)
	}
	if len(out) < len(where) {
		m["where"] = out
	}
}

// mentionedValues returns the values linked to the question (linkedOf) in
// the columns the query's table offers that the question writes whole
// (namedWhole) or shares at least minGroundWords words with, in
// linkValues' order by column.
func (r *run) mentionedValues(table string, columns []string) []linkedFilter {
	var named []linkedFilter
	qw := uniq(words(r.ans.Question))
	for _, col := range columns {
		for _, v := range r.linkedOf(table, col) {
			if sharedWords(qw, v) >= minGroundWords || namedWhole(r.ans.Question, v) {
				named = append(named, linkedFilter{col, v})
			}
		}
	}
	return named
}

// withFilter returns the typed query args with its filter i set to
// column, op and value (op "" keeps the filter's own), for a repair to run
// again; false when args holds no such filter.
func withFilter(args json.RawMessage, i int, column, op, value string) (map[string]any, bool) {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, false
	}
	f := filterAt(m, i)
	if f == nil {
		return nil, false
	}
	f["column"], f["value"] = column, value
	if op != "" {
		f["op"] = op
	}
	return m, true
}

// filterAt returns filter i of a typed query decoded as a map, nil when
// it has no such filter.
func filterAt(m map[string]any, i int) map[string]any {
	where, _ := m["where"].([]any)
	if i < 0 || i >= len(where) {
		return nil
	}
	f, _ := where[i].(map[string]any)
	return f
}

// minGroundWords is how many of the question's words a linked value must
// share for groundFilter to filter on it when the question does not write
// it whole ("48V battery pack" for "the battery pack").
const minGroundWords = 2

// groundedValue reports whether a filter value comes from the question
// (written whole) or from the result of an earlier step than the last
// (an id the model looked up before filtering on it).
func (r *run) groundedValue(v string) bool {
	if namedWhole(r.ans.Question, v) {
		return true
	}
	steps := r.ans.Steps
	if len(steps) > 0 {
		steps = steps[:len(steps)-1] // the query being judged
	}
	for _, st := range steps {
		if st.Result == "" {
			continue
		}
		if _, rows, ok := ResultRows(st.Result); ok {
			for _, row := range rows {
				if slices.ContainsFunc(row, func(cell string) bool { return strings.EqualFold(strings.TrimSpace(cell), strings.TrimSpace(v)) }) {
					return true
				}
			}
		} else if namedWhole(st.Result, v) {
			return true
		}
	}
	return false
}

// typedQuery parses a typed query and returns the columns its table
// offers (its own and its joined tables', as "table.column"); nil columns
// when the query or its table is not one kgforge can repair.
func (r *run) typedQuery(args json.RawMessage) (selectCall, []string) {
	c, t := r.queryTable(args)
	if t == nil {
		return c, nil
	}
	return c, t.columns
}

// queryTable parses a typed query and returns its table as the typed
// query offers it (columns and their types; the caller must not change
// it: the schema is built once per question); nil when the query or its
// table is not one kgforge can repair.
func (r *run) queryTable(args json.RawMessage) (selectCall, *selectTable) {
	var c selectCall
	if json.Unmarshal(args, &c) != nil {
		return c, nil
	}
	if r.schema == nil {
		data, err := r.dataTables()
		if err != nil {
			return c, nil
		}
		r.schema = selectSchema(data) // once per question: every repair of every turn reads it
	}
	return c, r.schemaTable(c.Table)
}

// schemaTable returns the typed query's table called name, nil when the
// schema has none (queryTable builds the schema).
func (r *run) schemaTable(name string) *selectTable {
	ti := slices.IndexFunc(r.schema, func(t selectTable) bool { return t.name == name })
	if ti < 0 {
		return nil
	}
	return &r.schema[ti]
}

// dataTable returns the bundle's data table called name, nil when there
// is none or the tables cannot be read.
func (r *run) dataTable(name string) *kg.Table {
	data, err := r.dataTables()
	if err != nil {
		return nil
	}
	i := slices.IndexFunc(data, func(t kg.Table) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return &data[i]
}

// linkedFilter is a filter kgforge may write: a column and a value linked
// to the question in it.
type linkedFilter struct{ column, value string }

// namedValues returns the values linked to the question in the columns
// the query's table offers that the question writes whole (namedWhole),
// the longest first.
func (r *run) namedValues(table string, columns []string) []linkedFilter {
	var named []linkedFilter
	for _, col := range columns {
		for _, v := range r.linkedOf(table, col) {
			if namedWhole(r.ans.Question, v) {
				named = append(named, linkedFilter{col, v})
			}
		}
	}
	slices.SortStableFunc(named, func(a, b linkedFilter) int { return len(b.value) - len(a.value) })
	return named
}

// writtenValues returns the values linked to the question, of any
// column, that the question writes whole (namedWhole), each once.
func (r *run) writtenValues() []string {
	var values []string
	for _, vs := range r.linked {
		for _, v := range vs {
			if namedWhole(r.ans.Question, v) && !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	return values
}

// linkedOf returns the values linked to the question in a column the
// query's table offers.
func (r *run) linkedOf(table, col string) []string {
	if tbl, name, joined := strings.Cut(col, "."); joined {
		return r.linked[linkKey(tbl, name)]
	}
	return r.linked[linkKey(table, col)]
}

// rerun runs the repaired query m as a step of kgforge's own, and returns
// it and its result when the result has rows; nil when it failed or has
// none.
func (r *run) rerun(ctx context.Context, m map[string]any) (json.RawMessage, string, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	return r.rerunIf(ctx, raw, func(rows [][]string) bool { return len(rows) > 0 })
}

// rerunMatching is rerun for a repair of filters that matched nothing: a
// result that matches nothing either (noRowsMatched: no rows, a count of
// 0) is not taken.
func (r *run) rerunMatching(ctx context.Context, m map[string]any) (json.RawMessage, string, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	var c selectCall
	if json.Unmarshal(raw, &c) != nil {
		return nil, "", nil
	}
	return r.rerunIf(ctx, raw, func(rows [][]string) bool { return !noRowsMatched(c, rows) })
}

// rerunIf runs the repaired query raw as a step of kgforge's own when its
// result rows pass take, and returns it and its result; nil when it
// failed or did not pass.
func (r *run) rerunIf(ctx context.Context, raw json.RawMessage, take func(rows [][]string) bool) (json.RawMessage, string, error) {
	res, err := r.a.tools.Call(ctx, ToolSelect, raw)
	if ce := (*CallError)(nil); errors.As(err, &ce) {
		return nil, "", nil
	} else if err != nil {
		return nil, "", err
	}
	if _, rows, isRows := ResultRows(res); isRows && take(rows) {
		r.record(Step{Tool: ToolSelect, Args: raw, Result: res, By: StepByKgforge})
		return raw, res, nil
	}
	return nil, "", nil
}

// linkedMatch finds v among a column's linked values: the same value but
// for case (op =), or a value that holds it (op contains); value is the
// filter value to write, the column's own spelling for =.
func linkedMatch(linked []string, op, v string) (value string, ok bool) {
	v = strings.TrimSpace(v)
	for _, l := range linked {
		switch {
		case op == "=" && strings.EqualFold(l, v):
			return l, true
		case op == "contains" && strings.Contains(strings.ToLower(l), strings.ToLower(v)):
			return v, true
		}
	}
	return "", false
}

// keyWords are the question words that ask for a key itself ("the supplier
// id of …"): a question that writes one keeps its key column.
var keyWords = []string{"id", "ids", "identifier", "identifiers", "code", "codes", "key", "keys", "number", "numbers"}

// asksForKey reports whether a question writes a key word (keyWords).
func asksForKey(question string) bool {
	return slices.ContainsFunc(lowerWords(question), func(w string) bool { return slices.Contains(keyWords, w) })
}

// nameKey repairs a query that answers a "which …" question with keys:
// its one selected column is a key whose name says it holds identifiers
// (identifierName), of the queried table or of a table one join away, or
// a foreign key to one ("Which supplier makes the CT3
// frame?" answered S001, the supplier_id of the part's row, where the
// supplier's name was asked), or groups an aggregate by such a key ("How
// many parts does each supplier supply?" counted per supplier_id, grouped
// by the name then). When the question writes no key word
// (keyWords) and the table the key identifies has one name column (a text
// column called name or title, or ending in _name or _title, that is not
// the key), kgforge runs the query again selecting that column (through
// the join the typed query offers) as a step of its own (Step.By), and
// answers from that result when it has rows. named is the query kgforge
// ran, nil when none; result is its result.
func (r *run) nameKey(ctx context.Context, args json.RawMessage, out string) (named json.RawMessage, result string, err error) {
	if _, rows, isRows := ResultRows(out); !isRows || len(rows) == 0 {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	grouped := len(c.GroupBy) == 1 && c.Aggregate != nil && slices.Equal(c.Columns, c.GroupBy)
	if columns == nil || len(c.Columns) != 1 || !grouped && (c.Aggregate != nil || len(c.GroupBy) > 0) {
		return nil, "", nil
	}
	if asksForKey(r.ans.Question) {
		return nil, "", nil
	}
	table := r.dataTable
	owner, col := c.Table, c.Columns[0]
	if t, name, joined := strings.Cut(col, "."); joined {
		owner, col = t, name
	}
	t := table(owner)
	if t == nil {
		return nil, "", nil
	}
	target, key := "", ""
	if slices.Contains(t.PrimaryKeys, col) && identifierName(col) {
		target, key = owner, col
	} else if i := slices.IndexFunc(t.ForeignKeys, func(fk kg.ForeignKey) bool { return fk.Column == col }); i >= 0 {
		target, key = t.ForeignKeys[i].RefTable, t.ForeignKeys[i].RefColumn
	}
	tt := table(target)
	if tt == nil {
		return nil, "", nil
	}
	label := nameColumn(tt, key)
	if label == "" {
		return nil, "", nil
	}
	if target != c.Table {
		label = target + "." + label
	}
	if !slices.Contains(columns, label) {
		return nil, "", nil // the table the key identifies is not one join away
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	m["columns"] = []any{label}
	if grouped {
		m["group_by"] = []any{label}
	}
	return r.rerun(ctx, m)
}

// identifierName reports whether a column's name says it holds
// identifiers (supplier_id, ID, TeacherId, part_code, order_no): a
// candidate key is only unique, and a unique hometown is no identifier.
func identifierName(col string) bool {
	n := strings.ToLower(col)
	if n == "id" || n == "code" || strings.HasSuffix(col, "Id") || strings.HasSuffix(col, "ID") {
		return true
	}
	for _, end := range []string{"_id", "_code", "_key", "_no", "_number"} {
		if strings.HasSuffix(n, end) {
			return true
		}
	}
	return false
}

// nameColumn returns the one name column of t other than key: a text
// column called name or title, or ending in _name or _title; "" when it
// has none or several.
func nameColumn(t *kg.Table, key string) string {
	found := ""
	for _, c := range t.Columns {
		n := strings.ToLower(c.Name)
		text := strings.Contains(strings.ToUpper(c.Type), "VARCHAR") || strings.EqualFold(c.Type, "TEXT")
		named := n == "name" || n == "title" || strings.HasSuffix(n, "_name") || strings.HasSuffix(n, "_title")
		if c.Name == key || !text || !named {
			continue
		}
		if found != "" {
			return ""
		}
		found = c.Name
	}
	return found
}

// lookupCells repairs a plain lookup the action model wrote on the wrong
// columns: a question that writes whole a value of one of the table's
// columns (the row's label: "Deferred income tax assets", "Non-Swiss")
// and names other columns of the table by every word of their names ("as
// reported", "in 2017", "without the adoption of ASC 606") asks for those
// cells of that row. When the typed query is a plain one (no aggregate,
// grouping or order) whose filters matched no row (noRowsMatched) or
// whose filters hold no value the question writes (none at all, or values
// copied from the listing's samples: "$19,373"), kgforge runs the lookup
// as a step of its own — the named columns, filtered on the longest value the
// question writes whole — and takes its result when it has rows. A column
// named only by the table's own noun ("part_id" in parts, for "Which parts
// …") is not asked for. looked is the query kgforge ran, nil when none.
func (r *run) lookupCells(ctx context.Context, args json.RawMessage, out string) (looked json.RawMessage, result string, err error) {
	c, columns := r.lookupable(args, out)
	if columns == nil {
		return nil, "", nil
	}
	return r.namedCells(ctx, c, columns)
}

// lookupable parses a typed query that a lookup may replace (lookupCells,
// passageLookup): a plain one (no aggregate or grouping, and no order
// unless the question asks for one: "What are the opening year and staff
// number of the museum named Plaza Museum?" ordered by Open_Year) whose
// result has rows or none, and whose filters matched no row or hold no
// value the question writes. nil columns when it is not one.
func (r *run) lookupable(args json.RawMessage, out string) (selectCall, []string) {
	_, rows, isRows := ResultRows(out)
	if !isRows {
		return selectCall{}, nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || c.Aggregate != nil || len(c.GroupBy) > 0 || c.Having != nil || c.OrderBy != nil && asksAnOrder(r.ans.Question) {
		return c, nil
	}
	if !noRowsMatched(c, rows) {
		for _, w := range c.Where {
			if namedWhole(r.ans.Question, w.Value) {
				return c, nil // rows found by a filter the question writes: the model's query stands
			}
		}
	}
	return c, columns
}

// namedCells runs the lookup of lookupCells for the typed query c over
// its table's columns: the columns the question names, in the row of the
// longest value the question writes whole; nil when there is none or it
// is c itself.
func (r *run) namedCells(ctx context.Context, c selectCall, columns []string) (looked json.RawMessage, result string, err error) {
	tableWords := uniq(words(c.Table))
	named := r.namedValues(c.Table, columns)
	if len(named) == 0 {
		return nil, "", nil
	}
	label := named[0]
	if op, _ := questionOp(r.ans.Question, label.value); op != "=" {
		return nil, "", nil // "not from Porto" names no row (addFilter keeps the "not")
	}
	var cols []string
	for _, col := range namedColumns(r.ans.Question, columns) {
		if col != label.column && !strings.Contains(col, ".") && !allIn(columnWords(col), tableWords) {
			cols = append(cols, col)
		}
	}
	if len(cols) == 0 {
		return nil, "", nil
	}
	if len(c.Where) == 1 && c.Where[0].Column == label.column && c.Where[0].Op == "=" && strings.EqualFold(c.Where[0].Value, label.value) &&
		slices.Equal(c.Columns, cols) {
		return nil, "", nil // the model's own query
	}
	return r.rerun(ctx, map[string]any{
		"table": c.Table, "columns": cols,
		"where": []map[string]string{{"column": label.column, "op": "=", "value": label.value}},
	})
}

// lookupAfterFailure is lookupCells for a typed query that failed (a
// column it invented, an aggregate of text): when its table exists and
// the question writes whole a value of one of the table's columns and
// names other columns, kgforge looks those cells up as a step of its own
// and answers from them, instead of handing the error back to the model,
// which repeats it more often than it mends it. looked is the query
// kgforge ran, nil when none.
func (r *run) lookupAfterFailure(ctx context.Context, args json.RawMessage) (looked json.RawMessage, result string, err error) {
	c, columns := r.typedQuery(args)
	if columns == nil {
		return nil, "", nil
	}
	return r.namedCells(ctx, selectCall{Table: c.Table}, columns)
}

// dropFilters repairs a query that filters on values nothing grounds, for
// a question that names no value at all ("What are the age and hometown of
// teachers?" filtered on Age = 26 or 29, values copied from the listing's
// samples, and listed two teachers of seven), and asks for no order
// (asksAnOrder). The question names no value when it writes no digit, no
// quotation mark and no capitalised word after its first (a name), and no
// linked value of a column the query's table offers (mentionedValues); a
// filter's value is grounded when the question writes it or an earlier
// result held it (groundedValue). When every filter of such a query is
// ungrounded, kgforge runs it again without its filters, as a step of its
// own (Step.By), and takes that result when it has rows. dropped is the
// query kgforge ran, nil when none; result is its result.
func (r *run) dropFilters(ctx context.Context, args json.RawMessage, out string) (dropped json.RawMessage, result string, err error) {
	if _, _, isRows := ResultRows(out); !isRows {
		return nil, "", nil
	}
	c, columns := r.typedQuery(args)
	if columns == nil || len(c.Where) == 0 || c.Having != nil || namesAValue(r.ans.Question) || asksAnOrder(r.ans.Question) {
		return nil, "", nil
	}
	if len(r.mentionedValues(c.Table, columns)) > 0 {
		return nil, "", nil
	}
	for _, w := range c.Where {
		if strings.TrimSpace(w.Value) == "" || r.groundedValue(w.Value) {
			return nil, "", nil
		}
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	delete(m, "where")
	return r.rerun(ctx, m)
}

// asksAnOrder says whether a question asks for the first rows of an order
// ("the most expensive", "the youngest", "the first"): its answer is not
// every row, so dropFilters leaves it to the order repairs.
func asksAnOrder(question string) bool {
	for _, w := range lowerWords(question) {
		if slices.Contains(descWords, w) || slices.Contains(ascWords, w) || slices.Contains(rankWords, w) {
			return true
		}
	}
	return false
}

// rankWords ask for the first rows of an order without saying which way
// on their own (the direction words leave them out, see descWords).
var rankWords = []string{"oldest", "youngest", "best", "worst", "first", "last"}

// namesAValue says whether a question writes something that reads as a
// value: a digit, a quotation mark (an apostrophe inside a word, as in
// "teacher's", quotes nothing), or a capitalised word after its first word
// (a name such as "Little Lever Urban District" or "Plaza Museum").
func namesAValue(question string) bool {
	if strings.ContainsAny(question, "0123456789\"`“”‘") {
		return true
	}
	for i, r := range question {
		if r != '\'' && r != '’' {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(question[:i])
		after, _ := utf8.DecodeRuneInString(question[i+utf8.RuneLen(r):])
		if !isWordRune(before) || !isWordRune(after) {
			return true
		}
	}
	for i, w := range strings.Fields(question) {
		if r, _ := utf8.DecodeRuneInString(w); i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}
