package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// Bounds of the action model's table listing (tableLines).
const (
	maxListedSamples = 3    // samples of one column
	maxListedValue   = 32   // bytes of one sample or bound
	maxTableListing  = 6000 // bytes of the whole listing; the tables beyond it are counted
)

// tableLines lists the data tables for the action model's prompt, one
// line per table and one for its joins: the tables the typed query
// offers (selectSchema), those that share the most words with the
// question first (rankTables), each with its rows and its columns, a column
// with its type and either its range (numbers, dates, times) or a few of
// its values, so that a filter can name a value the table holds. The
// listing is what the model was trained on (prompts/agent.tmpl, part
// "action"); changing it means training the model again.
//
// linked holds, by table and column (linkKey), the column's values that
// share words with the question (Toolbox.linkValues): they are listed
// before the profile's samples, so that a filter can copy the value the
// question means ("delayed", "Battery pack 500 Wh"), and they count for
// the ranking.
func tableLines(data []kg.Table, question string, linked map[string][]string) string {
	if len(data) == 0 {
		return "(none)"
	}
	byName := map[string]kg.Table{}
	for _, t := range data {
		byName[t.Name] = t
	}
	var offered []kg.Table
	for _, st := range selectSchema(data) {
		offered = append(offered, byName[st.name])
	}
	rankTables(offered, question, linked)
	var b strings.Builder
	for i, t := range offered {
		var line strings.Builder
		fmt.Fprintf(&line, "- %s (%d rows): ", t.Name, t.Rows)
		for j, c := range t.Columns {
			if j > 0 {
				line.WriteString("; ")
			}
			line.WriteString(c.Name + " " + c.Type)
			switch {
			case rangedType(c.Type) && (c.Min != "" || c.Max != ""):
				fmt.Fprintf(&line, " %s … %s", short(c.Min, maxListedValue), short(c.Max, maxListedValue))
			case len(c.Samples) > 0 || len(linked[linkKey(t.Name, c.Name)]) > 0:
				s := make([]string, 0, maxListedSamples)
				for _, v := range append(slices.Clone(linked[linkKey(t.Name, c.Name)]), c.Samples...) {
					if v = short(oneLineText(v), maxListedValue); len(s) < maxListedSamples && !slices.Contains(s, v) {
						s = append(s, v)
					}
				}
				line.WriteString(" e.g. " + strings.Join(s, " | "))
			}
		}
		line.WriteString("\n")
		if joins := tableJoins(data, t, false); len(joins) > 0 {
			line.WriteString("  joins: " + strings.Join(joins, "; ") + "\n")
		}
		if b.Len()+line.Len() > maxTableListing {
			fmt.Fprintf(&b, "… %d more tables (ls lists them)\n", len(offered)-i)
			break
		}
		b.WriteString(line.String())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// rankTables orders the tables by how many of the question's words their
// name (twice), their columns' names and their values (the samples and
// the linked values) name, the alphabetical order breaking ties: a small
// model asks the first table listed more often than any other.
func rankTables(tables []kg.Table, question string, linked map[string][]string) {
	q := map[string]bool{}
	for _, w := range words(question) {
		q[w] = true
	}
	score := map[string]int{}
	for _, t := range tables {
		n := 0
		seen := map[string]bool{}
		hit := func(text string, weight int) {
			for _, w := range words(text) {
				if q[w] && !seen[w] {
					seen[w] = true
					n += weight
				}
			}
		}
		tableTexts(t, linked, func(text string, tableName bool) {
			if tableName {
				hit(text, 2)
			} else {
				hit(text, 1)
			}
		})
		score[t.Name] = n
	}
	slices.SortStableFunc(tables, func(a, b kg.Table) int { return score[b.Name] - score[a.Name] })
}

// tableTexts calls f with the texts by which a table answers to a
// question's words: its name (tableName true), then each column's name,
// samples and values linked to the question (linkValues).
func tableTexts(t kg.Table, linked map[string][]string, f func(text string, tableName bool)) {
	f(t.Name, true)
	for _, c := range t.Columns {
		f(c.Name, false)
		for _, v := range c.Samples {
			f(v, false)
		}
		for _, v := range linked[linkKey(t.Name, c.Name)] {
			f(v, false)
		}
	}
}

// Bounds of value linking (Toolbox.linkValues).
const (
	maxLinkWords   = 8  // question words looked for
	maxLinkRows    = 50 // distinct values read from one column
	maxLinkColumns = 64 // text columns searched for one question
)

// linkStopWords are question words that name no value, as words spells
// them ("has" is "ha").
var linkStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range words("the and how many much which what who whom whose when where have has with does are was were " +
		"from for each all list give show there their that this these those total number count than more less most least " +
		"any every into between name names find tell about per its them they been average sum minimum maximum highest " +
		"lowest different distinct") {
		m[w] = true
	}
	return m
}()

// linkKey is the key of a table's column in linked values.
func linkKey(table, column string) string { return table + "\x00" + column }

// linkValues finds, in each text column of the tables, the values that
// share words with the question (value linking): one query a column in
// the sandbox, at most maxLinkRows distinct values read, up to
// maxListedSamples kept, those sharing the most words first, then the
// shorter. A column whose query fails (a limit of the sandbox) gets none:
// the listing then shows its samples, as without linking. The words are
// letters and digits only, so they go into the LIKE patterns as they are.
func (t *Toolbox) linkValues(ctx context.Context, tables []kg.Table, question string) (map[string][]string, error) {
	var qw []string
	for _, w := range words(question) {
		if !linkStopWords[w] && !slices.Contains(qw, w) && len(qw) < maxLinkWords {
			qw = append(qw, w)
		}
	}
	out := map[string][]string{}
	if len(qw) == 0 {
		return out, nil
	}
	var like []string
	searched := 0
	for _, tb := range tables {
		for _, c := range tb.Columns {
			if rangedType(c.Type) || !strings.Contains(strings.ToUpper(c.Type), "CHAR") && !strings.EqualFold(c.Type, "TEXT") {
				continue
			}
			if searched++; searched > maxLinkColumns {
				return out, nil
			}
			col := duck.QuoteIdent(c.Name)
			like = like[:0]
			for _, w := range qw {
				like = append(like, "lower("+col+") LIKE '%"+w+"%'")
			}
			q := fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s LIMIT %d", col, duck.QuoteIdent(tb.Name), strings.Join(like, " OR "), maxLinkRows)
			rows, _, err := t.rows(ctx, q, maxLinkRows)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				continue
			}
			type scored struct {
				v string
				n int
			}
			var vs []scored
			for _, r := range rows {
				if len(r) == 0 || r[0] == "" {
					continue
				}
				n := sharedWords(qw, r[0])
				if n > 0 && namedWhole(question, r[0]) {
					n += maxLinkWords // the question writes the whole value: before any value that shares words only
				}
				if n > 0 {
					vs = append(vs, scored{r[0], n})
				}
			}
			slices.SortStableFunc(vs, func(a, b scored) int {
				if a.n != b.n {
					return b.n - a.n
				}
				return len(a.v) - len(b.v)
			})
			for _, v := range vs[:min(len(vs), maxListedSamples)] {
				out[linkKey(tb.Name, c.Name)] = append(out[linkKey(tb.Name, c.Name)], v.v)
			}
		}
	}
	return out, nil
}

// namedWhole reports whether text holds value whole, ignoring case: at
// word boundaries ("Kaiga-4" in "Which country is Kaiga-4 built in?",
// not "plant" in "plants"), a value of three or more characters; a
// code's underscores may be written as spaces ("in_production" in "How
// many orders are in production?").
func namedWhole(text, value string) bool {
	value = strings.ToLower(strings.TrimSpace(value))
	if utf8.RuneCountInString(value) < 3 {
		return false
	}
	text = strings.ToLower(text)
	return indexWhole(text, value) >= 0 ||
		strings.Contains(value, "_") && indexWhole(text, strings.ReplaceAll(value, "_", " ")) >= 0
}

// indexWhole returns where text first holds value at word boundaries
// (neither side a letter or digit), or -1; case is compared as given.
func indexWhole(text, value string) int {
	for i := 0; ; {
		k := strings.Index(text[i:], value)
		if k < 0 {
			return -1
		}
		start, end := i+k, i+k+len(value)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return start
		}
		i = start + 1
	}
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// sharedWords counts the distinct words of value (words) that are among
// qw.
func sharedWords(qw []string, value string) int {
	n := 0
	for _, w := range uniq(words(value)) {
		if slices.Contains(qw, w) {
			n++
		}
	}
	return n
}

// uniq is words without repeats, in order.
func uniq(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// words splits text into lower-case words of three or more letters,
// camelCase and snake_case apart, each without a plural s.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) >= 3 {
			w := strings.ToLower(string(cur))
			if strings.HasSuffix(w, "ies") {
				w = strings.TrimSuffix(w, "ies") + "y"
			} else if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = strings.TrimSuffix(w, "s")
			}
			out = append(out, w)
		}
		cur = cur[:0]
	}
	prev := rune(0)
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// tableJoins lists the foreign keys from and to a table as
// "table.column = table.column", each with the share of its values found
// when withScore (cat's listing) and without (the action model's).
func tableJoins(all []kg.Table, t kg.Table, withScore bool) []string {
	var joins []string
	add := func(from, col, to, ref string, score float64) {
		j := fmt.Sprintf("%s.%s = %s.%s", from, col, to, ref)
		if withScore {
			j += fmt.Sprintf(" (%.2f)", score)
		}
		joins = append(joins, j)
	}
	for _, fk := range t.ForeignKeys {
		add(t.Name, fk.Column, fk.RefTable, fk.RefColumn, fk.Score)
	}
	for _, o := range all {
		for _, fk := range o.ForeignKeys {
			if fk.RefTable == t.Name && o.Name != t.Name {
				add(o.Name, fk.Column, t.Name, fk.RefColumn, fk.Score)
			}
		}
	}
	return joins
}

// rangedType reports whether a column of this SQL type is listed by its
// range rather than by samples.
func rangedType(typ string) bool {
	typ = strings.ToUpper(typ)
	return slices.ContainsFunc([]string{"INT", "DOUBLE", "FLOAT", "DECIMAL", "NUMERIC", "REAL", "DATE", "TIME"}, func(p string) bool {
		return strings.Contains(typ, p)
	})
}

// oneLineText is text with its white space runs made single spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// toolNameList is the offered tools' names, comma-separated.
func toolNameList(tools []Tool) string { return strings.Join(toolNames(tools), ", ") }
