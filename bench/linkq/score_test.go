package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate"
	"kgforge/kg"
)

// testGold is a small gold file of the same format as the example's.
const testGold = `
corpus: t
tables:
  - {table: suppliers, entities: true, key: id, name: name}
  - {table: parts, entities: true, key: id, name: name}
  - {table: orders, entities: false}
rows:
  - row: suppliers[S1]
    name: Kestrel Alloys
    surfaces:
      - {name: Kestrel Alloys, at: ["docs/a.md:1"]}
      - {name: Kestrel Alloys Ltd., at: ["docs/a.md:1"]}
  - row: suppliers[S2]
    name: Tagus Composites
    surfaces:
      - {name: Tagus Composites, at: ["docs/b.md:1"]}
  - row: parts[P1]
    name: Frame TR5
    surfaces:
      - {name: Frame TR5, at: ["docs/a.md:1"]}
fks:
  - {from: "parts[P1]", to: "suppliers[S1]"}
concepts:
  - {concept: supplier, names: [supplier, suppliers], targets: [suppliers]}
  - {concept: supplier rating, names: [rating], targets: [suppliers.rating]}
  - {concept: delayed order, names: [delayed order], targets: [orders.status]}
  - {concept: list price, names: [list price], targets: []}
rules:
  - {rule: "A customer order of more than 50 bicycles requires approval.", at: "docs/a.md:2", targets: [orders.quantity]}
  - {rule: "Dealers receive a discount.", at: "docs/a.md:3", targets: []}
  - {rule: "An order of a document the bundle lacks must be counted.", at: "docs/c.md:2", targets: [orders.quantity]}
values:
  - {name: Brno plant, aliases: [Brno Assembly Plant], columns: [orders.plant], at: ["docs/a.md:4"]}
  - {name: Porto plant, columns: [orders.plant], at: ["docs/c.md:1"]}
duplicates:
  - {names: [Kestrel Alloys Ltd., Kestrel Alloys], row: "suppliers[S1]", issue: true}
  - {names: [Brno plant, Brno Assembly Plant], issue: true}
  - {names: [Porto plant, Porto Assembly Plant]}
  - {names: [Urbanmove Rentals, Urbanmove Rentals B.V.]}
distinct:
  - {names: [Porto plant, Brno plant]}
  - {names: [Kestrel Alloys, Tagus Composites]}
persons:
  - {name: Marta Sousa}
  - {name: Ana Ferreira}
  - {name: Jonas Lind}
`

func loadTestGold(t *testing.T) *Gold {
	t.Helper()
	raw := testGold
	p := filepath.Join(t.TempDir(), "gold.yaml")
	if err := os.WriteFile(p, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := LoadGold(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// graph builds hand-made bundle data: what a link step could have made of
// two chunks and three tables, right and wrong in known places.
type graph struct{ d *Data }

func newGraph() *graph {
	return &graph{d: &Data{SourceURI: map[string]string{"sa": "docs/a.md", "sb": "docs/b.md"}, HasLinkLog: true}}
}

func (g *graph) entity(id, name, typ string, props ...string) {
	n := kg.Node{ID: id, Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity", typ}, Properties: map[string]string{"type": typ}}
	for i := 0; i+1 < len(props); i += 2 {
		n.Properties[props[i]] = props[i+1]
	}
	g.d.Nodes = append(g.d.Nodes, n)
	g.d.Merges = append(g.d.Merges, kg.MergeDecision{ClusterID: id, Member: name, Canonical: name})
}

func (g *graph) row(id, name, table, key string) {
	g.entity(id, name, "Row", kg.PropTable, table, kg.PropKeyColumn, "id", kg.PropKey, key)
	g.d.Merges[len(g.d.Merges)-1].Rule = consolidate.RuleRowAnchor
	g.edge(id, kg.LinkRowOf, kg.TableNodeID(table))
}

func (g *graph) table(name string, cols ...string) {
	g.d.Nodes = append(g.d.Nodes, kg.Node{ID: kg.TableNodeID(name), Name: name, Kind: kg.NodeTable})
	for _, c := range cols {
		g.d.Nodes = append(g.d.Nodes, kg.Node{
			ID: kg.ColumnNodeID(name, c), Name: name + "." + c, Kind: kg.NodeColumn,
			Properties: map[string]string{"table": name, "column": c},
		})
	}
}

func (g *graph) chunk(id, source, text string) {
	g.d.Chunks = append(g.d.Chunks, kg.Chunk{ID: id, SourceID: source, Text: text})
	g.d.Nodes = append(g.d.Nodes, kg.Node{ID: id, Kind: kg.NodeChunk})
}

func (g *graph) edge(src, typ, dst string) {
	g.d.Edges = append(g.d.Edges, kg.Edge{ID: kg.EdgeID(src, typ, dst), Src: src, Type: typ, Dst: dst})
}

func (g *graph) extracted(surfaces ...string) {
	for _, s := range surfaces {
		g.d.Triplets = append(g.d.Triplets, kg.Triplet{Subject: kg.Mention{Surface: s}, Predicate: "is", Object: kg.Mention{Surface: "x"}})
	}
}

func (g *graph) merge(cluster, member string) {
	g.d.Merges = append(g.d.Merges, kg.MergeDecision{ClusterID: cluster, Member: member})
}

// exampleGraph: rows S1, S2 and a wrong row of orders (which stays a
// table); part P1 missing; one right FK edge and one wrong; extraction of
// "Kestrel Alloys Ltd." (merged into S1: right), "Velora Cycles" (merged
// into S1: wrong) and "Tagus Composites" (a node of its own: missed);
// mentions c1 → S1 right, c2 → S1 wrong, c2 → S2 missed; concept links
// right, wrong, unjudged, and one from the link log.
func exampleGraph() *graph {
	g := newGraph()
	g.table("suppliers", "id", "name", "rating", "country")
	g.table("orders", "id", "status", "plant", "quantity")
	g.table("parts", "id", "name")
	g.row("s1", "Kestrel Alloys", "suppliers", "S1")
	g.row("s2", "Tagus Composites", "suppliers", "S2")
	g.row("o1", "O-1", "orders", "O1")
	g.chunk("c1", "sa", "Kestrel Alloys Ltd. makes the Frame TR5.")
	g.chunk("c2", "sb", "Tagus Composites makes carbon frames.")
	g.edge("c1", "MENTIONS", "s1")
	g.edge("c2", "MENTIONS", "s1")
	g.edge("s1", "SUPPLIES", "s2")
	g.extracted("Kestrel Alloys Ltd.", "Velora Cycles", "Tagus Composites")
	g.merge("s1", "Kestrel Alloys Ltd.")
	g.merge("s1", "Velora Cycles")
	g.entity("tc", "Tagus Composites", "Company")
	g.entity("k1", "supplier", "Concept")
	g.entity("k2", "rating", "Concept")
	g.entity("k3", "widget", "Concept")
	g.edge("k1", kg.LinkRepresentedBy, kg.TableNodeID("suppliers"))
	g.edge("k2", kg.LinkMeasuredBy, kg.ColumnNodeID("suppliers", "country"))
	g.edge("k3", kg.LinkRepresentedBy, kg.TableNodeID("parts"))
	g.d.Links = append(g.d.Links,
		kg.Link{SrcName: "delayed order", Type: kg.LinkMeasuredBy, Target: "orders.status", Band: kg.LinkBandLinked},
		kg.Link{SrcName: "list price", Type: kg.LinkMeasuredBy, Target: "orders.plant", Band: kg.LinkBandUncertain},
		kg.Link{SrcName: "Brno plant", Type: kg.LinkMeasuredBy, Target: "orders.plant", Band: kg.LinkBandLinked},
		kg.Link{SrcName: "Brno Assembly Plant", Type: kg.LinkMeasuredBy, Target: "parts.plant", Band: kg.LinkBandUncertain},
		kg.Link{SrcName: "A customer order of more than 50 bicycles requires approval.", Type: kg.LinkMeasuredBy, Target: "orders.status", Band: kg.LinkBandLinked},
		kg.Link{SrcName: "Rule: a customer order of more than 50 bicycles requires approval", Type: kg.LinkMeasuredBy, Target: "orders.quantity", Band: kg.LinkBandLinked},
		kg.Link{SrcName: "Dealers receive a discount.", Type: kg.LinkMeasuredBy, Target: "orders.quantity", Band: kg.LinkBandLinked},
	)
	return g
}

func scoreOf(t *testing.T, r *Report, kind string) Score {
	t.Helper()
	for _, s := range r.Scores {
		if s.Kind == kind {
			return s
		}
	}
	t.Fatalf("no score of kind %s", kind)
	return Score{}
}

func TestScoreCountsEachLinkKindAgainstTheGold(t *testing.T) {
	r := ScoreBundle(loadTestGold(t), exampleGraph().d, 10)
	want := []struct {
		kind              string
		tp, fp, found, of int
	}{
		{KindRowEntity, 2, 1, 2, 3},     // S1, S2 right; orders[O1] wrong; parts[P1] missed
		{KindFK, 0, 1, 0, 1},            // S1 → S2 is no FK of the gold; P1 → S1 missing
		{KindSameAs, 1, 1, 1, 2},        // "Kestrel Alloys Ltd." right, "Velora Cycles" wrong, "Tagus Composites" left apart
		{KindMentions, 1, 1, 1, 3},      // c1 → S1 right; c2 → S1 wrong; c2 → S2 and c1 → P1 missed
		{KindRepresentedBy, 1, 1, 1, 1}, // supplier → suppliers; widget → parts unjudged
		{KindMeasuredBy, 1, 1, 1, 2},    // delayed order right (link log); rating → country wrong
		{KindValue, 1, 0, 1, 1},         // Brno plant → orders.plant
	}
	for _, w := range want {
		s := scoreOf(t, r, w.kind)
		if s.TP != w.tp || s.FP != w.fp || s.Found != w.found || s.Gold != w.of {
			t.Errorf("%s: TP %d FP %d found %d of %d; want %d %d %d of %d (wrong %v, missed %v)",
				w.kind, s.TP, s.FP, s.Found, s.Gold, w.tp, w.fp, w.found, w.of, s.Wrong, s.Missed)
		}
	}
	if s := scoreOf(t, r, KindRepresentedBy); s.Unjudged != 1 || s.Precision != 0.5 {
		t.Errorf("REPRESENTED_BY: unjudged %d, precision %v; want 1 and 0.5", s.Unjudged, s.Precision)
	}
	if s := scoreOf(t, r, KindRule); s.Note != "1 rules of documents the bundle does not hold left out" {
		t.Errorf("rule note %q", s.Note)
	}
	if s := scoreOf(t, r, KindRowEntity); !strings.HasPrefix(s.Note, "0 right rows without a ROW_OF edge") {
		t.Errorf("row note %q", s.Note)
	}
}

func TestScoreRowEntityWithoutROW_OFEdgeIsNoted(t *testing.T) {
	g := exampleGraph()
	g.d.Edges = slices.DeleteFunc(g.d.Edges, func(e kg.Edge) bool { return e.Src == "s2" && e.Type == kg.LinkRowOf })
	s := scoreOf(t, ScoreBundle(loadTestGold(t), g.d, 10), KindRowEntity)
	if !strings.HasPrefix(s.Note, "1 right rows without a ROW_OF edge") {
		t.Errorf("note %q; want one row without its edge", s.Note)
	}
}

func TestScoreWithoutExtractionSaysSo(t *testing.T) {
	// The name-only path: row entities and their anchors in the merge
	// log, no triplet, no other member.
	g := newGraph()
	g.table("suppliers", "id", "name")
	g.row("s1", "Kestrel Alloys", "suppliers", "S1")
	s := scoreOf(t, ScoreBundle(loadTestGold(t), g.d, 10), KindSameAs)
	if s.Gold != 0 || s.TP+s.FP != 0 || !strings.Contains(s.Note, "no extracted entities") {
		t.Errorf("%+v; want nothing judged and a note", s)
	}
}

func group(t *testing.T, gs []GroupResult, first string) GroupResult {
	t.Helper()
	for _, g := range gs {
		if g.Names[0] == first {
			return g
		}
	}
	t.Fatalf("no group %s", first)
	return GroupResult{}
}

func TestScoreDuplicatesOneNodeUncertainOrSplit(t *testing.T) {
	g := exampleGraph()
	g.entity("b1", "Brno plant", "Plant")
	g.entity("b2", "Brno Assembly Plant", "Plant")
	g.entity("p1", "Porto plant", "Plant")
	g.entity("p2", "Porto Assembly Plant", "Plant")
	g.entity("u1", "Urbanmove Rentals", "Company")
	g.d.MergeLinks = []kg.MergeLink{
		{A: "Porto plant", B: "Brno plant", Decision: "uncertain", Doubt: 0.9},
		{A: "Brno plant", B: "Brno Assembly Plant", Decision: "uncertain", Doubt: 0.5},
		{A: "Porto plant", B: "Porto Assembly Plant", Decision: "uncertain", Doubt: 0.1},
	}
	r := ScoreBundle(loadTestGold(t), g.d, 2)
	for _, w := range []struct {
		first, state string
		ok           bool
	}{
		{"Kestrel Alloys Ltd.", StateOneNode, true}, // merged into the row
		{"Brno plant", StateUncertain, true},        // rank 2 of 3, within top 2
		{"Porto plant", StateUncertain, false},      // rank 3: beyond the top
		{"Urbanmove Rentals", StateAbsent, false},   // one name only in the graph
	} {
		if got := group(t, r.Duplicates, w.first); got.State != w.state || got.OK != w.ok {
			t.Errorf("%s: %s ok %v (%s); want %s ok %v", w.first, got.State, got.OK, got.Detail, w.state, w.ok)
		}
	}
	// Without the uncertain pairs the Brno names are split, and the
	// detail says which nodes they are.
	g.d.MergeLinks = nil
	got := group(t, ScoreBundle(loadTestGold(t), g.d, 2).Duplicates, "Brno plant")
	if got.State != StateSplit || got.Detail != `nodes: "Brno Assembly Plant" (Plant), "Brno plant" (Plant)` {
		t.Errorf("Brno without pairs: %s (%s); want split naming both nodes", got.State, got.Detail)
	}
	// The name-only path: no node named "Kestrel Alloys Ltd.", but the
	// chunk holding it MENTIONS the row.
	g = exampleGraph()
	g.d.Merges = slices.DeleteFunc(g.d.Merges, func(m kg.MergeDecision) bool { return m.Member == "Kestrel Alloys Ltd." })
	r = ScoreBundle(loadTestGold(t), g.d, 2)
	if got := group(t, r.Duplicates, "Kestrel Alloys Ltd."); got.State != StateOneNode {
		t.Errorf("dictionary-found duplicate: %s (%s); want one node", got.State, got.Detail)
	}
	// An extracted "Kestrel Alloys Ltd." left apart with an uncertain
	// SAME_AS link to the row: the link stands for the resolver's pair,
	// which leaves the merge pairs, and comes after the two left (the
	// example graph has two more uncertain links, of score 0).
	g = exampleGraph()
	g.d.Merges = slices.DeleteFunc(g.d.Merges, func(m kg.MergeDecision) bool { return m.Member == "Kestrel Alloys Ltd." })
	g.entity("k", "Kestrel Alloys Ltd.", "Company")
	g.d.MergeLinks = []kg.MergeLink{
		{A: "Kestrel Alloys Ltd.", B: "Kestrel Alloys", ClusterID: "k", BCluster: "s1", Decision: "uncertain", Doubt: 0.95},
		{A: "Porto plant", B: "Brno plant", Decision: "uncertain", Doubt: 0.9},
		{A: "Velora Cycles", B: "Velora", Decision: "uncertain", Doubt: 0.8},
	}
	g.d.Links = append(g.d.Links, kg.Link{Src: "k", SrcName: "Kestrel Alloys Ltd.", Dst: "s1", Target: "suppliers[S1]", Type: kg.LinkSameAs, Band: kg.LinkBandUncertain, Score: 0.7})
	for top, ok := range map[int]bool{3: true, 2: false} {
		got := group(t, ScoreBundle(loadTestGold(t), g.d, top).Duplicates, "Kestrel Alloys Ltd.")
		if got.State != StateUncertain || got.OK != ok || !strings.HasPrefix(got.Detail, "rank 3 of the 5") {
			t.Errorf("top %d: %s ok %v (%s); want uncertain at rank 3 of 5, ok %v", top, got.State, got.OK, got.Detail, ok)
		}
	}
}

func TestScoreDistinctNamesInOneNodeAreReported(t *testing.T) {
	g := exampleGraph()
	g.entity("p1", "Porto plant", "Plant")
	g.merge("p1", "Brno plant")
	r := ScoreBundle(loadTestGold(t), g.d, 10)
	if got := group(t, r.Distinct, "Porto plant"); got.State != StateMerged || got.OK {
		t.Errorf("Porto/Brno: %s ok %v; want merged, not ok", got.State, got.OK)
	}
	if got := group(t, r.Distinct, "Kestrel Alloys"); got.State != StateApart || !got.OK {
		t.Errorf("Kestrel/Tagus: %s ok %v (%s); want apart", got.State, got.OK, got.Detail)
	}
}

func TestScorePersonTypedAsCompanyIsReported(t *testing.T) {
	g := exampleGraph()
	g.entity("m", "Marta Sousa", "Company")
	g.entity("a", "Ana Ferreira", "Person")
	g.merge("s2", "Jonas Lind")
	r := ScoreBundle(loadTestGold(t), g.d, 10)
	want := map[string]string{"Marta Sousa": "typed Company", "Ana Ferreira": "ok", "Jonas Lind": "is row suppliers[S2]"}
	for _, p := range r.Persons {
		if !strings.HasPrefix(p.State, want[p.Name]) || p.OK != (want[p.Name] == "ok") {
			t.Errorf("%s: %s ok %v; want %s", p.Name, p.State, p.OK, want[p.Name])
		}
	}
}

func TestUsefulnessCountsLinkedChunksAndMentionedRows(t *testing.T) {
	u := ScoreBundle(loadTestGold(t), exampleGraph().d, 10).Useful
	want := Usefulness{Chunks: 2, ChunksLinked: 2, ChunksGold: 2, RowEntities: 3, RowsMentioned: 1, GoldRows: 3, GoldRowsMentioned: 3}
	if u != want {
		t.Errorf("%+v; want %+v", u, want)
	}
}

func TestGoldRefusesMalformedEntries(t *testing.T) {
	bad := map[string]string{
		"row not TABLE[KEY]":   "tables: [{table: s, entities: true, key: k, name: n}]\nrows: [{row: s.S1, name: x}]",
		"row of a plain table": "tables: [{table: s, entities: false}]\nrows: [{row: \"s[S1]\", name: x}]",
		"entity table, no key": "tables: [{table: s, entities: true}]",
		"fk to no row":         "tables: [{table: s, entities: true, key: k, name: n}]\nrows: [{row: \"s[S1]\", name: x}]\nfks: [{from: \"s[S1]\", to: \"s[S9]\"}]",
		"bad place":            "tables: [{table: s, entities: true, key: k, name: n}]\nrows: [{row: \"s[S1]\", name: x, surfaces: [{name: x, at: [docs/a.md]}]}]",
		"bad target":           "concepts: [{concept: c, names: [c], targets: [\"s[S1]\"]}]",
		"one-name duplicate":   "duplicates: [{names: [a]}]",
		"unknown field (typo)": "tabels: []",
	}
	for what, raw := range bad {
		p := filepath.Join(t.TempDir(), "gold.yaml")
		if err := os.WriteFile(p, []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadGold(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v; want an error naming the file", what, err)
		}
	}
}

// TestPrintPutsReportsSideBySide: every line of the summary table has the
// same number of cells, whatever the number of reports.
func TestPrintPutsReportsSideBySide(t *testing.T) {
	g := loadTestGold(t)
	a, b := ScoreBundle(g, exampleGraph().d, 10), ScoreBundle(g, newGraph().d, 10)
	a.Label, b.Label = "model m", "no model"
	var out strings.Builder
	if err := Print(&out, []*Report{a, b}); err != nil {
		t.Fatal(err)
	}
	table, _, _ := strings.Cut(out.String(), "\n\n")
	lines := strings.Split(table, "\n")
	if len(lines) < 10 || !strings.Contains(lines[0], "model m: P") || !strings.Contains(lines[0], "no model: P") {
		t.Fatalf("table:\n%s", table)
	}
	for _, l := range lines {
		if strings.Count(l, "|") != strings.Count(lines[0], "|") {
			t.Errorf("line %q has %d cells; the head has %d", l, strings.Count(l, "|"), strings.Count(lines[0], "|"))
		}
	}
	if !strings.Contains(out.String(), "## no model") || !strings.Contains(out.String(), "wrong: \"Velora Cycles\" → suppliers[S1]") {
		t.Errorf("details missing:\n%s", out.String())
	}
}
