package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Bounds of the listings.
const (
	maxListed   = 40 // labels, edge types, tables, files per section of ls
	maxLsEdges  = 25 // edges of one node
	nameInLine  = 80 // bytes of a name in a listing line
	lsArgsShape = `{"id":"NODE_ID","type":"EDGE_TYPE"} or {}`
)

func (t *Toolbox) runLs(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{ ID, Type string }
	if err := decode(ToolLs, json.RawMessage(lsArgsShape), args, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.ID) == "" {
		if a.Type != "" {
			return "", &CallError{Tool: ToolLs, Kind: FailMalformed, Msg: "type without id", Hint: "give the id of the node whose edges to list: " + lsArgsShape}
		}
		return t.lsBundle(ctx)
	}
	n, err := t.findNode(ctx, ToolLs, a.ID)
	if err != nil {
		return "", err
	}
	return t.lsNode(ctx, n, strings.TrimSpace(a.Type))
}

// lsBundle lists what the bundle holds.
func (t *Toolbox) lsBundle(ctx context.Context) (string, error) {
	var b strings.Builder
	sections := []struct{ title, q string }{
		{"node labels", "SELECT l, count(*) FROM (SELECT unnest(labels) AS l FROM memory.main.nodes) GROUP BY l ORDER BY count(*) DESC, l"},
		{"node kinds", "SELECT kind, count(*) FROM memory.main.nodes GROUP BY kind ORDER BY count(*) DESC, kind"},
		{"edge types", "SELECT type, count(*) FROM memory.main.edges GROUP BY type ORDER BY count(*) DESC, type"},
	}
	for _, s := range sections {
		rows, more, err := t.rows(ctx, s.q, maxListed)
		if err != nil {
			return "", err
		}
		items := make([]string, len(rows))
		for i, r := range rows {
			items[i] = r[0] + " " + r[1]
		}
		writeList(&b, s.title, items, more)
	}
	tables, err := t.b.Tables()
	if err != nil {
		return "", err
	}
	items := make([]string, len(tables))
	for i, tb := range tables {
		items[i] = fmt.Sprintf("%s (%d rows, %d columns)", tb.Name, tb.Rows, len(tb.Columns))
	}
	writeList(&b, "data tables (cat NAME for columns, keys, joins and sample rows)", items, false)
	rows, _, err := t.rows(ctx, "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'memory' ORDER BY table_name", maxListed)
	if err != nil {
		return "", err
	}
	items = items[:0]
	for _, r := range rows {
		items = append(items, r[0])
	}
	writeList(&b, "graph tables for query", items, false)
	items = items[:0]
	for _, f := range t.b.Files() {
		if info, ok := t.b.Manifest.Files[f]; ok {
			f = fmt.Sprintf("%s (%d bytes)", f, info.Bytes)
		}
		items = append(items, f)
	}
	writeList(&b, "files", items, false)
	b.WriteString("ls ID lists a node's edges; cat ID shows a node, edge, chunk or table in full.")
	return b.String(), nil
}

// writeList writes one line of a listing: a title and its items, at most
// maxListed, saying when there are more.
func writeList(b *strings.Builder, title string, items []string, more bool) {
	if len(items) > maxListed {
		items, more = items[:maxListed], true
	}
	fmt.Fprintf(b, "%s: %s", title, strings.Join(items, ", "))
	if len(items) == 0 {
		b.WriteString("none")
	}
	if more {
		b.WriteString(", … (more; query the SQL tables for all)")
	}
	b.WriteString("\n")
}

// lsNode lists the edges of one node, like the entries of a directory.
func (t *Toolbox) lsNode(ctx context.Context, n nodeRef, typ string) (string, error) {
	where := ""
	if typ != "" {
		where = " AND e.type = " + lit(typ)
	}
	q := fmt.Sprintf(`SELECT dir, type, other, name, count(*) OVER (), id FROM (
  SELECT 'out' AS dir, e.type, e.dst AS other, coalesce(o.name, '') AS name, e.id FROM memory.main.edges e LEFT JOIN memory.main.nodes o ON o.id = e.dst WHERE e.src = %[1]s%[2]s
  UNION ALL
  SELECT 'in', e.type, e.src, coalesce(o.name, ''), e.id FROM memory.main.edges e LEFT JOIN memory.main.nodes o ON o.id = e.src WHERE e.dst = %[1]s%[2]s
) ORDER BY type, dir DESC, name, other, id`, lit(n.ID), where)
	rows, _, err := t.rows(ctx, q, maxLsEdges)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "node %s %q (%s; %s)\n", n.ID, short(n.Name, nameInLine), n.Kind, n.Labels)
	if len(rows) == 0 {
		if typ != "" {
			fmt.Fprintf(&b, "no edges of type %s (ls with this id alone lists all its edges)", typ)
		} else {
			b.WriteString("no edges")
		}
		return b.String(), nil
	}
	total := rows[0][4]
	fmt.Fprintf(&b, "%s edges (type, direction, other end's id and name, edge id):\n", total)
	for _, r := range rows {
		arrow := "->"
		if r[0] == "in" {
			arrow = "<-"
		}
		fmt.Fprintf(&b, "%s\t%s %s\t%s\tedge %s\n", r[1], arrow, r[2], short(r[3], nameInLine), r[5])
	}
	if fmt.Sprint(len(rows)) != total {
		fmt.Fprintf(&b, "… (first %d of %s edges; add \"type\" to list one edge type)", len(rows), total)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// nodeRef is the head of one node.
type nodeRef struct{ ID, Name, Kind, Labels string }

// findNode returns the node with the id ref, or else the one node whose name
// is ref (ignoring case); a ref that names none or several is a not_found
// error for tool that says what to do.
func (t *Toolbox) findNode(ctx context.Context, tool, ref string) (nodeRef, error) {
	ref = strings.TrimSpace(ref)
	q := fmt.Sprintf(`SELECT id, name, kind, array_to_string(labels, ', ') FROM memory.main.nodes WHERE id = %[1]s
UNION ALL SELECT id, name, kind, array_to_string(labels, ', ') FROM memory.main.nodes
WHERE lower(name) = lower(%[1]s) AND NOT EXISTS (SELECT 1 FROM memory.main.nodes WHERE id = %[1]s) ORDER BY id`, lit(ref))
	rows, _, err := t.rows(ctx, q, 6)
	if err != nil {
		return nodeRef{}, err
	}
	switch len(rows) {
	case 0:
		return nodeRef{}, &CallError{Tool: tool, Kind: FailNotFound, Msg: fmt.Sprintf("no node has the id or name %q", short(ref, nameInLine)), Hint: "take an id from ls, grep or sems"}
	case 1:
		r := rows[0]
		return nodeRef{ID: r[0], Name: r[1], Kind: r[2], Labels: r[3]}, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r[0] + " (" + r[2] + ")"
	}
	return nodeRef{}, &CallError{Tool: tool, Kind: FailNotFound, Msg: fmt.Sprintf("several nodes are named %q: %s", short(ref, nameInLine), strings.Join(ids, ", ")), Hint: "call again with one of these ids"}
}
