package eval

import (
	"fmt"
	"slices"
	"strings"
)

// CheckGold says whether the result of a question's gold SQL (its
// columns' values, row by row) still is the question's gold answer: one
// value for number, percent, bool and text questions, one column holding
// exactly the gold set for lists, and exactly the gold rows (in any
// order) for tables. The error says what the SQL gives instead.
func CheckGold(q *Question, rows [][]string) error {
	if len(rows) == 0 {
		return fmt.Errorf("question %s: the gold SQL returns no rows", q.ID)
	}
	switch q.Kind {
	case KindNumber, KindPercent, KindBool, KindText:
		if len(rows) != 1 || len(rows[0]) != 1 {
			return fmt.Errorf("question %s: the gold SQL returns %d rows of %d columns, want one value", q.ID, len(rows), len(rows[0]))
		}
		if v := Score(q, rows[0][0]); !v.Correct {
			return fmt.Errorf("question %s: the gold SQL gives %q, not the gold answer %v (%s)", q.ID, rows[0][0], q.Answer, v.Note)
		}
	case KindList:
		var got []string
		for _, r := range rows {
			if len(r) != 1 {
				return fmt.Errorf("question %s: the gold SQL returns %d columns, want one", q.ID, len(r))
			}
			got = append(got, r[0])
		}
		if !sameSet(got, q.gold.items) {
			return fmt.Errorf("question %s: the gold SQL gives %q, not the gold list %q", q.ID, got, q.gold.items)
		}
	case KindTable:
		if !sameRows(rows, q.gold.rows) {
			return fmt.Errorf("question %s: the gold SQL gives %q, not the gold rows %q", q.ID, rows, q.gold.rows)
		}
	}
	return nil
}

// sameSet compares two lists as sets of normalised names.
func sameSet(a, b []string) bool {
	key := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			out = append(out, strings.Join(words(x), " "))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(key(a), key(b))
}

// sameRows compares two tables as multisets of rows, cell by cell:
// numbers as numbers, other cells as normalised words.
func sameRows(got, want [][]string) bool {
	if len(got) != len(want) {
		return false
	}
	used := make([]bool, len(got))
next:
	for _, w := range want {
		for i, g := range got {
			if !used[i] && sameRow(g, w) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}

func sameRow(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		gv, gok := parseNumber(got[i])
		wv, wok := parseNumber(want[i])
		switch {
		case gok && wok:
			if !closeTo(num{v: gv, decimals: decimalsOf(got[i])}, num{v: wv, decimals: decimalsOf(want[i])}, 0) {
				return false
			}
		case strings.Join(words(got[i]), " ") != strings.Join(words(want[i]), " "):
			return false
		}
	}
	return true
}
