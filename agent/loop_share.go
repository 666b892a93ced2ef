package agent

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// shareWords ask for a part of a whole ("What percentage of orders were
// delivered?"), each before "of".
var shareWords = []string{"percentage", "percent", "share", "proportion", "fraction", "%"}

// asksShare reports whether a question asks for a share of rows or of an
// amount: a word of shareWords followed by "of", and no "change",
// "increase", "decrease" or "growth" (a change between two values, as
// "the percentage change of revenue", is no share).
func asksShare(question string) bool {
	ws := strings.Fields(strings.ToLower(strings.NewReplacer("?", " ", ",", " ", "%", " % ").Replace(question)))
	if slices.ContainsFunc(ws, func(w string) bool {
		return w == "change" || w == "increase" || w == "decrease" || w == "growth"
	}) {
		return false
	}
	for i, w := range ws[:max(0, len(ws)-1)] {
		if slices.Contains(shareWords, w) && ws[i+1] == "of" {
			return true
		}
	}
	return false
}

// shareAnswer answers a question that asks for a share (asksShare) from
// a typed query that counts or sums the rows of its part: "What
// percentage of orders were delivered?" written as the count of delivered
// orders. The whole is the same query without the filter whose value the
// question writes last (the part comes after the whole in "the share of
// X that are Y"), or without its one filter; kgforge runs it as a step of
// its own (Step.By) and answers with the part over the whole in percent,
// then both ("62.5 % (5 of 8)"). A plain lookup of the part is counted
// first; rows is the query's result. A filter on a value neither the
// question nor an earlier result wrote (groundedValue: a sample the model
// copied) is left out of both. ok is false when the query has no filter, groups its rows, or
// takes another aggregate, or when the whole is zero.
func (r *run) shareAnswer(ctx context.Context, args json.RawMessage, rows [][]string) (answer string, ok bool, err error) {
	c, t := r.queryTable(args)
	if t == nil || len(c.GroupBy) > 0 || c.Having != nil {
		return "", false, nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return "", false, nil
	}
	// A filter on a value neither the question nor an earlier result
	// wrote (a sample the model copied) is neither the part nor the whole.
	var kept []any
	grounded := c.Where[:0:0]
	for i, w := range c.Where {
		if r.groundedValue(w.Value) {
			kept, grounded = append(kept, filterAt(m, i)), append(grounded, w)
		}
	}
	if len(kept) == 0 {
		return "", false, nil
	}
	if len(kept) < len(c.Where) {
		m["where"], c.Where, rows = kept, grounded, nil // the part is counted again
	}
	switch {
	case c.Aggregate == nil:
		asCount(m, t.columns[0])
	case c.Aggregate.Fn != "count" && c.Aggregate.Fn != "sum":
		return "", false, nil
	default:
		delete(m, "order_by")
		delete(m, "limit")
	}
	var part float64
	if c.Aggregate != nil && len(rows) == 1 && len(rows[0]) == 1 {
		part, ok = cellNumber(rows[0][0]) // the query's own result
	} else {
		part, ok, err = r.oneNumber(ctx, m)
	}
	if err != nil || !ok {
		return "", false, err
	}
	drop, at := len(c.Where)-1, -1 // the filter the question writes last; else the last
	q := strings.ToLower(r.ans.Question)
	for i, w := range c.Where {
		if k := indexWhole(q, strings.ToLower(strings.TrimSpace(w.Value))); k > at {
			drop, at = i, k
		}
	}
	where, _ := m["where"].([]any)
	m["where"] = slices.Delete(slices.Clone(where), drop, drop+1)
	whole, ok, err := r.oneNumber(ctx, m)
	if err != nil || !ok || whole == 0 {
		return "", false, err
	}
	pct := formatNumber(math.Round(1000*part/whole) / 10) // to a tenth of a percent
	return pct + " % (" + formatNumber(part) + " of " + formatNumber(whole) + ")", true, nil
}

// oneNumber runs the typed query m as a step of kgforge's own (rerunIf,
// taking a result of one cell) and reads that cell as a number; ok is
// false when it fails or holds no number (NULL, the sum of no rows, is 0).
func (r *run) oneNumber(ctx context.Context, m map[string]any) (v float64, ok bool, err error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return 0, false, err
	}
	ran, res, err := r.rerunIf(ctx, raw, func(rows [][]string) bool { return len(rows) == 1 && len(rows[0]) == 1 })
	if err != nil || ran == nil {
		return 0, false, err
	}
	_, rows, _ := ResultRows(res)
	v, ok = cellNumber(rows[0][0])
	return v, ok, nil
}

// cellNumber reads a result's cell as a number: NULL (the sum of no rows)
// is 0; ok is false for a cell that is no number.
func cellNumber(cell string) (v float64, ok bool) {
	if s := strings.TrimSpace(cell); s == "NULL" || s == "" {
		return 0, true
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	return v, err == nil
}

// formatNumber writes v without a fraction when it has none.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
