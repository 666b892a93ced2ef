package main

import (
	"math"
	"testing"

	"kgforge/bench/quality"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The worked example of the tests: gold entities A = {0, 1, 2}, B = {3, 4};
// the prediction splits A and puts its record 2 with B.
//
//	gold pairs: 01 02 12 34 (4)   predicted pairs: 01 23 24 34 (4)   both: 01 34
//	B³ per record (p, r): 0 (1, 2/3)  1 (1, 2/3)  2 (1/3, 1/3)  3 (2/3, 1)  4 (2/3, 1)
var (
	exGold = []int{0, 0, 0, 1, 1}
	exPred = []int{7, 7, -3, -3, -3} // label values mean nothing, only equality
)

func TestPairCounts(t *testing.T) {
	cases := []struct {
		name       string
		pred, gold []int
		want       quality.Counts
	}{
		{"worked example", exPred, exGold, quality.Counts{TP: 2, FP: 2, FN: 2}},
		{"all singletons", []int{0, 1, 2, 3, 4}, exGold, quality.Counts{FN: 4}},
		{"one cluster", []int{1, 1, 1, 1, 1}, exGold, quality.Counts{TP: 4, FP: 6}},
		{"perfect", []int{4, 4, 4, 9, 9}, exGold, quality.Counts{TP: 4}},
		{"empty", nil, nil, quality.Counts{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PairCounts(c.pred, c.gold); got != c.want {
				t.Errorf("PairCounts = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestScore_WorkedExample(t *testing.T) {
	for _, whole := range []bool{true, false} {
		s := score(unitsOf(exPred, exGold, whole), 1)
		pw := s.Pairwise
		if pw.TP != 2 || pw.FP != 2 || pw.FN != 2 || !near(pw.Precision, 0.5) || !near(pw.Recall, 0.5) || !near(pw.F1, 0.5) {
			t.Errorf("whole=%v pairwise %+v, want TP 2 FP 2 FN 2, P = R = F1 = 0.5", whole, pw)
		}
		b := s.B3
		if !near(b.Precision, 11.0/15) || !near(b.Recall, 11.0/15) || !near(b.F1, 11.0/15) {
			t.Errorf("whole=%v B³ %+v, want P = R = F1 = 11/15", whole, b)
		}
	}
}

func TestScore_B3Asymmetric(t *testing.T) {
	// Gold {0,1,2,3}; predicted {0,1} {2} {3}: precision 1, recall
	// (2/4 + 2/4 + 1/4 + 1/4) / 4 = 3/8.
	s := score(unitsOf([]int{0, 0, 1, 2}, []int{5, 5, 5, 5}, true), 1)
	if !near(s.B3.Precision, 1) || !near(s.B3.Recall, 3.0/8) || !near(s.B3.F1, 2*(3.0/8)/(1+3.0/8)) {
		t.Errorf("B³ %+v", s.B3)
	}
	if pw := s.Pairwise; pw.TP != 1 || pw.FP != 0 || pw.FN != 5 {
		t.Errorf("pairwise %+v, want TP 1 FP 0 FN 5", pw)
	}
}

func TestScore_BootstrapOverDocuments(t *testing.T) {
	// Four documents: two resolved perfectly, two with a wrong merge and
	// a missed one.
	var units []unit
	for i := range 4 {
		if i%2 == 0 {
			units = append(units, unitsOf([]int{0, 0, 1}, []int{0, 0, 1}, true)...)
		} else {
			units = append(units, unitsOf([]int{0, 1, 1}, []int{0, 0, 1}, true)...)
		}
	}
	if len(units) != 4 {
		t.Fatalf("%d units, want one per document", len(units))
	}
	s := score(units, 3)
	if pw := s.Pairwise; pw.TP != 2 || pw.FP != 2 || pw.FN != 2 || pw.Items != 4 {
		t.Errorf("pairwise totals %+v", pw)
	}
	for name, ci := range map[string][2]float64{"pairs F1": s.Pairwise.F1CI, "B³ F1": s.B3.F1CI} {
		f := s.Pairwise.F1
		if name == "B³ F1" {
			f = s.B3.F1
		}
		if ci[0] > f || f > ci[1] || ci[0] == ci[1] {
			t.Errorf("%s %v outside or degenerate interval %v", name, f, ci)
		}
	}
	if again := score(units, 3); again != s {
		t.Error("same seed, different intervals")
	}
}

func TestNearMissMerged(t *testing.T) {
	gold := []int{0, 0, 1, 2}
	pred := []int{5, 6, 6, 7} // entity 0's second record joins entity 1
	pairs := [][2]int{{0, 1}, {1, 2}, {0, 2}}
	if got := nearMissMerged(pred, gold, pairs); got != 1 {
		t.Errorf("nearMissMerged = %d, want 1", got)
	}
	if got := nearMissMerged([]int{1, 1, 1, 1}, gold, pairs); got != 3 {
		t.Errorf("one cluster: %d, want 3", got)
	}
}
