package consolidate

import (
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
)

// conceptInput is a build whose documents name a concept and state a rule
// about a table of its data layer.
func conceptInput() Input {
	rule := "A supplier with a rating below 3.0 cannot receive new orders."
	return Input{
		Sources: []kg.Source{{ID: "s1", URI: "rules.md", Kind: kg.KindMarkdown}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1", Text: rule, Span: kg.Span{End: len(rule)}}},
		Triplets: []kg.Triplet{
			trip("c1", "supplier", "Concept", "has", "rating", "Attribute"),
		},
		Tables: []kg.Table{{Name: "suppliers", SourceID: "s2", Rows: 2, Columns: []kg.Column{
			{Name: "supplier_id", Type: "VARCHAR", Distinct: 2},
			{Name: "name", Type: "VARCHAR", Distinct: 2, Samples: []string{"Kestrel Alloys", "Tagus Composites"}},
			{Name: "rating", Type: "DOUBLE", Distinct: 2},
		}}},
	}
}

// edgeTypes returns "SRC_NAME TYPE DST_NAME" for every edge of type typ.
func edgeTypes(g kg.Graph, typ string) []string {
	name := map[string]string{}
	for _, n := range g.Nodes {
		name[n.ID] = n.Name
	}
	var out []string
	for _, e := range g.Edges {
		if e.Type == typ {
			out = append(out, name[e.Src]+" "+typ+" "+name[e.Dst])
		}
	}
	slices.Sort(out)
	return out
}

func TestBuild_ConceptsAndStatedRulesLinkToTablesAndColumns(t *testing.T) {
	g := build(t, conceptInput())
	if got, want := edgeTypes(g, kg.LinkRepresentedBy), []string{"supplier REPRESENTED_BY suppliers"}; !slices.Equal(got, want) {
		t.Errorf("REPRESENTED_BY: %q, want %q", got, want)
	}
	want := []string{
		"A supplier with a rating below 3.0 cannot receive new orders. MEASURED_BY suppliers.rating",
		"rating MEASURED_BY suppliers.rating",
	}
	if got := edgeTypes(g, kg.LinkMeasuredBy); !slices.Equal(got, want) {
		t.Errorf("MEASURED_BY: %q, want %q", got, want)
	}
	if !slices.ContainsFunc(g.Nodes, func(n kg.Node) bool {
		return slices.Contains(n.Labels, "Rule") && slices.Equal(n.ChunkIDs, []string{"c1"})
	}) {
		t.Error("no Rule node for the stated rule")
	}
	linked := 0
	for _, l := range g.Links {
		if l.Band == kg.LinkBandLinked {
			linked++
		}
	}
	if linked != 3 || !slices.IsSortedFunc(g.Links, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("%d linked links (want 3), sorted %v", linked, slices.IsSortedFunc(g.Links, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) }))
	}
}

func TestBuild_LinkOverridesRefuseAConceptLink(t *testing.T) {
	in := conceptInput()
	in.Overrides = &Overrides{}
	in.Overrides.RejectLink("Supplier", "suppliers", Decision{By: "ana"})
	g := build(t, in)
	if got := edgeTypes(g, kg.LinkRepresentedBy); len(got) != 0 {
		t.Errorf("a refused link is an edge: %q", got)
	}
	i := slices.IndexFunc(g.Links, func(l kg.Link) bool { return l.SrcName == "supplier" && l.Target == "suppliers" })
	if i < 0 || g.Links[i].Band != kg.LinkBandNone || g.Links[i].DecidedBy != "ana" {
		t.Errorf("the refused link in the log: %+v", g.Links)
	}
}
