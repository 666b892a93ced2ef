package main

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// The sweep gives, at every threshold, the clustering of the method it
// stands in for: Cosine(t) and Fuzzy(t) on the same records.
func TestSimpleLabels_AgreeWithTheMethods(t *testing.T) {
	ctx := context.Background()
	records := Synthetic(1, 2).Problems[0].Records
	r := rand.New(rand.NewPCG(1, 2))
	centres := make([][]float32, 8)
	for k := range centres {
		centres[k] = make([]float32, 16)
		for d := range centres[k] {
			centres[k][d] = float32(r.NormFloat64())
		}
	}
	for i := range records {
		c := centres[i%len(centres)]
		v := make([]float32, len(c))
		for d := range v {
			v[d] = c[d] + float32(0.6*r.NormFloat64())
		}
		records[i].Vector = v
	}
	got, err := simpleLabels(ctx, records, true)
	if err != nil {
		t.Fatal(err)
	}
	merged := 0
	for _, th := range ruleGrid {
		for _, m := range []Method{Cosine(th), Fuzzy(th)} {
			want, err := m.Resolve(ctx, records)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[m.Name], want) {
				t.Errorf("%s: the sweep's labels differ from the method's", m.Name)
			}
			if slices.Max(want) < len(records)-1 {
				merged++
			}
		}
	}
	if merged == 0 {
		t.Fatal("no threshold merged anything: the test compares nothing")
	}
	ex, _ := Exact(ctx, records)
	if !slices.Equal(got["exact"], ex) {
		t.Error("exact differs")
	}
	if len(got) != len(simpleRules()) {
		t.Errorf("%d rules, want %d (%v)", len(got), len(simpleRules()), simpleRules())
	}
}
