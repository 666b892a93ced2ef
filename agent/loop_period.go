package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// monthNumbers are the months a question may name, written out or in
// their common three-letter forms.
var monthNumbers = func() map[string]int {
	m := map[string]int{}
	for i, name := range []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"} {
		m[name], m[name[:3]] = i+1, i+1
	}
	m["sept"] = 9
	return m
}()

// period is a span of days a question names: from its first day up to,
// not including, to (ISO dates); either is "" when the question bounds
// the span on one side only ("since March 2025").
type period struct{ from, to string }

// questionPeriod returns the one span of time a question names: a month
// and its year ("in March 2025", "March of 2025"), or a year after "in"
// or "during" ("in 2025"); "since", "from" or "after" before it keep its
// start or end as a lower bound only, "before", "until" or "through" its
// start or end as an upper bound. ok is false when the question names
// no such span or more than one.
func questionPeriod(question string) (p period, ok bool) {
	ws := lowerWords(question)
	found := 0
	for i := 0; i < len(ws); i++ {
		start, month, y := i, 0, 0
		if n, isMonth := monthNumbers[ws[i]]; isMonth {
			j := i + 1
			if j < len(ws) && ws[j] == "of" {
				j++
			}
			if j >= len(ws) || !isYear(ws[j]) {
				continue
			}
			month, y = n, atoi(ws[j])
			i = j
		} else if isYear(ws[i]) && i > 0 && (ws[i-1] == "in" || ws[i-1] == "during" || boundWords[ws[i-1]] != "") {
			y = atoi(ws[i])
		} else {
			continue
		}
		if found++; found > 1 {
			return period{}, false
		}
		from, to := fmt.Sprintf("%04d-01-01", y), fmt.Sprintf("%04d-01-01", y+1)
		if month > 0 {
			from = fmt.Sprintf("%04d-%02d-01", y, month)
			if month == 12 {
				to = fmt.Sprintf("%04d-01-01", y+1)
			} else {
				to = fmt.Sprintf("%04d-%02d-01", y, month+1)
			}
		}
		p = period{from, to}
		if start > 0 {
			switch boundWords[ws[start-1]] {
			case "since":
				p = period{from: from}
			case "after":
				p = period{from: to}
			case "before":
				p = period{to: from}
			case "until":
				p = period{to: to}
			}
		}
	}
	return p, found == 1
}

// boundWords bound a span on one side: since and from keep its start,
// after its end, as the first day; before its start, until and through
// its end, as the first day after.
var boundWords = map[string]string{"since": "since", "from": "since", "after": "after", "before": "before", "until": "until", "till": "until", "through": "until"}

// isYear reports whether w is a year kgforge reads as one: four digits
// from 1900 to 2100.
func isYear(w string) bool {
	if len(w) != 4 {
		return false
	}
	n, err := strconv.Atoi(w)
	return err == nil && n >= 1900 && n <= 2100
}

func atoi(w string) int {
	n, _ := strconv.Atoi(w)
	return n
}

// periodFilter repairs a query that leaves out the span of time the
// question names: "How many orders were placed in March 2025?" counted
// every order. When the question names one span (questionPeriod), the
// typed query's table has one date column of its own (dateType), and no
// filter of the query is on a date column or holds the span's year,
// kgforge runs it again with that column bounded to the span (>= its
// first day, < the day after its last), as a step of its own (Step.By),
// and takes the result whether or not rows match: none in the span is
// the answer. filtered is that query, nil when none.
func (r *run) periodFilter(ctx context.Context, args json.RawMessage) (filtered json.RawMessage, result string, err error) {
	p, ok := questionPeriod(r.ans.Question)
	if !ok {
		return nil, "", nil
	}
	c, t := r.queryTable(args)
	if t == nil {
		return nil, "", nil
	}
	col, _ := oneColumn(t.columns, func(col string) bool { return !strings.Contains(col, ".") && dateType(t.types[col]) })
	if col == "" {
		return nil, "", nil
	}
	for _, w := range c.Where {
		if dateType(t.types[w.Column]) || p.from != "" && strings.Contains(w.Value, p.from[:4]) || p.to != "" && strings.Contains(w.Value, p.to[:4]) {
			return nil, "", nil
		}
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	where, _ := m["where"].([]any)
	if p.from != "" {
		where = append(where, map[string]any{"column": col, "op": ">=", "value": p.from})
	}
	if p.to != "" {
		where = append(where, map[string]any{"column": col, "op": "<", "value": p.to})
	}
	m["where"] = where
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	return r.rerunIf(ctx, raw, func([][]string) bool { return true })
}
