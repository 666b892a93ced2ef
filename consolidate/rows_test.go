package consolidate

import (
	"context"
	"database/sql"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
)

// loadCSVs loads CSV files (name → content) into a fresh DuckDB with the
// build's loaders and profiler, one table per file.
func loadCSVs(t testing.TB, files map[string]string) (*sql.DB, []kg.Table) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := duck.Open(ctx, filepath.Join(dir, "data.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var tables []kg.Table
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(files[name]), 0o600); err != nil {
			t.Fatal(err)
		}
		src := kg.Source{ID: kg.ID("source", name), URI: name, Kind: kg.KindCSV}
		ts, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: src, Path: path, Base: ingest.TableName(name)})
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, ts...)
	}
	if err := ingest.FindKeys(ctx, db, tables); err != nil {
		t.Fatal(err)
	}
	return db, tables
}

const suppliersCSV = "supplier_id,name,country\nS001,Kestrel Alloys,United Kingdom\nS002,Danubia Wheelworks,Austria\nS003,Serra Brakes,Spain\n"

// rowInput is a build of the suppliers table and entities extracted from
// two chunks of a document.
func rowInput(t *testing.T, mentions ...kg.Mention) Input {
	db, tables := loadCSVs(t, map[string]string{"suppliers.csv": suppliersCSV})
	return Input{
		Sources:  []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}},
		Chunks:   []kg.Chunk{{ID: "c1", SourceID: "s1"}, {ID: "c2", SourceID: "s1", Ordinal: 1}},
		Entities: mentions,
		Tables:   tables, Data: db,
		Resolve: resolve.Config{Compatible: map[string][]string{"Company": {"Supplier"}}},
	}
}

func mergeOf(g kg.Graph, member string) kg.MergeDecision {
	i := slices.IndexFunc(g.Merges, func(m kg.MergeDecision) bool { return m.Member == member })
	if i < 0 {
		return kg.MergeDecision{}
	}
	return g.Merges[i]
}

func TestBuild_ExtractedNameResolvesOntoItsRow(t *testing.T) {
	in := rowInput(t,
		kg.Mention{ChunkID: "c1", Surface: "kestrel  alloys", Type: "Company", Span: kg.Span{Start: 3, End: 18}},
		kg.Mention{ChunkID: "c2", Surface: "Danubia Wheelworks", Type: "Person"}, // a person is never a supplier
	)
	g := build(t, in)
	id := link.RowID("suppliers", "S001")
	n := concept(g, "Kestrel Alloys")
	if n == nil || n.ID != id || n.Properties[kg.PropKey] != "S001" || n.Properties["type"] != "Supplier" ||
		!slices.Equal(n.Labels, []string{"Entity", "Supplier"}) || !slices.Contains(n.Aliases, "kestrel alloys") {
		t.Fatalf("Kestrel Alloys = %+v, want the row entity suppliers[S001] named and typed by its row, with the extracted name as alias", n)
	}
	if !slices.ContainsFunc(g.Edges, func(e kg.Edge) bool { return e.Src == "c1" && e.Dst == id && e.Type == EdgeMentions }) {
		t.Error("the chunk that named Kestrel Alloys does not mention its row entity")
	}
	if m := mergeOf(g, "Kestrel Alloys"); m.ClusterID != id || m.Rule != RuleRowAnchor || !slices.Equal(m.Evidence, []string{"suppliers[S001]"}) {
		t.Errorf("merge log of the row member = %+v, want rule %s citing suppliers[S001]", m, RuleRowAnchor)
	}
	if m := mergeOf(g, "kestrel alloys"); m.ClusterID != id || m.Rule != string(resolve.RuleSameName) {
		t.Errorf("merge log of the extracted member = %+v, want it on the row by same_name", m)
	}
	var people, danubia int
	for _, x := range g.Nodes {
		if x.Name == "Danubia Wheelworks" {
			danubia++
			if slices.Contains(x.Labels, "Person") {
				people++
			}
		}
	}
	if danubia != 2 || people != 1 {
		t.Errorf("%d nodes named Danubia Wheelworks (%d a Person), want the row and the person apart", danubia, people)
	}
}

func TestBuild_NameKeyWithoutEmbeddingIsAnUncertainSameAsLink(t *testing.T) {
	in := rowInput(t, kg.Mention{ChunkID: "c1", Surface: "Kestrel Alloys Ltd.", Type: "Company"})
	g := build(t, in)
	var same []kg.Link
	for _, l := range g.Links {
		if l.Type == kg.LinkSameAs {
			same = append(same, l)
		}
	}
	row := link.RowID("suppliers", "S001")
	if len(same) != 1 || same[0].Dst != row || same[0].Target != "suppliers[S001]" || same[0].Band != kg.LinkBandUncertain ||
		same[0].SrcName != "Kestrel Alloys Ltd." || same[0].Src == row {
		t.Fatalf("SAME_AS links %+v, want one uncertain link from Kestrel Alloys Ltd. to suppliers[S001]", same)
	}
	// An expert's must-link from the overrides file's links: section merges them.
	in.Link.Overrides.MustLink = []link.Pair{{Entity: "Kestrel Alloys Ltd.", Target: "suppliers[S001]", By: "expert"}}
	g = build(t, in)
	if m := mergeOf(g, "Kestrel Alloys Ltd."); m.ClusterID != row || m.Rule != string(resolve.RuleMustLink) {
		t.Errorf("after the expert's must-link, merge log %+v, want Kestrel Alloys Ltd. on suppliers[S001]", m)
	}
	if n := concept(g, "Kestrel Alloys"); n == nil || n.ID != row {
		t.Errorf("after the must-link the node is %+v, want the row's name and id", n)
	}
	// An expert's cannot-link, through the overrides file, keeps them apart and stays in the link log.
	in.Link.Overrides = link.Overrides{}
	in.Overrides = &Overrides{Links: &LinkOverrides{CannotLink: []TargetLink{{Entity: "kestrel alloys ltd.", Target: "suppliers[S001]", Decision: Decision{By: "expert"}}}}}
	g = build(t, in)
	if m := mergeOf(g, "Kestrel Alloys Ltd."); m.ClusterID == row {
		t.Errorf("after the expert's cannot-link, Kestrel Alloys Ltd. is still on suppliers[S001]: %+v", m)
	}
	i := slices.IndexFunc(g.Links, func(l kg.Link) bool { return l.Type == kg.LinkSameAs })
	if i < 0 || g.Links[i].Band != kg.LinkBandNone || g.Links[i].Rule != "cannot_link" || g.Links[i].DecidedBy != "expert" || g.Links[i].Dst != row {
		t.Errorf("links %+v, want the refused SAME_AS in band none, decided by the expert", g.Links)
	}
}

func TestBuild_TwoRowsOfOneNameStayTwoNodes(t *testing.T) {
	db, tables := loadCSVs(t, map[string]string{"plants.csv": "plant_id,name\n1,Brno Assembly Plant\n2,Brno Assembly Plant\n3,Porto Plant\n"})
	yes := true
	in := Input{
		Sources: []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}}, Chunks: []kg.Chunk{{ID: "c1", SourceID: "s1"}},
		Entities: []kg.Mention{{ChunkID: "c1", Surface: "Brno Assembly Plant", Type: "Plant"}},
		Tables:   tables, Data: db,
		Link: link.Config{Tables: map[string]link.TableConfig{"plants": {Entity: &yes, Name: "name"}}},
	}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	a, b := link.RowID("plants", "1"), link.RowID("plants", "2")
	var ids []string
	for _, n := range out.Graph.Nodes {
		if n.Name == "Brno Assembly Plant" {
			ids = append(ids, n.ID)
		}
	}
	slices.Sort(ids)
	want := []string{a, b}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("nodes named Brno Assembly Plant %v, want the two rows %v and the extracted name on one of them", ids, want)
	}
	if out.Resolution.Splits != 1 {
		t.Errorf("%d splits, want the one that kept the two rows apart", out.Resolution.Splits)
	}
}

func TestBuild_RowEntitiesSameIDsInAnyOrder(t *testing.T) {
	in := rowInput(t,
		kg.Mention{ChunkID: "c1", Surface: "Kestrel Alloys", Type: "Company"},
		kg.Mention{ChunkID: "c2", Surface: "Serra Brakes S.A.", Type: "Company"},
		kg.Mention{ChunkID: "c2", Surface: "Velora Cycles", Type: "Company"},
	)
	a := build(t, in)
	slices.Reverse(in.Entities)
	slices.Reverse(in.Tables)
	b := build(t, in)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same input in another order gave another graph")
	}
}

// TestBuild_ExampleDuplicateResolvesOntoItsRowIntegration embeds with the
// real model: "Kestrel Alloys Ltd." in a document and the row
// suppliers.name = 'Kestrel Alloys' end as one node keyed by the row.
func TestBuild_ExampleDuplicateResolvesOntoItsRowIntegration(t *testing.T) {
	c, digest := realModel(t, llm.EmbedModelForTests)
	in := rowInput(t, kg.Mention{ChunkID: "c1", Surface: "Kestrel Alloys Ltd.", Type: "Company"})
	in.Embedder = &ModelEmbedder{Send: c.Embed, Model: llm.EmbedModelForTests, Digest: digest, Cache: &memCache{m: map[string][]byte{}}}
	g := build(t, in)
	m := mergeOf(g, "Kestrel Alloys Ltd.")
	if m.ClusterID != link.RowID("suppliers", "S001") {
		t.Errorf("Kestrel Alloys Ltd. = %+v, want it merged onto suppliers[S001]", m)
	}
	t.Logf("Kestrel Alloys Ltd. → %s by %s (cosine %.3f)", m.Canonical, m.Rule, m.Score)
}

func TestBuild_RowEdgesEndAtNodesOfTheGraph(t *testing.T) {
	db, tables := loadCSVs(t, map[string]string{
		"suppliers.csv": suppliersCSV,
		"parts.csv":     "part_id,name,supplier_id\nP001,Aluminium frame TR5,S001\nP002,Disc brake set,S003\n",
	})
	in := Input{
		Sources:  []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}},
		Chunks:   []kg.Chunk{{ID: "c1", SourceID: "s1"}},
		Entities: []kg.Mention{{ChunkID: "c1", Surface: "Kestrel Alloys", Type: "Supplier"}},
		Tables:   tables, Data: db,
	}
	g := build(t, in)
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		if ids[n.ID] {
			t.Errorf("node id %s twice", n.ID)
		}
		ids[n.ID] = true
	}
	types := map[string]int{}
	for _, e := range g.Edges {
		if !ids[e.Src] || !ids[e.Dst] {
			t.Errorf("%s edge %s → %s ends outside the graph", e.Type, e.Src, e.Dst)
		}
		types[e.Type]++
	}
	if types[kg.LinkRowOf] != 5 || types["SUPPLIED_BY"] != 2 {
		t.Errorf("edge types %v, want 5 ROW_OF and 2 SUPPLIED_BY", types)
	}
	if !slices.ContainsFunc(g.Edges, func(e kg.Edge) bool {
		return e.Type == "SUPPLIED_BY" && e.Src == link.RowID("parts", "P001") && e.Dst == link.RowID("suppliers", "S001")
	}) {
		t.Error("no SUPPLIED_BY from parts[P001] to suppliers[S001], the row the extracted Kestrel Alloys resolved onto")
	}
}
