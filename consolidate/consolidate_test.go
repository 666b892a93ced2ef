package consolidate

import (
	"slices"
	"testing"

	"kgforge/kg"
)

func trip(chunk, subj, styp, pred, obj, otyp string) kg.Triplet {
	return kg.Triplet{
		ID: kg.ID(chunk, subj, pred, obj), ChunkID: chunk, Predicate: pred, Evidence: subj + " " + pred + " " + obj, Confidence: 1,
		Subject: kg.Mention{Surface: subj, Type: styp}, Object: kg.Mention{Surface: obj, Type: otyp},
	}
}

func TestBuild_MergesExactNamesAndLogsEachMerge(t *testing.T) {
	in := Input{
		Sources: []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}, {ID: "s2", URI: "t.csv", Kind: kg.KindCSV}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1"}, {ID: "c2", SourceID: "s1", Ordinal: 1}},
		Triplets: []kg.Triplet{
			trip("c1", "Velora Cycles", "Company", "buys_from", "Kestrel Alloys", "Company"),
			trip("c2", "velora  cycles", "Company", "buys_from", "Kestrel Alloys", "Supplier"),
			trip("c2", "Velora Cycles", "Company", "located_in", "Porto", "Document"),
		},
		Tables: []kg.Table{
			{Name: "suppliers", SourceID: "s2", Rows: 2, Columns: []kg.Column{{Name: "supplier_id"}}, PrimaryKeys: []string{"supplier_id"}},
			{
				Name: "parts", SourceID: "s2", Rows: 3, Columns: []kg.Column{{Name: "supplier_id"}},
				ForeignKeys: []kg.ForeignKey{{Column: "supplier_id", RefTable: "suppliers", RefColumn: "supplier_id", Score: 1}},
			},
		},
	}
	g := Build(in)
	byKind := map[kg.NodeKind][]kg.Node{}
	for _, n := range g.Nodes {
		byKind[n.Kind] = append(byKind[n.Kind], n)
	}
	if len(byKind[kg.NodeDocument]) != 1 || len(byKind[kg.NodeChunk]) != 2 || len(byKind[kg.NodeTable]) != 2 || len(byKind[kg.NodeColumn]) != 2 {
		t.Errorf("structural nodes: %d docs %d chunks %d tables %d columns", len(byKind[kg.NodeDocument]), len(byKind[kg.NodeChunk]), len(byKind[kg.NodeTable]), len(byKind[kg.NodeColumn]))
	}
	concepts := byKind[kg.NodeConcept]
	if len(concepts) != 3 {
		t.Fatalf("concepts = %+v, want Velora Cycles, Kestrel Alloys, Porto", concepts)
	}
	var velora, porto kg.Node
	for _, n := range concepts {
		switch n.Name {
		case "Velora Cycles":
			velora = n
		case "Porto":
			porto = n
		}
	}
	if !slices.Equal(velora.Aliases, []string{"velora cycles"}) || !slices.Equal(velora.ChunkIDs, []string{"c1", "c2"}) {
		t.Errorf("velora = %+v", velora)
	}
	if !slices.Equal(porto.Labels, []string{"Entity"}) || porto.Properties["type"] != "Document" {
		t.Errorf("an entity typed Document got labels %v", porto.Labels)
	}
	if len(g.Merges) != 1 || g.Merges[0].Member != "velora cycles" || g.Merges[0].Canonical != "Velora Cycles" || g.Merges[0].Rule != RuleExactName {
		t.Errorf("merges = %+v", g.Merges)
	}
	types := map[string]int{}
	for _, e := range g.Edges {
		types[e.Type]++
		if e.Type == "buys_from" && !slices.Equal(e.ChunkIDs, []string{"c1", "c2"}) {
			t.Errorf("buys_from chunk ids = %v, want both chunks", e.ChunkIDs)
		}
	}
	want := map[string]int{"buys_from": 1, "located_in": 1, EdgeHasChunk: 2, EdgeMentions: 5, EdgeHasColumn: 2, EdgeJoins: 1}
	for k, v := range want {
		if types[k] != v {
			t.Errorf("%s edges = %d, want %d (all %v)", k, types[k], v, types)
		}
	}
	again := Build(in)
	for i := range g.Nodes {
		if g.Nodes[i].ID != again.Nodes[i].ID {
			t.Fatal("node order or ids differ between two builds of the same input")
		}
	}
}

func TestBuild_EntitiesWithoutTripletsBecomeNodes(t *testing.T) {
	in := Input{
		Sources:  []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}},
		Chunks:   []kg.Chunk{{ID: "c1", SourceID: "s1"}, {ID: "c2", SourceID: "s1", Ordinal: 1}},
		Triplets: []kg.Triplet{trip("c1", "Velora Cycles", "Company", "buys_from", "Kestrel Alloys", "Company")},
		Entities: []kg.Mention{
			{ChunkID: "c2", Surface: "Ana Ferreira", Type: "Person", Description: "Head of Quality"},
			{ChunkID: "c2", Surface: "kestrel alloys", Type: "Company", Description: "a frame supplier in Sheffield"},
		},
	}
	g := Build(in)
	var ana *kg.Node
	for i, n := range g.Nodes {
		if n.Name == "Ana Ferreira" {
			ana = &g.Nodes[i]
		}
	}
	if ana == nil || ana.Properties["description"] != "Head of Quality" || !slices.Equal(ana.ChunkIDs, []string{"c2"}) || !slices.Contains(ana.Labels, "Person") {
		t.Fatalf("entity node = %+v", ana)
	}
	mentions := map[string]bool{}
	for _, e := range g.Edges {
		if e.Type == EdgeMentions {
			mentions[e.Src+">"+e.Dst] = true
		}
	}
	if !mentions["c2>"+ana.ID] || !mentions["c2>"+EntityNodeID(kg.NormalizeName("Kestrel Alloys"))] {
		t.Errorf("MENTIONS edges %v lack chunk c2 to its entities", mentions)
	}
	if len(g.Merges) != 1 || g.Merges[0].Member != "kestrel alloys" {
		t.Errorf("merges %+v, want the lower-case entity mention merged into Kestrel Alloys", g.Merges)
	}
}
