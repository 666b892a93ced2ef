package load

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate"
	"kgforge/kg"
)

// hybridGraph is a graph of both layers as the link step leaves it: tables
// and columns, row entities of the suppliers table with ROW_OF to it, a
// foreign-key edge between row entities, a concept REPRESENTED_BY a table,
// a quantity MEASURED_BY a column, an extracted entity SAME_AS a row
// entity, and facts whose predicates spell the link types; salt changes
// every description.
func hybridGraph(salt string) kg.Graph {
	sup, parts := kg.TableNodeID("suppliers"), kg.TableNodeID("parts")
	lead := kg.ColumnNodeID("parts", "lead_time_days")
	g := kg.Graph{Nodes: []kg.Node{
		{ID: sup, Name: "suppliers", Kind: kg.NodeTable, Labels: []string{"Table"}, Description: salt},
		{ID: parts, Name: "parts", Kind: kg.NodeTable, Labels: []string{"Table"}, Description: salt},
		{ID: lead, Name: "parts.lead_time_days", Kind: kg.NodeColumn, Labels: []string{"Column"}, Properties: map[string]string{"table": "parts", "column": "lead_time_days"}},
	}}
	edge := func(src, typ, dst string, props map[string]string) {
		g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(src, typ, dst), Src: src, Dst: dst, Type: typ, Confidence: 1, Evidence: salt, Properties: props})
	}
	edge(parts, consolidate.EdgeHasColumn, lead, nil)
	for _, r := range []struct{ table, key, name, typ string }{
		{"suppliers", "S1", "Kestrel Alloys", "Supplier"}, {"suppliers", "S2", "TechChip Inc", "Supplier"}, {"parts", "P1", "Frame", "Part"},
	} {
		id, tid := kg.ID("row", r.table, r.key), kg.TableNodeID(r.table)
		g.Nodes = append(g.Nodes, kg.Node{
			ID: id, Name: r.name, Kind: kg.NodeConcept, Labels: []string{"Entity", r.typ}, Description: salt,
			Properties: map[string]string{kg.PropTable: r.table, kg.PropKeyColumn: r.table[:len(r.table)-1] + "_id", kg.PropKey: r.key, "type": r.typ, "country": "CZ"},
		})
		edge(id, kg.LinkRowOf, tid, map[string]string{kg.PropKeyColumn: r.table[:len(r.table)-1] + "_id", kg.PropKey: r.key})
	}
	s1, s2, p1 := kg.ID("row", "suppliers", "S1"), kg.ID("row", "suppliers", "S2"), kg.ID("row", "parts", "P1")
	// A row entity's other properties are named by the table's columns,
	// whatever they are called.
	for k, v := range map[string]string{"unit cost (€)": "142.00", "id": "P-1", "build_id": "other", "kind": "table", "a`b} RETURN 1 //": "x"} {
		g.Nodes[len(g.Nodes)-1].Properties[k] = v
	}
	edge(p1, "SUPPLIED_BY", s2, map[string]string{"from": "parts[P1]", "to": "suppliers[S2]", "on": "parts.supplier_id = suppliers.supplier_id"})
	concept := func(name, typ string) string {
		id := kg.ID("entity", name)
		g.Nodes = append(g.Nodes, kg.Node{ID: id, Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity", typ}, Description: salt, Properties: map[string]string{"type": typ}})
		return id
	}
	supplier, leadTime, techchip := concept("supplier", "Concept"), concept("lead time", "Quantity"), concept("TechChip", "Company")
	edge(supplier, kg.LinkRepresentedBy, sup, map[string]string{"score": "0.93", "target": "suppliers"})
	edge(leadTime, kg.LinkMeasuredBy, lead, map[string]string{"score": "0.88", "target": "parts.lead_time_days"})
	edge(techchip, kg.LinkSameAs, s2, map[string]string{"score": "0.97", "target": "suppliers[S2]"})
	// Extracted facts whose predicates spell link types.
	edge(techchip, "row_of", s1, nil)
	edge(techchip, "measured by", leadTime, nil)
	for _, e := range g.Edges {
		if e.Type == kg.LinkRepresentedBy || e.Type == kg.LinkMeasuredBy || e.Type == kg.LinkSameAs || e.Type == kg.LinkRowOf {
			g.Links = append(g.Links, kg.Link{ID: e.ID, Src: e.Src, Dst: e.Dst, Type: e.Type, Target: e.Properties["target"], Band: kg.LinkBandLinked, Score: 1, DecidedBy: "auto"})
		}
	}
	// An uncertain link is logged, not loaded.
	g.Links = append(g.Links, kg.Link{ID: kg.EdgeID(leadTime, kg.LinkMeasuredBy, sup), Src: leadTime, Dst: sup, Type: kg.LinkMeasuredBy, Band: kg.LinkBandUncertain, Score: 0.5})
	return g
}

// fullState is the current build of l's graph with every label and
// property (but build_id) of every node and relationship, as sorted lines.
func fullState(t *testing.T, l *Loader) []string {
	t.Helper()
	ctx := context.Background()
	cur, err := l.Current(ctx, l.cfg.Graph)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.read(ctx, "MATCH (n:"+NodeLabel+" {build_id: $b}) RETURN n.id AS a, labels(n) AS l, properties(n) AS p "+
		"UNION ALL MATCH (x:"+NodeLabel+" {build_id: $b})-[r]->(y:"+NodeLabel+" {build_id: $b}) RETURN x.id + '-' + type(r) + '->' + y.id AS a, [] AS l, properties(r) AS p",
		map[string]any{"b": cur})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range res.Records {
		labels := r.Values[1].([]any)
		slices.SortFunc(labels, func(a, b any) int { return cmp.Compare(a.(string), b.(string)) })
		props := r.Values[2].(map[string]any)
		delete(props, "build_id")
		lines = append(lines, fmt.Sprint(r.Values[0], labels, props)) // fmt prints maps sorted by key
	}
	slices.Sort(lines)
	return lines
}

// TestLoaderIntegration_RowEntitiesAndLinkEdges loads a bundle of the
// hybrid layer into the real Neo4j and checks that row entities carry their
// key, ROW_OF reaches a Table node with the key, MEASURED_BY a Column node,
// REPRESENTED_BY and SAME_AS their ends, that predicates spelling a link
// type stay facts of their own type, that properties named by a table's
// columns arrive whatever their names and never replace id, kind or
// build_id, that a row entity is found through
// the row index, and that loading it again, or a rebuild of it, changes
// nothing.
func TestLoaderIntegration_RowEntitiesAndLinkEdges(t *testing.T) {
	l := newLoader(t, neo4jURI(t), 3)
	ctx := context.Background()
	g := hybridGraph("one")
	b := buildBundle(t, "hybrid-1", g)
	st, err := l.Load(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graphState(t, l), bundleState(g); !slices.Equal(got, want) {
		t.Fatalf("neo4j holds\n%q\nwant\n%q", got, want)
	}
	if st.Relationships != len(g.Edges) {
		t.Errorf("loaded %d relationships, the graph has %d edges (the uncertain link must stay out)", st.Relationships, len(g.Edges))
	}
	cur := b.Manifest.BuildID
	for _, c := range []struct{ what, q, want string }{
		{
			"ROW_OF to the Table node, with the key",
			"MATCH (r:" + NodeLabel + ":Entity:Supplier {build_id: $b, name: 'Kestrel Alloys'})-[x:ROW_OF]->(t:" + NodeLabel + ":Table {build_id: $b}) " +
				"RETURN r.table + ' ' + r.key_column + ' ' + r.key + ' ' + r.country + ' ' + t.name + ' ' + x.key_column + ' ' + x.key",
			"suppliers supplier_id S1 CZ suppliers supplier_id S1",
		},
		{
			"MEASURED_BY to the Column node",
			"MATCH (:" + NodeLabel + ":Entity:Quantity {build_id: $b, name: 'lead time'})-[m:MEASURED_BY]->(c:" + NodeLabel + ":Column {build_id: $b}) " +
				"RETURN c.name + ' ' + m.score + ' ' + m.target",
			"parts.lead_time_days 0.88 parts.lead_time_days",
		},
		{
			"REPRESENTED_BY to the Table node",
			"MATCH (:" + NodeLabel + ":Entity {build_id: $b, name: 'supplier'})-[:REPRESENTED_BY]->(t:" + NodeLabel + ":Table {build_id: $b}) RETURN t.name",
			"suppliers",
		},
		{
			"SAME_AS to the row entity, which has its foreign-key edge",
			"MATCH (:" + NodeLabel + " {build_id: $b, name: 'TechChip'})-[:SAME_AS]->(r:" + NodeLabel + ":Entity:Supplier {build_id: $b})<-[f:SUPPLIED_BY]-(p:" + NodeLabel + ":Part {build_id: $b}) " +
				"RETURN r.key + ' ' + p.key + ' ' + f.on",
			"S2 P1 parts.supplier_id = suppliers.supplier_id",
		},
		{
			"ROW_OF only from row entities: the fact row_of is ROW_OF_REL",
			"MATCH (a:" + NodeLabel + " {build_id: $b})-[r]->() WHERE type(r) STARTS WITH 'ROW_OF' OR type(r) STARTS WITH 'MEASURED_BY' " +
				"WITH type(r) + ':' + coalesce(a.key, a.name) AS x ORDER BY x RETURN reduce(s = '', y IN collect(x) | s + y + ' ')",
			"MEASURED_BY:lead time MEASURED_BY_REL:TechChip ROW_OF:P1 ROW_OF:S1 ROW_OF:S2 ROW_OF_REL:TechChip ",
		},
		{
			"the properties named by the columns of the row's table",
			"MATCH (n:" + NodeLabel + ":Part {build_id: $b}) RETURN n.`unit cost (€)` + ' ' + n.`a``b} RETURN 1 //` + ' ' + n.kind + ' ' + n.build_id + ' ' + (n.id = '" +
				kg.ID("row", "parts", "P1") + "')",
			"142.00 x concept " + "BUILD true",
		},
		{
			"the row entity by table and key",
			"MATCH (n:" + NodeLabel + " {build_id: $b, table: 'suppliers', key: 'S2'}) RETURN n.name",
			"TechChip Inc",
		},
		{
			"the row index",
			"SHOW INDEXES YIELD name, state, properties WHERE name = '" + RowIndex + "' RETURN state + ' ' + reduce(s = '', p IN properties | s + p + ' ')",
			"ONLINE build_id table key ",
		},
	} {
		got, err := l.query(ctx, c.q, map[string]any{"b": cur})
		if c.want = strings.ReplaceAll(c.want, "BUILD", cur); err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.what, got, err, c.want)
		}
	}

	before := fullState(t, l)
	st, err = l.Load(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if !st.AlreadyLoaded || !slices.Equal(fullState(t, l), before) {
		t.Errorf("reload of the same bundle: stats %+v, graph changed: %v", st, !slices.Equal(fullState(t, l), before))
	}
	// A rebuild of the same graph is a new build with the same content.
	if _, err := l.Load(ctx, buildBundle(t, "hybrid-2", hybridGraph("one"))); err != nil {
		t.Fatal(err)
	}
	if after := fullState(t, l); !slices.Equal(after, before) {
		t.Errorf("a rebuild of the same graph changed neo4j:\n got %q\nwant %q", after, before)
	}
	checkBuilds(t, l, mustCurrent(t, l))
}

func mustCurrent(t *testing.T, l *Loader) string {
	t.Helper()
	cur, err := l.Current(context.Background(), l.cfg.Graph)
	if err != nil || cur == "" {
		t.Fatalf("current build: %q, %v", cur, err)
	}
	return cur
}
