package link

import (
	"slices"
	"strings"
	"unicode"

	"kgforge/kg"
)

// The words of names, as concept linking compares them: lower case, split on
// anything that is not a letter or digit and on camel case, singular, with
// filler words dropped. Column names also lose a trailing unit or time
// marker (lead_time_days → lead time, delivered_at → delivered) and the
// table's own name in front (orders.order_date → date).

// conceptStopwords are filler words that carry no meaning in a name.
var conceptStopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "per": true, "for": true, "in": true,
	"on": true, "by": true, "and": true, "to": true, "with": true, "its": true, "their": true,
}

// conceptUnitSuffixes are trailing words of a column name that say its unit
// or mark a time, not what it measures.
var conceptUnitSuffixes = map[string]bool{
	"day": true, "hour": true, "h": true, "min": true, "minute": true, "sec": true, "ms": true,
	"eur": true, "usd": true, "gbp": true, "chf": true, "pct": true, "percent": true, "ratio": true,
	"kg": true, "g": true, "t": true, "km": true, "m": true, "mm": true, "cm": true, "l": true,
	"at": true, "on": true, "utc": true, "ts": true,
}

// conceptAbbrev expands the abbreviations column names use.
var conceptAbbrev = map[string]string{
	"qty": "quantity", "amt": "amount", "num": "number", "no": "number", "nr": "number",
	"dt": "date", "desc": "description", "cat": "category", "avg": "average", "pct": "percent",
}

// conceptWords splits s into lower-case words: on anything not a letter or
// digit, and between a lower-case letter and an upper-case one.
func conceptWords(s string) []string {
	var out []string
	var b strings.Builder
	var prev rune
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.ToLower(b.String()))
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	flush()
	return out
}

// conceptTokens returns the words of a name of the semantic layer (a
// concept, a sentence) singular and without filler words.
func conceptTokens(s string) []string {
	var out []string
	for _, w := range conceptWords(s) {
		if conceptStopwords[w] {
			continue
		}
		out = append(out, Singular(w))
	}
	return out
}

// columnTokens returns the words of a column name: abbreviations expanded,
// singular, a trailing unit dropped, the table's own name in front dropped,
// as long as a word is left.
func columnTokens(column string, table []string) []string {
	var ws []string
	for _, w := range conceptWords(column) {
		if x, ok := conceptAbbrev[w]; ok {
			w = x
		}
		ws = append(ws, Singular(w))
	}
	if len(ws) > 1 && conceptUnitSuffixes[ws[len(ws)-1]] {
		ws = ws[:len(ws)-1]
	}
	for _, t := range table {
		if len(ws) > 1 && ws[0] == t {
			ws = ws[1:]
		}
	}
	return ws
}

// conceptStem cuts a verb ending so that "delayed", "delay" and "delays"
// compare equal, and "delivery" meets "delivered"; it is used only to
// compare a concept's words with a column's values.
func conceptStem(w string) string {
	w = Singular(w)
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ery") && len(w) > 5:
		return w[:len(w)-1]
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return w[:len(w)-3]
	}
	return w
}

// conceptTypes are entity types that say a node is a concept, not a thing.
var conceptTypes = map[string]bool{
	"concept": true, "metric": true, "kpi": true, "measure": true, "quantity": true, "rule": true,
	"policy": true, "category": true, "attribute": true, "property": true, "term": true,
	"indicator": true, "process": true, "requirement": true,
}

// IsConcept reports whether node n names a category of things or a
// quantity rather than one thing: only such nodes are linked to tables and
// columns. The rule, in order:
//
//   - only extracted nodes (kg.NodeConcept without kg.PropTable: a row
//     entity is one thing), of one to five words, none of them a number;
//   - a node typed as a concept (concept, metric, kpi, measure, quantity,
//     rule, policy, category, attribute, ...) is one;
//   - a name with a capital after its first word is a proper name ("Kestrel
//     Alloys", "Head of Procurement"): not one;
//   - a name whose first word is capitalised and is a proper-name value of
//     the data layer ("Porto", "Porto plant" where a column holds "Porto"):
//     not one;
//   - any other name is one ("supplier", "lead time", "Lead time",
//     "Supplier").
//
// properNames holds the capitalised words of the data layer's sample values.
func IsConcept(n kg.Node, properNames map[string]bool) bool {
	if n.Kind != kg.NodeConcept || n.Properties[kg.PropTable] != "" {
		return false
	}
	words := strings.Fields(n.Name)
	if len(words) == 0 || len(words) > 5 {
		return false
	}
	for _, w := range words {
		if strings.ContainsFunc(w, unicode.IsDigit) {
			return false
		}
	}
	if conceptTypes[strings.ToLower(n.Properties["type"])] {
		return true
	}
	for _, w := range words[1:] {
		if strings.IndexFunc(w, unicode.IsUpper) == 0 {
			return false
		}
	}
	first := []rune(words[0])
	return !unicode.IsUpper(first[0]) || !properNames[words[0]]
}

// conceptProperNames returns the capitalised words of the tables' sample
// values: the words that name things in the data layer.
func conceptProperNames(tables []kg.Table) map[string]bool {
	out := map[string]bool{}
	for _, t := range tables {
		for _, c := range t.Columns {
			if !conceptIsText(c.Type) {
				continue
			}
			for _, v := range c.Samples {
				for _, w := range strings.Fields(v) {
					if r := []rune(w); unicode.IsUpper(r[0]) {
						out[w] = true
					}
				}
			}
		}
	}
	return out
}

func conceptIsText(typ string) bool {
	t := strings.ToUpper(typ)
	return strings.HasPrefix(t, "VARCHAR") || t == "TEXT" || t == "STRING"
}

func conceptIsNumeric(typ string) bool {
	switch t := strings.ToUpper(typ); {
	case strings.HasPrefix(t, "DECIMAL"), strings.HasPrefix(t, "NUMERIC"):
		return true
	default:
		switch t {
		case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "REAL":
			return true
		}
	}
	return false
}

// conceptHasRun reports whether run occurs in ws as contiguous words.
func conceptHasRun(ws, run []string) bool {
	for i := 0; len(run) > 0 && i+len(run) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
