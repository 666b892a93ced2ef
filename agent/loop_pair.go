package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// pairWords are the words that ask for one aggregate each in a list of
// them ("the minimum and maximum number of products"), and its function.
var pairWords = map[string]string{
	"maximum": "max", "max": "max", "highest": "max", "largest": "max",
	"minimum": "min", "min": "min", "lowest": "min", "smallest": "min",
	"average": "avg", "mean": "avg",
}

// listJoiners join the words of a list ("minimum, maximum and average").
var listJoiners = map[string]bool{"and": true, "or": true, "the": true, ",": true}

// askedAggregates returns the aggregate functions a question lists one
// after another, two at least, each joined to the one before by "and",
// "or" or a comma ("What are the minimum and maximum …?": min, max), in
// its order; nil when it lists fewer than two ("the highest average
// attendance" lists one).
func askedAggregates(question string) []string {
	ws := strings.Fields(strings.ToLower(strings.NewReplacer(",", " , ", "?", " ", ".", " ").Replace(question)))
	for i := range ws {
		var fns []string
		joined := true // a joiner ("and", "or", ",") since the last aggregate word
		for j := i; j < len(ws); j++ {
			if fn, ok := pairWords[ws[j]]; ok {
				if !joined {
					break // "the highest average attendance": one aggregate of another
				}
				if !slices.Contains(fns, fn) {
					fns = append(fns, fn)
				}
				joined = false
				continue
			}
			if !listJoiners[ws[j]] || len(fns) == 0 {
				break
			}
			joined = joined || ws[j] != "the"
		}
		if len(fns) >= 2 {
			return fns
		}
	}
	return nil
}

// aggregatesAnswer answers a question that lists aggregates of one
// column (askedAggregates: "the minimum and maximum number of products
// across all the shops") from a typed query that took one of them, or
// that ordered the rows by the column to take the first: kgforge takes
// each listed aggregate of that column, over the query's filters, each a
// step of its own (Step.By), and answers with them in the question's
// order ("1600, 15000"). ok is false for a question that lists fewer than
// two, a query with groups or a count, or a column that holds no number.
func (r *run) aggregatesAnswer(ctx context.Context, args json.RawMessage, rows [][]string) (answer string, ok bool, err error) {
	fns := askedAggregates(r.ans.Question)
	if len(fns) < 2 {
		return "", false, nil
	}
	c, t := r.queryTable(args)
	if t == nil || len(c.GroupBy) > 0 || c.Having != nil {
		return "", false, nil
	}
	col := ""
	switch {
	case c.Aggregate != nil && c.Aggregate.Fn != "count" && c.Aggregate.Fn != "count_distinct":
		col = c.Aggregate.Column
	case c.Aggregate == nil && c.OrderBy != nil:
		col = c.OrderBy.Column
	}
	if col == "" || !numericType(t.types[col]) {
		return "", false, nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return "", false, nil
	}
	dropShape(m)
	values := make([]string, 0, len(fns))
	for _, fn := range fns {
		var v float64
		if c.Aggregate != nil && c.Aggregate.Fn == fn && len(rows) == 1 && len(rows[0]) == 1 {
			v, ok = cellNumber(rows[0][0]) // the query's own result
		} else {
			m["aggregate"] = map[string]any{"fn": fn, "column": col}
			v, ok, err = r.oneNumber(ctx, m)
		}
		if err != nil || !ok {
			return "", false, err
		}
		values = append(values, formatNumber(v))
	}
	return strings.Join(values, ", "), true, nil
}
