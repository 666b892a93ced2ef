package agent

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

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
func tableLines(data []kg.Table, question string) string {
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
	rankTables(offered, question)
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
			case len(c.Samples) > 0:
				s := make([]string, 0, maxListedSamples)
				for _, v := range c.Samples[:min(len(c.Samples), maxListedSamples)] {
					s = append(s, short(oneLineText(v), maxListedValue))
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
// name (twice), their columns' names and their values name, the
// alphabetical order breaking ties: a small model asks the first table
// listed more often than any other.
func rankTables(tables []kg.Table, question string) {
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
		hit(t.Name, 2)
		for _, c := range t.Columns {
			hit(c.Name, 1)
			for _, v := range c.Samples {
				hit(v, 1)
			}
		}
		score[t.Name] = n
	}
	slices.SortStableFunc(tables, func(a, b kg.Table) int { return score[b.Name] - score[a.Name] })
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
