package consolidate

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

func build(t *testing.T, in Input) kg.Graph {
	t.Helper()
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out.Graph
}

func concept(g kg.Graph, name string) *kg.Node {
	for i, n := range g.Nodes {
		if n.Kind == kg.NodeConcept && n.Name == name {
			return &g.Nodes[i]
		}
	}
	return nil
}

func trip(chunk, subj, styp, pred, obj, otyp string) kg.Triplet {
	return kg.Triplet{
		ID: kg.ID(chunk, subj, pred, obj), ChunkID: chunk, Predicate: pred, Evidence: subj + " " + pred + " " + obj, Confidence: 1,
		Subject: kg.Mention{Surface: subj, Type: styp}, Object: kg.Mention{Surface: obj, Type: otyp},
	}
}

func exampleInput() Input {
	return Input{
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
		Resolve: resolve.Config{Compatible: map[string][]string{"Company": {"Supplier"}}},
	}
}

func TestBuild_MergesNamesAndLogsEveryMember(t *testing.T) {
	in := exampleInput()
	g := build(t, in)
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
	// Every surface is in the merge log, merged or not.
	log := map[string]kg.MergeDecision{}
	for _, m := range g.Merges {
		log[m.Member+"/"+m.MemberType] = m
	}
	if len(g.Merges) != 5 || log["velora cycles/Company"].ClusterID != velora.ID || log["velora cycles/Company"].Rule != string(resolve.RuleSameName) ||
		log["Porto/Document"].Rule != "single" || log["Kestrel Alloys/Supplier"].Canonical != "Kestrel Alloys" {
		t.Errorf("merges = %+v", g.Merges)
	}
	merged := 0
	for _, l := range g.MergeLinks {
		if l.Decision == "merged" && l.ClusterID == l.BCluster {
			merged++
		}
	}
	if merged != 2 {
		t.Errorf("merge links = %+v, want the two same-name merges", g.MergeLinks)
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
	// The same input in another order gives the same graph.
	for range 5 {
		shuffled := in
		shuffled.Triplets = slices.Clone(in.Triplets)
		rand.Shuffle(len(shuffled.Triplets), func(i, j int) {
			shuffled.Triplets[i], shuffled.Triplets[j] = shuffled.Triplets[j], shuffled.Triplets[i]
		})
		again := build(t, shuffled)
		for _, pair := range [][2]any{{g.Nodes, again.Nodes}, {g.Edges, again.Edges}, {g.Merges, again.Merges}, {g.MergeLinks, again.MergeLinks}} {
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Fatalf("two builds of the same input in different orders differ:\n%+v\n%+v", pair[0], pair[1])
			}
		}
	}
}

func TestBuild_IncompatibleTypesStayApart(t *testing.T) {
	in := exampleInput()
	in.Resolve = resolve.Config{}
	g := build(t, in)
	n := 0
	for _, node := range g.Nodes {
		if node.Name == "Kestrel Alloys" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("Kestrel Alloys as a Company and as a Supplier: %d nodes, want 2 without a compatibility entry", n)
	}
}

func TestBuild_OverridesDecide(t *testing.T) {
	in := exampleInput()
	in.Triplets = append(in.Triplets, trip("c1", "Velora Cycles Ltd", "Company", "located_in", "Porto", "Document"))
	in.Overrides = &Overrides{
		CannotLink: []Link{{A: "Velora Cycles", B: "Velora Cycles Ltd"}},
		MustLink:   []Link{{A: "Porto", B: "Kestrel Alloys"}},
		Rename:     []Rename{{Member: "Kestrel Alloys", To: "Kestrel Alloys Ltd"}},
		KeepApart:  []Single{{Name: "Nowhere Inc"}},
	}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	g := out.Graph
	if v := concept(g, "Velora Cycles"); v == nil || concept(g, "Velora Cycles Ltd") == nil || !slices.Equal(v.Aliases, []string{"velora cycles"}) {
		t.Errorf("a cannot-link pair was merged, or its same-name surfaces were not: %+v", v)
	}
	k := concept(g, "Kestrel Alloys Ltd")
	if k == nil || !slices.Contains(k.Aliases, "Porto") {
		t.Fatalf("must-link and rename: %+v", k)
	}
	for _, m := range g.Merges {
		if m.Member == "Porto" && (m.DecidedBy != "override" || m.Rule != string(resolve.RuleMustLink)) {
			t.Errorf("Porto's merge log row %+v, want decided by override", m)
		}
	}
	rejected := false
	for _, l := range g.MergeLinks {
		rejected = rejected || (l.Decision == "cannot_link" && (Link{A: "Velora Cycles", B: "Velora Cycles Ltd"}).Names(Surface{Name: l.A}, Surface{Name: l.B}) && l.ClusterID != l.BCluster)
	}
	if !rejected {
		t.Errorf("merge links %+v lack the cannot-link the expert decided", g.MergeLinks)
	}
	if len(out.Resolution.UnmatchedOverrides) != 1 || out.Resolution.UnmatchedOverrides[0].Kind != resolve.OverrideKeepApart {
		t.Errorf("unmatched overrides %+v, want the keep-apart of a name nobody mentioned", out.Resolution.UnmatchedOverrides)
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
	g := build(t, in)
	ana := concept(g, "Ana Ferreira")
	if ana == nil || ana.Description != "Head of Quality" || !slices.Equal(ana.ChunkIDs, []string{"c2"}) || !slices.Contains(ana.Labels, "Person") {
		t.Fatalf("entity node = %+v", ana)
	}
	mentions := map[string]bool{}
	for _, e := range g.Edges {
		if e.Type == EdgeMentions {
			mentions[e.Src+">"+e.Dst] = true
		}
	}
	if !mentions["c2>"+ana.ID] || !mentions["c2>"+concept(g, "Kestrel Alloys").ID] {
		t.Errorf("MENTIONS edges %v lack chunk c2 to its entities", mentions)
	}
	if k := concept(g, "Kestrel Alloys"); k == nil || !slices.Equal(k.Aliases, []string{"kestrel alloys"}) || k.Description != "a frame supplier in Sheffield" {
		t.Errorf("Kestrel Alloys = %+v, want the lower-case entity mention merged into it", k)
	}
}

func TestMergeReport(t *testing.T) {
	in := exampleInput()
	in.Triplets = append(in.Triplets, trip("c1", "Velora Cycles Ltd", "Company", "located_in", "Porto", "Document"))
	in.Overrides = &Overrides{
		CannotLink: []Link{{A: "Velora Cycles", B: "Velora Cycles Ltd"}},
		KeepApart:  []Single{{Name: "Nobody | Inc"}},
	}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	r := MergeReport(out.Graph, out.Resolution)
	for _, want := range []string{
		"# Merge report", "## Nodes of several names", "- **Velora Cycles**", "  - velora cycles [Company]: same_name",
		"## Pairs kept apart by a cannot-link", "| Velora Cycles Ltd | 0.000 |  | cannot_link |", "## Overrides not applied", `keep_apart Nobody \| Inc`,
	} {
		if !strings.Contains(r, want) {
			t.Errorf("merge report lacks %q:\n%s", want, r)
		}
	}
}

// judgeFunc is a Judge of the test's own, for the consolidate logic around
// a judge; the real model is asked in TestLLMJudge_RealModelIntegration.
type judgeFunc func(a, b JudgeInput) (bool, error)

func (f judgeFunc) Same(_ context.Context, a, b JudgeInput) (bool, error) { return f(a, b) }

func TestBuild_JudgeMergesUncertainPairs(t *testing.T) {
	in := Input{
		Sources: []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1"}},
		Triplets: []kg.Triplet{
			trip("c1", "Kestrel Alloys Ltd", "Company", "supplies", "Velora Cycles", "Company"),
			trip("c1", "Kestrel Alloys", "Company", "supplies", "Velora Cycles Inc", "Company"),
			trip("c1", "Porto Plants", "Plant", "part_of", "Porto Plant", "Plant"),
		},
	}
	// Without a judge, name keys other than the name itself leave pairs
	// uncertain when there is no embedding to back them.
	base := build(t, in)
	uncertain := 0
	for _, l := range base.MergeLinks {
		if l.Decision == "uncertain" {
			uncertain++
		}
	}
	if uncertain != 3 {
		t.Fatalf("merge links %+v, want 3 uncertain pairs", base.MergeLinks)
	}
	var asked []string
	in.Judge = judgeFunc(func(a, b JudgeInput) (bool, error) {
		asked = append(asked, a.Name+"~"+b.Name)
		switch {
		case strings.HasPrefix(a.Name, "Kestrel"):
			return true, nil
		case strings.HasPrefix(a.Name, "Velora"):
			return false, nil
		}
		return false, errors.New("unusable reply")
	})
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	g := out.Graph
	if len(asked) != 3 || out.Resolution.Judged != 3 || out.Resolution.JudgeMerged != 1 || out.Resolution.JudgeFailed != 1 {
		t.Errorf("asked %v; resolution %+v", asked, out.Resolution)
	}
	k := concept(g, "Kestrel Alloys")
	if k == nil {
		k = concept(g, "Kestrel Alloys Ltd")
	}
	if k == nil || len(k.Aliases) != 1 || concept(g, "Velora Cycles Inc") == nil || concept(g, "Velora Cycles") == nil {
		t.Fatalf("the judged pair is not one node, or a rejected pair is: %+v", g.Nodes)
	}
	for _, m := range g.Merges {
		if strings.HasPrefix(m.Member, "Kestrel") && (m.Rule != string(RuleJudge) || m.DecidedBy != "llm") {
			t.Errorf("merge log row %+v, want rule llm_judge decided by llm", m)
		}
	}
}
