package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate/resolve"
)

func recs(typ string, names ...string) []Record {
	out := make([]Record, len(names))
	for i, n := range names {
		out[i] = Record{ID: n + "#" + typ, Name: n, Type: typ}
	}
	return out
}

// sameClusters reports whether two labelings partition records alike.
func sameClusters(a, b []int) bool {
	return len(a) == len(b) && PairCounts(a, b).FP == 0 && PairCounts(b, a).FP == 0
}

func TestUnionFind_LabelsInFirstAppearanceOrder(t *testing.T) {
	u := newUnionFind(5)
	u.union(3, 1)
	u.union(4, 0)
	if got, want := u.labels(), []int{0, 1, 2, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
}

func TestExact_FoldsCaseAndSpaceWithinType(t *testing.T) {
	rs := append(recs("facility", "Porto plant", "Porto  Plant", "PORTO PLANT", "Porto-plant"), recs("organization", "porto plant")...)
	got, err := Exact(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 0, 1, 2}; !sameClusters(got, want) {
		t.Errorf("Exact = %v, want clusters of %v", got, want)
	}
}

func TestSimilarity(t *testing.T) {
	cases := []struct {
		a, b string
		want float64
	}{
		{"kitten", "sitting", 1 - 3.0/7},
		{"", "", 1},
		{"abc", "", 0},
		{"société", "societe", 1 - 2.0/7}, // runes, not bytes
		{"station 1", "station 2", 1 - 1.0/9},
	}
	for _, c := range cases {
		if got := Similarity(c.a, c.b); !near(got, c.want) {
			t.Errorf("Similarity(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestFuzzy_ThresholdAndClosure(t *testing.T) {
	m := Fuzzy(0.8)
	if m.Name != "fuzzy-0.8" || m.Vectors {
		t.Errorf("method %q vectors %v", m.Name, m.Vectors)
	}
	// abcdefghij ~ abcdefghXY (0.8) ~ abcdefZWXY (0.6 to the first, 0.8 to
	// the second): the closure joins all three; the short name stays apart.
	rs := recs("x", "abcdefghij", "abcdefghXY", "abcdefZWXY", "Station 1")
	rs = append(rs, recs("y", "Station 2")...) // same name shape, other type
	got, err := m.Resolve(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 0, 1, 2}; !sameClusters(got, want) {
		t.Errorf("Fuzzy = %v, want clusters of %v", got, want)
	}
}

func TestCosine(t *testing.T) {
	rs := recs("x", "a", "b", "c", "d")
	rs[0].Vector = []float32{1, 0, 0}
	rs[1].Vector = []float32{2, 1.5, 0} // cos to a = 0.8 exactly
	rs[2].Vector = []float32{0, 0, 3}
	rs[3].Vector = []float32{0, 0.6, 3} // cos to c ≈ 0.98
	m := Cosine(0.8)
	if m.Name != "cosine-0.8" || !m.Vectors {
		t.Errorf("method %q vectors %v", m.Name, m.Vectors)
	}
	got, err := m.Resolve(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 1, 1}; !sameClusters(got, want) {
		t.Errorf("Cosine = %v, want clusters of %v", got, want)
	}
	rs[3].Vector = []float32{1, 2}
	if _, err := m.Resolve(context.Background(), rs); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("mixed dimensions: err %v", err)
	}
	rs[3].Vector = nil
	if _, err := m.Resolve(context.Background(), rs); err == nil || !strings.Contains(err.Error(), "no embedding") {
		t.Errorf("missing vector: err %v", err)
	}
}

func TestLabelsFromClusters(t *testing.T) {
	rs := recs("x", "a", "b", "c", "d")
	got, err := labelsFromClusters(rs, [][]string{{"c#x", "a#x"}, {}, {"d#x"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 2, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	for name, cl := range map[string][][]string{
		"unknown id": {{"a#x", "zz"}},
		"twice":      {{"a#x"}, {"b#x", "a#x"}},
	} {
		if _, err := labelsFromClusters(rs, cl); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestKGForgeResolver_Adapter(t *testing.T) {
	m := kgforgeResolver("kgforge", resolve.Config{})
	if m.Name != "kgforge" || !m.Vectors {
		t.Errorf("method %q vectors %v", m.Name, m.Vectors)
	}
	// Without vectors, only the names decide: equal names merge.
	rs := recs("facility", "Porto plant", "Lyon plant", "PORTO PLANT")
	got, err := m.Resolve(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0}; !sameClusters(got, want) {
		t.Errorf("kgforge = %v, want clusters of %v", got, want)
	}
	why, err := m.Explain(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	a, b := rs[0].ID, rs[2].ID
	if b < a {
		a, b = b, a
	}
	if got := why[[2]string{a, b}]; got != "merged: "+string(resolve.RuleSameName) {
		t.Errorf("explain %s–%s = %q, want merged: same_name", a, b, got)
	}
	rs[2].ID = rs[0].ID
	if _, err := m.Resolve(context.Background(), rs); err == nil {
		t.Error("repeated id: no error")
	}
	if _, err := m.Explain(context.Background(), rs); err == nil {
		t.Error("explain, repeated id: no error")
	}
}
