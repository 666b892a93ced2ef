package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// Bounds of cat.
const (
	maxCatMentions = 15 // chunks listed for one node
	maxCatLinks    = 15 // linked concepts listed for one table
	sampleRows     = 3
)

func (t *Toolbox) runCat(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{ ID, Name string } // name: the first port's argument, still taken
	if err := decode(ToolCat, json.RawMessage(`{"id":"NODE_ID, EDGE_ID, CHUNK_ID, TABLE or FILE"}`), args, &a); err != nil {
		return "", err
	}
	ref := strings.TrimSpace(cmp.Or(a.ID, a.Name))
	if ref == "" {
		return "", &CallError{Tool: ToolCat, Kind: FailMalformed, Msg: "no id", Hint: `call cat with {"id": "..."}: a node, edge or chunk id, a table name, or a file name from ls`}
	}
	if out, ok, err := t.catByID(ctx, ref); ok || err != nil {
		return out, err
	}
	if out, ok, err := t.catTable(ctx, ref); ok || err != nil {
		return out, err
	}
	if slices.Contains(t.b.Files(), ref) {
		return t.catFile(ctx, ref)
	}
	n, err := t.findNode(ctx, ToolCat, ref)
	if err != nil {
		var ce *CallError
		if errors.As(err, &ce) && ce.Kind == FailNotFound && !strings.HasPrefix(ce.Msg, "several") {
			ce.Msg = fmt.Sprintf("no node, edge, chunk, table or file is %q", short(ref, nameInLine))
			ce.Hint = "take an id from ls, grep or sems, or a table or file name that ls lists"
		}
		return "", err
	}
	return t.catNode(ctx, n)
}

// catByID shows the chunk, node or edge whose id is ref.
func (t *Toolbox) catByID(ctx context.Context, ref string) (string, bool, error) {
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT 'chunk' FROM memory.main.chunks WHERE id = %[1]s
UNION ALL SELECT 'node' FROM memory.main.nodes WHERE id = %[1]s
UNION ALL SELECT 'edge' FROM memory.main.edges WHERE id = %[1]s`, lit(ref)), 1)
	if err != nil || len(rows) == 0 {
		return "", false, err
	}
	var out string
	switch rows[0][0] {
	case "chunk":
		out, err = t.catChunk(ctx, ref)
	case "edge":
		out, err = t.catEdge(ctx, ref)
	default:
		var n nodeRef
		if n, err = t.findNode(ctx, ToolCat, ref); err == nil {
			out, err = t.catNode(ctx, n)
		}
	}
	return out, true, err
}

// catChunk shows a chunk's place in its source and its text.
func (t *Toolbox) catChunk(ctx context.Context, id string) (string, error) {
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT c.source_id, coalesce(s.uri, ''), c.ordinal, c.start, c."end", c.page, c.section, c.line_start, c.line_end, c.text
FROM memory.main.chunks c LEFT JOIN memory.main.sources s ON s.id = c.source_id WHERE c.id = %s`, lit(id)), 1)
	if err != nil || len(rows) == 0 {
		return "", err
	}
	r := rows[0]
	var b strings.Builder
	fmt.Fprintf(&b, "chunk %s: source %s (%s), ordinal %s, bytes %s-%s", id, r[1], r[0], r[2], r[3], r[4])
	if r[5] != "0" {
		fmt.Fprintf(&b, ", page %s", r[5])
	}
	if r[7] != "0" {
		fmt.Fprintf(&b, ", lines %s-%s", r[7], r[8])
	}
	if r[6] != "" {
		fmt.Fprintf(&b, ", section %q", r[6])
	}
	fmt.Fprintf(&b, "\n%s", quoteDoc(fmt.Sprintf("chunk=%q source=%q span=\"%s-%s\"", id, r[1], r[3], r[4]), r[9]))
	return b.String(), nil
}

// catEdge shows one edge: its ends, its evidence and where it was read.
func (t *Toolbox) catEdge(ctx context.Context, id string) (string, error) {
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT e.type, e.src, coalesce(s.name, ''), e.dst, coalesce(d.name, ''), e.confidence, e.valid_from, e.valid_to,
  e.properties, array_to_string(e.chunk_ids, ', '), e.evidence
FROM memory.main.edges e LEFT JOIN memory.main.nodes s ON s.id = e.src LEFT JOIN memory.main.nodes d ON d.id = e.dst WHERE e.id = %s`, lit(id)), 1)
	if err != nil || len(rows) == 0 {
		return "", err
	}
	r := rows[0]
	var b strings.Builder
	fmt.Fprintf(&b, "edge %s: %s %q -[%s]-> %s %q\nconfidence: %s\n", id, r[1], short(r[2], nameInLine), r[0], r[3], short(r[4], nameInLine), r[5])
	if r[6] != "" || r[7] != "" {
		fmt.Fprintf(&b, "valid: %s to %s\n", or(r[6], "?"), or(r[7], "?"))
	}
	writeProps(&b, r[8])
	if r[9] != "" {
		fmt.Fprintf(&b, "chunks: %s\n", r[9])
	}
	if r[10] != "" {
		b.WriteString("evidence:\n" + quoteDoc(fmt.Sprintf("edge=%q", id), r[10]))
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// catNode shows one node in full: its fields, properties, the chunks that
// mention it and its edges counted by type.
func (t *Toolbox) catNode(ctx context.Context, n nodeRef) (string, error) {
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT description, array_to_string(aliases, ' | '), properties, len(chunk_ids)
FROM memory.main.nodes WHERE id = %s`, lit(n.ID)), 1)
	if err != nil || len(rows) == 0 {
		return "", err
	}
	r := rows[0]
	var b strings.Builder
	fmt.Fprintf(&b, "node %s\nname: %s\nkind: %s\nlabels: %s\n", n.ID, n.Name, n.Kind, n.Labels)
	if r[1] != "" {
		fmt.Fprintf(&b, "aliases: %s\n", r[1])
	}
	writeProps(&b, r[2])
	if r[0] != "" {
		b.WriteString("description:\n" + quoteDoc(fmt.Sprintf("node=%q", n.ID), r[0]) + "\n")
	}
	if err := t.writeMentions(ctx, &b, n.ID, r[3]); err != nil {
		return "", err
	}
	if err := t.writeEdgeCounts(ctx, &b, n.ID); err != nil {
		return "", err
	}
	if kg.NodeKind(n.Kind) == kg.NodeTable {
		b.WriteString("cat " + n.Name + " shows the table's columns, keys, joins and sample rows\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// writeMentions lists the chunks that mention a node, with their source and span.
func (t *Toolbox) writeMentions(ctx context.Context, b *strings.Builder, id, count string) error {
	if count == "0" {
		return nil
	}
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT c.id, coalesce(s.uri, c.source_id), c.start, c."end", c.section
FROM (SELECT unnest(chunk_ids) AS cid FROM memory.main.nodes WHERE id = %s) m
JOIN memory.main.chunks c ON c.id = m.cid LEFT JOIN memory.main.sources s ON s.id = c.source_id
ORDER BY s.uri, c.start`, lit(id)), maxCatMentions)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "mentioned in %s chunks (chunk id, source, bytes, section):\n", count)
	for _, r := range rows {
		fmt.Fprintf(b, "  %s\t%s\t%s-%s\t%s\n", r[0], r[1], r[2], r[3], short(r[4], nameInLine))
	}
	if fmt.Sprint(len(rows)) != count {
		fmt.Fprintf(b, "  … (first %d; cat a chunk id for its text)\n", len(rows))
	}
	return nil
}

// writeEdgeCounts counts a node's edges by direction and type.
func (t *Toolbox) writeEdgeCounts(ctx context.Context, b *strings.Builder, id string) error {
	rows, more, err := t.rows(ctx, fmt.Sprintf(`SELECT dir, type, count(*) FROM (
  SELECT 'out' AS dir, type FROM memory.main.edges WHERE src = %[1]s
  UNION ALL SELECT 'in', type FROM memory.main.edges WHERE dst = %[1]s
) GROUP BY ALL ORDER BY count(*) DESC, type, dir`, lit(id)), maxListed)
	if err != nil || len(rows) == 0 {
		return err
	}
	items := make([]string, len(rows))
	for i, r := range rows {
		items[i] = fmt.Sprintf("%s %s %s", r[0], r[1], r[2])
	}
	writeList(b, "edges (ls "+id+" lists them)", items, more)
	return nil
}

// writeProps writes a JSON object of properties as sorted lines.
func writeProps(b *strings.Builder, raw string) {
	var m map[string]string
	if json.Unmarshal([]byte(raw), &m) != nil || len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteString("properties:\n")
	for _, k := range keys {
		fmt.Fprintf(b, "  %s: %s\n", k, short(m[k], 200))
	}
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// catTable shows a data table (columns, keys, joins, linked concepts, sample
// rows) or one of the graph tables (columns, sample rows).
func (t *Toolbox) catTable(ctx context.Context, name string) (string, bool, error) {
	tables, err := t.b.Tables()
	if err != nil {
		return "", false, err
	}
	i := slices.IndexFunc(tables, func(x kg.Table) bool { return strings.EqualFold(x.Name, name) })
	if i >= 0 {
		out, err := t.catDataTable(ctx, tables, tables[i])
		return out, true, err
	}
	rows, _, err := t.rows(ctx, "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'memory' AND table_name = "+lit(name), 1)
	if err != nil || len(rows) == 0 {
		return "", false, err
	}
	var b strings.Builder
	cols, _, err := t.rows(ctx, "SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = 'memory' AND table_name = "+lit(name)+" ORDER BY ordinal_position", 100)
	if err != nil {
		return "", true, err
	}
	fmt.Fprintf(&b, "graph table %s (query it with SQL)\ncolumns:\n", name)
	for _, c := range cols {
		fmt.Fprintf(&b, "  %s %s\n", c[0], c[1])
	}
	err = t.writeSample(ctx, &b, "memory.main."+duck.QuoteIdent(name))
	return strings.TrimSuffix(b.String(), "\n"), true, err
}

func (t *Toolbox) catDataTable(ctx context.Context, all []kg.Table, tb kg.Table) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "table %s: %d rows (node %s)\ncolumns (name, type, nulls, distinct, range or samples):\n", tb.Name, tb.Rows, kg.TableNodeID(tb.Name))
	for _, c := range tb.Columns {
		fmt.Fprintf(&b, "  %s %s", c.Name, c.Type)
		if c.Unit != "" {
			fmt.Fprintf(&b, " in %s", c.Unit)
		}
		fmt.Fprintf(&b, ", %d nulls, %d distinct", c.Nulls, c.Distinct)
		if c.Min != "" || c.Max != "" {
			fmt.Fprintf(&b, ", %s … %s", short(c.Min, 40), short(c.Max, 40))
		} else if len(c.Samples) > 0 {
			fmt.Fprintf(&b, ", e.g. %s", short(strings.Join(c.Samples, " | "), 80))
		}
		b.WriteString("\n")
	}
	if len(tb.PrimaryKeys) > 0 {
		fmt.Fprintf(&b, "keys (unique, non-null): %s\n", strings.Join(tb.PrimaryKeys, ", "))
	}
	writeJoins(&b, all, tb)
	if err := t.writeLinkedConcepts(ctx, &b, tb.Name); err != nil {
		return "", err
	}
	if err := t.writeSample(ctx, &b, "data.main."+duck.QuoteIdent(tb.Name)); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// writeJoins lists the candidate joins from and to a table.
func writeJoins(b *strings.Builder, all []kg.Table, tb kg.Table) {
	if joins := tableJoins(all, tb, true); len(joins) > 0 {
		fmt.Fprintf(b, "joins (share of values found): %s\n", strings.Join(joins, "; "))
	}
}

// writeLinkedConcepts lists the concepts the link step linked to a table or
// its columns, and how many of its rows are entities.
func (t *Toolbox) writeLinkedConcepts(ctx context.Context, b *strings.Builder, table string) error {
	if _, ok := t.b.Manifest.Files[bundle.LinksFile]; !ok {
		return nil
	}
	rows, more, err := t.rows(ctx, fmt.Sprintf(`SELECT type, target, src, src_name, band, round(score, 2) FROM memory.main.links
WHERE type IN (%s, %s) AND band <> %s AND (target = %s OR starts_with(target, %s))
ORDER BY band, score DESC, target, src`, lit(kg.LinkRepresentedBy), lit(kg.LinkMeasuredBy), lit(kg.LinkBandNone), lit(table), lit(table+".")), maxCatLinks)
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		b.WriteString("linked concepts (link, target, node id, name, band, score):\n")
		for _, r := range rows {
			fmt.Fprintf(b, "  %s\t%s\t%s\t%s\t%s %s\n", r[0], r[1], r[2], short(r[3], nameInLine), r[4], r[5])
		}
		if more {
			b.WriteString("  … (more: query the links table)\n")
		}
	}
	n, _, err := t.rows(ctx, fmt.Sprintf("SELECT count(*) FROM memory.main.links WHERE type = %s AND band = %s AND starts_with(target, %s)",
		lit(kg.LinkRowOf), lit(kg.LinkBandLinked), lit(table+"[")), 1)
	if err == nil && len(n) == 1 && n[0][0] != "0" {
		fmt.Fprintf(b, "rows that are entities: %s (edges %s to node %s)\n", n[0][0], kg.LinkRowOf, kg.TableNodeID(table))
	}
	return err
}

// writeSample appends the first rows of a table.
func (t *Toolbox) writeSample(ctx context.Context, b *strings.Builder, from string) error {
	out, err := t.query(ctx, "SELECT * FROM "+from+fmt.Sprintf(" LIMIT %d", sampleRows), sampleRows)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "sample (%d rows):\n%s\n", sampleRows, out)
	return nil
}

// catFile shows a bundle file: a Parquet file's first rows, the data file's
// tables, a text file's start.
func (t *Toolbox) catFile(ctx context.Context, name string) (string, error) {
	if view, ok := strings.CutSuffix(name, ".parquet"); ok {
		return t.query(ctx, "SELECT * FROM memory.main."+duck.QuoteIdent(view)+" LIMIT 10", 10)
	}
	if name == bundle.DataFile {
		return t.query(ctx, "SELECT table_name, estimated_size AS rows FROM duckdb_tables() WHERE database_name = 'data'", MaxRows)
	}
	if strings.HasSuffix(name, ".arrow") {
		return "", &CallError{Tool: ToolCat, Kind: FailNotFound, Msg: name + " is binary", Hint: "sems searches the vectors; query reads the tables"}
	}
	raw, err := t.b.ReadFile(name, MaxResult)
	if err != nil {
		return "", &CallError{Tool: ToolCat, Kind: FailNotFound, Msg: err.Error(), Hint: "name a file that ls lists"}
	}
	return string(raw), nil
}
