package agent

import (
	"fmt"
	"slices"
	"strings"

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
// offers (selectSchema), each with its rows and its columns, a column
// with its type and either its range (numbers, dates, times) or a few of
// its values, so that a filter can name a value the table holds. The
// listing is what the model was trained on (prompts/agent.tmpl, part
// "action"); changing it means training the model again.
func tableLines(data []kg.Table) string {
	if len(data) == 0 {
		return "(none)"
	}
	offered := selectSchema(data)
	byName := map[string]kg.Table{}
	for _, t := range data {
		byName[t.Name] = t
	}
	var b strings.Builder
	for i, st := range offered {
		t := byName[st.name]
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
		if joins := tableJoins(data, t); len(joins) > 0 {
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

// tableJoins lists the foreign keys from and to a table as
// "table.column = table.column".
func tableJoins(all []kg.Table, t kg.Table) []string {
	var joins []string
	for _, fk := range t.ForeignKeys {
		joins = append(joins, fmt.Sprintf("%s.%s = %s.%s", t.Name, fk.Column, fk.RefTable, fk.RefColumn))
	}
	for _, o := range all {
		for _, fk := range o.ForeignKeys {
			if fk.RefTable == t.Name && o.Name != t.Name {
				joins = append(joins, fmt.Sprintf("%s.%s = %s.%s", o.Name, fk.Column, t.Name, fk.RefColumn))
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
