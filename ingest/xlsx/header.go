package xlsx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// row is one non-empty row of a sheet.
type row struct {
	num   int      // 1-based row number
	cells []string // formatted values by column, index 0 being column A
}

// blank reports whether a cell value holds nothing.
func blank(v string) bool { return strings.TrimSpace(v) == "" }

// span returns how many cells of r hold a value and the columns of the
// first and last of them (-1, -1 when none does).
func (r row) span() (n, first, last int) {
	first, last = -1, -1
	for j, v := range r.cells {
		if blank(v) {
			continue
		}
		n++
		if first < 0 {
			first = j
		}
		last = j
	}
	return n, first, last
}

// cell returns the value of column j, "" beyond the row's last cell.
func (r row) cell(j int) string {
	if j < len(r.cells) {
		return r.cells[j]
	}
	return ""
}

// maxTitleRows is the most rows above the header that can be read as titles.
const maxTitleRows = 10

// header is how a sheet's table starts.
type header struct {
	names  []string // column names, unique regardless of case
	left   int      // column of the first name
	used   int      // leading rows it consumed: titles and header rows
	titles []row    // title rows skipped above the header
}

// findHeader reads the header from the first non-empty rows of a sheet
// (head, at least one) and the merged ranges that touch them.
//
// Rows above the first row with two or more values, each holding a single
// value, are titles when that row holds no number and none of the values is
// merged over only part of its width; they are skipped. The header is the
// next row. A merge in it over several columns names each column after the
// merged value with a suffix _1, _2, …; when the row right below holds only
// labels (no numbers), and only under such merges or under blank header
// cells, it is a second header row and its labels are joined to the group
// above: "group_sub". Blank names become column_N (N counts from the first
// column), and repeated names get _2, _3, ….
func findHeader(head []row, merges []cellRange) header {
	var h header
	first := -1
	for i, r := range head {
		if n, _, _ := r.span(); n >= 2 {
			first = i
			break
		}
	}
	if first > 0 && first <= maxTitleRows && titlesAbove(head[:first], head[first], merges) {
		h.titles, h.used = head[:first], first
	}
	top := head[h.used]
	h.used++
	groups := map[int]cellRange{} // column → merge over several columns starting in the header row
	for _, m := range merges {
		if m.top == top.num && m.right > m.left {
			for j := m.left; j <= m.right; j++ {
				groups[j] = m
			}
		}
	}
	var sub *row
	if len(groups) > 0 && h.used < len(head) && head[h.used].num == top.num+1 && subHeader(top, head[h.used], groups) {
		sub = &head[h.used]
		h.used++
	}
	_, left, right := top.span()
	widen := func(l, r int) {
		if l >= 0 && (left < 0 || l < left) {
			left = l
		}
		right = max(right, r)
	}
	for _, m := range groups {
		widen(m.left, m.right)
	}
	if sub != nil {
		_, l, r := sub.span()
		widen(l, r)
	}
	h.left = left
	names := make([]string, 0, right-left+1)
	for j := left; j <= right; j++ {
		name := clean(top.cell(j))
		s := ""
		if sub != nil {
			s = clean(sub.cell(j))
		}
		if m, ok := groups[j]; ok {
			name = clean(top.cell(m.left))
			if s == "" && name != "" {
				s = strconv.Itoa(j - m.left + 1)
			}
		}
		switch {
		case name != "" && s != "":
			name += "_" + s
		case s != "":
			name = s
		case name == "":
			name = fmt.Sprintf("column_%d", j-left+1)
		}
		names = append(names, name)
	}
	h.names = unique(names)
	return h
}

// titlesAbove reports whether the single-value rows above next, the first
// row with several values, are titles. next must hold labels only: with a
// number it is data, and the row above it a header. A value merged over
// only part of next's width labels a group of columns, not the table.
func titlesAbove(rows []row, next row, merges []cellRange) bool {
	if slices.ContainsFunc(next.cells, isNumber) {
		return false
	}
	_, n0, n1 := next.span()
	for _, r := range rows {
		_, c, _ := r.span()
		for _, m := range merges {
			if m.top <= r.num && r.num <= m.bottom && m.left <= c && c <= m.right && (m.left > n0 || m.right < n1) {
				return false
			}
		}
	}
	return true
}

// subHeader reports whether next, the row right below the header row top,
// is a second header row under its merged groups.
func subHeader(top, next row, groups map[int]cellRange) bool {
	under := false
	for j, v := range next.cells {
		if blank(v) {
			continue
		}
		if isNumber(v) {
			return false
		}
		if _, ok := groups[j]; ok {
			under = true
		} else if !blank(top.cell(j)) {
			return false
		}
	}
	return under
}

// isNumber reports whether a cell value is a number.
func isNumber(v string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return err == nil
}

// clean trims a header cell and collapses the white space inside it, line
// breaks included.
func clean(v string) string {
	return strings.Join(strings.Fields(v), " ")
}

// unique makes names unique regardless of case, as DuckDB's column names
// are: the first keeps its name, the next ones get _2, _3, ….
func unique(names []string) []string {
	taken := make(map[string]bool, len(names))
	out := make([]string, len(names))
	for i, name := range names {
		n := name
		for k := 2; taken[strings.ToLower(n)]; k++ {
			n = fmt.Sprintf("%s_%d", name, k)
		}
		taken[strings.ToLower(n)] = true
		out[i] = n
	}
	return out
}
