package consolidate

import (
	"testing"

	"kgforge/kg"
)

func TestTitles(t *testing.T) {
	got := titles([]kg.Chunk{
		{ID: "c1", SourceID: "pdf", Ordinal: 0, Text: "Velora Cycles Quality Review, First Quarter 2025\nSummary of the quarter."},
		{ID: "c2", SourceID: "md", Ordinal: 3, Section: "Supplier scores > Serra Brakes quality incidents", Text: "Serra Brakes shipped two rejects."},
		{ID: "c3", SourceID: "txt", Ordinal: 0, Text: "Velora Cycles bought 200 frames from Kestrel Alloys in March."},
		{ID: "c4", SourceID: "txt2", Ordinal: 0, Text: "Velora Cycles\nPorto"},
	})
	for name, want := range map[string]bool{
		"velora cycles quality review first quarter 2025":              true,
		"serra brakes quality incidents":                               true,
		"supplier scores":                                              false, // two words: may be an entity's name
		"velora cycles":                                                false,
		"velora cycles bought 200 frames from kestrel alloys in march": false, // a sentence
	} {
		if got[name] != want {
			t.Errorf("titles[%q] = %v, want %v", name, got[name], want)
		}
	}
}

// TestBuild_ATitleIsNotAnEntity: the PDF's title, extracted as an
// organisation, is neither merged with the company it names nor paired
// with it for review.
func TestBuild_ATitleIsNotAnEntity(t *testing.T) {
	const title = "Velora Cycles Quality Review, First Quarter 2025"
	in := Input{
		Sources: []kg.Source{{ID: "s1", URI: "review.pdf", Kind: kg.KindPDF}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1", Text: title + "\nVelora Cycles rated Serra Brakes."}},
		Triplets: []kg.Triplet{
			trip("c1", title, "Organization", "mentions", "Serra Brakes", "Organization"),
			trip("c1", "Velora Cycles", "Organization", "rated", "Serra Brakes", "Organization"),
		},
		Embedder: fixedVectors{
			title:           {1, 0, 0, 0, 0, 0, 0, 0},
			"Velora Cycles": {0.97, 0.243, 0, 0, 0, 0, 0, 0},
			"Serra Brakes":  {0, 0, 1, 0, 0, 0, 0, 0},
		},
	}
	g := build(t, in)
	for _, l := range g.MergeLinks {
		if (l.A == title || l.B == title) && l.A != l.B {
			t.Errorf("the title is in a merge link: %+v", l)
		}
	}
	if a, b := mergeOf(g, title), mergeOf(g, "Velora Cycles"); a.ClusterID == b.ClusterID {
		t.Errorf("the title and the company are one node %s", a.ClusterID)
	}
}
