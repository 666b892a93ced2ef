package main

import (
	"context"
	"slices"
	"testing"

	"kgforge/kg"
)

func TestSynthetic_FixedBySeed(t *testing.T) {
	a, b := Synthetic(1, 3), Synthetic(1, 3)
	if !slices.Equal(names(a.Problems[0]), names(b.Problems[0])) || !slices.Equal(a.Problems[0].Gold, b.Problems[0].Gold) {
		t.Error("same seed, different set")
	}
	if c := Synthetic(2, 3); slices.Equal(names(a.Problems[0]), names(c.Problems[0])) {
		t.Error("another seed, the same set")
	}
}

func TestSynthetic_NearMissesAndDuplicates(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 42} {
		d := Synthetic(seed, 3)
		p := d.Problems[0]
		if len(p.NearMiss) < 40 {
			t.Errorf("seed %d: %d near-miss pairs, want at least 40", seed, len(p.NearMiss))
		}
		typeOf := map[int]string{}
		folded := map[string]int{}
		for i, r := range p.Records {
			if t0, ok := typeOf[p.Gold[i]]; ok && t0 != r.Type {
				t.Errorf("seed %d: entity %d has types %s and %s", seed, p.Gold[i], t0, r.Type)
			}
			typeOf[p.Gold[i]] = r.Type
			// Two entities never share a folded name: only then is a
			// near-miss avoidable by a resolver that reads names.
			k := r.Type + "/" + kg.NormalizeName(r.Name)
			if g, ok := folded[k]; ok && g != p.Gold[i] {
				t.Errorf("seed %d: %q names entities %d and %d", seed, r.Name, g, p.Gold[i])
			}
			folded[k] = p.Gold[i]
		}
		for _, nm := range p.NearMiss {
			if nm[0] == nm[1] || typeOf[nm[0]] == "" || typeOf[nm[0]] != typeOf[nm[1]] {
				t.Errorf("seed %d: near-miss pair %v of types %q, %q", seed, nm, typeOf[nm[0]], typeOf[nm[1]])
			}
		}
		exact, err := Exact(context.Background(), p.Records)
		if err != nil {
			t.Fatal(err)
		}
		if n := nearMissMerged(exact, p.Gold, p.NearMiss); n != 0 {
			t.Errorf("seed %d: exact matching merges %d near-miss pairs", seed, n)
		}
		if c := PairCounts(exact, p.Gold); c.FP != 0 || c.TP == 0 || c.FN == 0 {
			t.Errorf("seed %d: exact matching %+v; want no false pair, some found, some left to find", seed, c)
		}
	}
}

func TestSynthetic_PlantedExamples(t *testing.T) {
	p := Synthetic(1, 3).Problems[0]
	gold := map[string]int{}
	for i, r := range p.Records {
		gold[r.Name] = p.Gold[i]
	}
	for _, same := range [][2]string{
		{"Porto plant", "Porto Plant"},
		{"Acme Inc.", "ACME"},
		{"Société Générale", "Societe Generale"},
		{"IBM", "International Business Machines"},
		{"pump", "pumps"},
	} {
		a, okA := gold[same[0]]
		b, okB := gold[same[1]]
		if !okA || !okB || a != b {
			t.Errorf("%q and %q: not one entity", same[0], same[1])
		}
	}
	planted := map[[2]string]bool{}
	first := map[int]string{}
	for i, r := range p.Records {
		if _, ok := first[p.Gold[i]]; !ok {
			first[p.Gold[i]] = r.Name
		}
	}
	for _, nm := range p.NearMiss {
		planted[[2]string{first[nm[0]], first[nm[1]]}] = true
	}
	for _, pair := range [][2]string{{"ISO 9001", "ISO 14001"}, {"Austria", "Australia"}, {"John Smith", "Jane Smith"}} {
		if !planted[pair] {
			t.Errorf("near-miss %v not planted", pair)
		}
	}
}
