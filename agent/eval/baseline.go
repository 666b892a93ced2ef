package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"kgforge/agent"
	"kgforge/bundle"
)

// maxContext bounds the full-context baseline's schema and graph summary,
// in bytes, so that it fits a small model's context.
const maxContext = 12000

// fullContext writes the full-context baseline's picture of the bundle:
// every data table with its columns, types, samples, keys and joins, then
// a summary of the graph (its tables' columns, nodes by kind and label,
// edges by type, the documents), all read through the toolbox's query.
func fullContext(ctx context.Context, tb *agent.Toolbox, b *bundle.Bundle) (string, error) {
	var s strings.Builder
	tables, err := b.Tables()
	if err != nil {
		return "", err
	}
	s.WriteString("Data tables (query them with SQL):\n")
	for _, t := range tables {
		fmt.Fprintf(&s, "- %s (%d rows):", t.Name, t.Rows)
		for _, c := range t.Columns {
			fmt.Fprintf(&s, " %s %s", c.Name, c.Type)
			if len(c.Samples) > 0 {
				fmt.Fprintf(&s, " [e.g. %s]", strings.Join(c.Samples[:min(3, len(c.Samples))], ", "))
			}
			s.WriteString(";")
		}
		if len(t.PrimaryKeys) > 0 {
			fmt.Fprintf(&s, " key %s;", strings.Join(t.PrimaryKeys, ", "))
		}
		for _, fk := range t.ForeignKeys {
			fmt.Fprintf(&s, " %s joins %s.%s;", fk.Column, fk.RefTable, fk.RefColumn)
		}
		s.WriteString("\n")
	}
	for _, sq := range graphSummary {
		args, _ := json.Marshal(map[string]string{"sql": sq.sql}) // a map of strings always marshals
		out, err := tb.Call(ctx, agent.ToolQuery, args)
		if err != nil {
			return "", fmt.Errorf("summarise the bundle's graph (%s): %w", sq.title, err)
		}
		fmt.Fprintf(&s, "\n%s:\n%s\n", sq.title, out)
	}
	return cutText(s.String(), maxContext), nil
}

// graphSummary are the queries of the full-context summary, over the
// graph tables every bundle has.
var graphSummary = []struct{ title, sql string }{
	{"Graph tables (columns)", `SELECT table_name, string_agg(column_name, ', ' ORDER BY ordinal_position) AS columns FROM information_schema.columns WHERE table_catalog <> 'data' GROUP BY table_name ORDER BY table_name`},
	{"Nodes by kind and label", `SELECT kind, coalesce(label, '') AS label, count(*) AS nodes FROM (SELECT kind, unnest(CASE WHEN len(labels) = 0 THEN [NULL] ELSE labels END) AS label FROM nodes) GROUP BY ALL ORDER BY nodes DESC, kind, label LIMIT 25`},
	{"Edges by type", `SELECT type, count(*) AS edges FROM edges GROUP BY type ORDER BY edges DESC, type LIMIT 25`},
	{"Documents (their text is in chunks.text; chunks.source_id = sources.id)", `SELECT id, uri, kind FROM sources WHERE id IN (SELECT source_id FROM chunks) ORDER BY uri LIMIT 30`},
}

// cutText bounds s at n bytes on a line boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := strings.LastIndexByte(s[:n], '\n')
	if i < 0 {
		i = n
	}
	return s[:i] + "\n(cut)"
}
