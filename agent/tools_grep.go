package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of grep.
const (
	maxGrepHits   = 20
	minGrepLen    = 2
	snippetBefore = 40
	snippetAfter  = 80
)

// grepFields are the places grep looks, in the order hits are listed: names
// first, text last. Each yields (kind, id, field, value).
const grepFields = `
  SELECT kind, id, 'name' AS field, name AS value, 0 AS o FROM memory.main.nodes WHERE kind <> 'chunk'
  UNION ALL SELECT kind, id, 'aliases', array_to_string(aliases, ' | '), 1 FROM memory.main.nodes
  UNION ALL SELECT kind, id, 'id', id, 2 FROM memory.main.nodes
  UNION ALL SELECT kind, id, 'description', description, 3 FROM memory.main.nodes
  UNION ALL SELECT kind, id, 'properties', properties, 4 FROM memory.main.nodes
  UNION ALL SELECT 'chunk', id, 'id', id, 2 FROM memory.main.chunks
  UNION ALL SELECT 'chunk', id, 'text', text, 5 FROM memory.main.chunks`

func (t *Toolbox) runGrep(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{ Pattern string }
	if err := decode(ToolGrep, json.RawMessage(`{"pattern":"text to find"}`), args, &a); err != nil {
		return "", err
	}
	p := strings.TrimSpace(a.Pattern)
	if utf8.RuneCountInString(p) < minGrepLen {
		return "", &CallError{Tool: ToolGrep, Kind: FailMalformed, Msg: fmt.Sprintf("pattern %q is too short", p), Hint: `give at least 2 characters of literal text: {"pattern":"..."}; it is not a regular expression`}
	}
	q := fmt.Sprintf(`SELECT kind, id, field, value, count(*) OVER () FROM (%s) WHERE contains(lower(value), lower(%s))
ORDER BY o, kind, id`, grepFields, lit(p))
	rows, _, err := t.rows(ctx, q, maxGrepHits)
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return fmt.Sprintf("no match for %q in node ids, names, aliases, descriptions, properties or chunk text (grep is literal; try a shorter or other word, or sems for meaning)", p), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s hits for %q (kind, id, field: snippet):\n", rows[0][4], p)
	for _, r := range rows {
		snip := snippet(r[3], p)
		if r[2] == "text" || r[2] == "description" {
			snip = quoteInline(fmt.Sprintf("%s=%q", r[0], r[1]), snip)
		} else {
			snip = fmt.Sprintf("%q", snip)
		}
		fmt.Fprintf(&b, "%s\t%s\t%s: %s\n", r[0], r[1], r[2], snip)
	}
	if total := rows[0][4]; total != fmt.Sprint(len(rows)) {
		fmt.Fprintf(&b, "… (first %d of %s hits; use a longer pattern, or cat an id)", len(rows), total)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// snippet returns the part of v around the first case-insensitive match of
// p, on one line.
func snippet(v, p string) string {
	v = strings.Join(strings.Fields(v), " ")
	i := foldIndex(v, p)
	if i < 0 {
		return short(v, snippetBefore+snippetAfter)
	}
	lo, hi := max(0, i-snippetBefore), min(len(v), i+len(p)+snippetAfter)
	for lo > 0 && !utf8.RuneStart(v[lo]) {
		lo--
	}
	for hi < len(v) && !utf8.RuneStart(v[hi]) {
		hi++
	}
	s := v[lo:hi]
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(v) {
		s += "…"
	}
	return s
}

// foldIndex is the byte index of the first match of p in v ignoring case,
// or -1.
func foldIndex(v, p string) int {
	n := len(p)
	for i := range v {
		if i+n <= len(v) && strings.EqualFold(v[i:i+n], p) {
			return i
		}
	}
	return -1
}

// quoteInline quotes a snippet of source text on one line.
func quoteInline(attrs, text string) string {
	return "<document " + attrs + ">" + docDefuse.Replace(text) + "</document>"
}
