package consolidate

import (
	"context"
	"testing"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// fixedVectors is an Embedder of fixed vectors by name (eight dimensions).
type fixedVectors map[string][]float32

func (v fixedVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = v[t]
	}
	return out, nil
}

// scoredInput: "Philips" and its long legal name merge by the calibrated
// score; "Porto warehouse" / "Porto plant" and "Lisbon warehouse" /
// "Lisbon depot" stay uncertain (a variant word).
func scoredInput(rules resolve.RuleSet) Input {
	return Input{
		Sources: []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1"}},
		Triplets: []kg.Triplet{
			trip("c1", "Philips", "Company", "supplies", "Porto plant", "Facility"),
			trip("c1", "Koninklijke Philips Electronics N.V.", "Company", "supplies", "Porto plant", "Facility"),
			trip("c1", "Velora Cycles", "Company", "buys", "Porto warehouse", "Facility"),
			trip("c1", "Serra Brakes", "Company", "buys", "Lisbon warehouse", "Facility"),
			trip("c1", "Serra Brakes", "Company", "buys", "Lisbon depot", "Facility"),
		},
		Resolve: resolve.Config{Rules: rules},
		Embedder: fixedVectors{
			"Philips":                              {1, 0, 0, 0, 0, 0, 0, 0},
			"Koninklijke Philips Electronics N.V.": {0.85, 0.527, 0, 0, 0, 0, 0, 0},
			"Porto plant":                          {0, 1, 0, 0, 0, 0, 0, 0},
			"Porto warehouse":                      {0, 0.82, 0, 0, 0.572, 0, 0, 0},
			"Lisbon depot":                         {0, 0, 0, 1, 0, 0, 0, 0},
			"Lisbon warehouse":                     {0, 0, 0, 0.81, 0, 0.586, 0, 0},
			"Velora Cycles":                        {0, 0, 0, 0, 0, 0, 1, 0},
			"Serra Brakes":                         {0, 0, 0, 0, 0, 0, 0, 1},
		},
	}
}

// TestBuild_MergeLogCarriesTheCalibratedScore: under the calibrated score
// every merged and uncertain pair of merge_links carries its score, which
// the review page ranks the uncertain band by; under cosine rules none
// does.
func TestBuild_MergeLogCarriesTheCalibratedScore(t *testing.T) {
	g := build(t, scoredInput(resolve.RulesScore))
	n := map[string]int{}
	for _, l := range g.MergeLinks {
		if l.Decision != "merged" && l.Decision != "uncertain" {
			continue
		}
		n[l.Decision]++
		if l.Score <= 0 || l.Score > 1 {
			t.Errorf("%s pair %s / %s: score %v, want the calibrated score in (0, 1]", l.Decision, l.A, l.B, l.Score)
		}
	}
	if n["merged"] == 0 || n["uncertain"] == 0 {
		t.Fatalf("merge links %+v: want merged and uncertain pairs", g.MergeLinks)
	}
	for _, l := range build(t, scoredInput(resolve.RulesCosine)).MergeLinks {
		if l.Score != 0 {
			t.Errorf("under cosine rules %s / %s has score %v, want 0", l.A, l.B, l.Score)
		}
	}
}
