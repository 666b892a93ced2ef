package main

import "testing"

// TestGenerateMakesDistinctNamesWithPlantedVariants checks the generator:
// n distinct names (folded), the asked share of them variants of a base.
func TestGenerateMakesDistinctNamesWithPlantedVariants(t *testing.T) {
	ents := generate(5000, 0.1, 1)
	seen := map[string]bool{}
	variants := 0
	for _, e := range ents {
		f := fold(e.Name)
		if seen[f] {
			t.Fatalf("name %q made twice", e.Name)
		}
		seen[f] = true
		if e.Of >= 0 {
			variants++
			if ents[e.Of].Of >= 0 || ents[e.Of].Type != e.Type {
				t.Fatalf("variant %q of %q: its base is not a base of its type", e.Name, ents[e.Of].Name)
			}
		}
	}
	if len(ents) != 5000 || variants != 500 {
		t.Fatalf("%d names, %d variants; want 5000 and 500", len(ents), variants)
	}
	if testing.Verbose() {
		for _, e := range ents[:20] {
			t.Log(e.Type, e.Name)
		}
		for _, e := range ents[4980:] {
			t.Log(e.Type, e.Name, "<-", ents[e.Of].Name)
		}
	}
}
