package pdf

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// lineSlack is how far, in ems of the smaller font, two baselines may lie
// apart and still be one line: enough for a superscript, less than the
// leading of tightly set text.
const lineSlack = 0.6

// layout rebuilds the lines of a page from its runs: runs are grouped into
// rows by baseline, top to bottom; each row is read left to right, with a
// space where the page leaves a gap between two runs. Text turned from the
// page's main direction (a margin note set sideways) comes after it, in
// lines of its own. Blank lines are dropped.
func layout(runs []run) string {
	if len(runs) == 0 {
		return ""
	}
	// Rank the directions by how much text each holds.
	var amount [4]int
	for _, r := range runs {
		amount[r.turn] += len(r.text)
	}
	rank := [4]int{0, 1, 2, 3}
	slices.SortStableFunc(rank[:], func(a, b int) int { return cmp.Compare(amount[b], amount[a]) })
	order := [4]int{}
	for i, turn := range rank {
		order[turn] = i
	}
	slices.SortStableFunc(runs, func(a, b run) int {
		if c := cmp.Compare(order[a.turn], order[b.turn]); c != 0 {
			return c
		}
		return cmp.Compare(b.y, a.y)
	})
	var lines []string
	for i := 0; i < len(runs); {
		top := runs[i]
		j := i + 1
		for j < len(runs) && runs[j].turn == top.turn && top.y-runs[j].y <= lineSlack*min(top.size, runs[j].size) {
			j++
		}
		row := runs[i:j]
		slices.SortStableFunc(row, func(a, b run) int { return cmp.Compare(a.x0, b.x0) })
		if line := clean(joinRow(row)); line != "" {
			lines = append(lines, line)
		}
		i = j
	}
	return strings.Join(lines, "\n")
}

// joinRow joins the runs of one row, sorted by x0, putting a space where
// the gap between one run's end and the next one's start is wider than a
// word gap. A run drawn again at the same place (a producer's fake bold)
// counts once.
func joinRow(row []run) string {
	var b strings.Builder
	end := math.Inf(-1)
	for k, r := range row {
		if k > 0 {
			prev := row[k-1]
			if r.text == prev.text && math.Abs(r.x0-prev.x0) < 0.1*r.size && math.Abs(r.y-prev.y) < 0.1*r.size {
				continue
			}
			if r.x0-end > wordGap*min(r.size, prev.size) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(r.text)
		end = max(end, r.x1)
	}
	return b.String()
}

// clean collapses white space to single spaces, drops control characters
// and trims the line.
func clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case unicode.IsControl(r), r == '\uFEFF':
			continue
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
