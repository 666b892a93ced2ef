package main

import (
	"iter"
	"regexp"
	"strconv"
	"strings"
)

// tieProbe returns a query that shows whether the gold SQL's ORDER BY
// … LIMIT n cuts through a tie: the same query with its order keys added
// as the last columns and one row more. When rows n and n+1 have the same
// keys, which of them the gold answer holds is up to the database, and
// runs of the same question disagree ("the most common hometown" of
// seven hometowns with one teacher each). ok is false for a query this
// cannot tell: no top-level ORDER BY with a LIMIT at its end, or a
// UNION, INTERSECT or EXCEPT.
func tieProbe(sql string) (probe string, keys, limit int, ok bool) {
	q := strings.TrimRight(strings.TrimSpace(sql), "; \n\t")
	toks := topLevelWords(q)
	sel, from, order, lim := -1, -1, -1, -1
	for i, t := range toks {
		switch t.word {
		case "union", "intersect", "except":
			return "", 0, 0, false
		case "select":
			if sel < 0 {
				sel = i
			}
		case "from":
			if sel >= 0 && from < 0 {
				from = i
			}
		case "order":
			if i+1 < len(toks) && toks[i+1].word == "by" {
				order = i
			}
		case "limit":
			lim = i
		}
	}
	if sel != 0 || from < 0 || order < from || lim < order {
		return "", 0, 0, false
	}
	m := limitRE.FindStringSubmatch(q[toks[lim].at:])
	if m == nil {
		return "", 0, 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return "", 0, 0, false
	}
	var exprs []string
	for _, e := range splitTopLevel(q[toks[order+1].at+len("by"):toks[lim].at], ',') {
		e = strings.TrimSpace(directionRE.ReplaceAllString(strings.TrimSpace(e), ""))
		if e == "" {
			return "", 0, 0, false
		}
		exprs = append(exprs, e)
	}
	head := q[:toks[from].at]
	probe = strings.TrimSpace(head) + ", " + strings.Join(exprs, ", ") + " " + q[toks[from].at:toks[lim].at] + "LIMIT " + strconv.Itoa(n+1)
	return probe, len(exprs), n, true
}

var (
	limitRE     = regexp.MustCompile(`(?i)^limit\s+(\d+)\s*$`)
	directionRE = regexp.MustCompile(`(?i)(\s+(asc|desc))?(\s+nulls\s+(first|last))?$`)
)

// tiesAtLimit reports whether rows (the probe's result) tie at the cut:
// the last keys columns of row limit-1 and row limit are equal.
func tiesAtLimit(rows [][]string, keys, limit int) bool {
	if len(rows) <= limit {
		return false
	}
	a, b := rows[limit-1], rows[limit]
	if len(a) < keys || len(b) < keys {
		return false
	}
	for k := 1; k <= keys; k++ {
		if a[len(a)-k] != b[len(b)-k] {
			return false
		}
	}
	return true
}

// word is a keyword-like word of a query outside parentheses and quotes,
// lower-cased, with its byte offset.
type word struct {
	word string
	at   int
}

// topLevelWords returns the words of q outside parentheses and quotes.
func topLevelWords(q string) []word {
	var out []word
	next := 0 // the end of the last word
	for i := range topLevel(q) {
		if i < next || !isWordByte(q[i]) || i > 0 && isWordByte(q[i-1]) {
			continue
		}
		next = i
		for next < len(q) && isWordByte(q[next]) {
			next++
		}
		out = append(out, word{strings.ToLower(q[i:next]), i})
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// splitTopLevel splits s at sep outside parentheses and quotes.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	last := 0
	for i := range topLevel(s) {
		if s[i] == sep {
			out = append(out, s[last:i])
			last = i + 1
		}
	}
	return append(out, s[last:])
}

// topLevel yields the offsets of the bytes of s outside parentheses and
// quoted strings or names (', ", `), the parentheses and quotes left out:
// the one scanner of topLevelWords and splitTopLevel.
func topLevel(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
		depth := 0
		var quote byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"' || c == '`':
				quote = c
			case c == '(':
				depth++
			case c == ')':
				depth--
			case depth == 0:
				if !yield(i) {
					return
				}
			}
		}
	}
}
