package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"kgforge/consolidate/resolve"
)

func TestLeaveOneOut(t *testing.T) {
	sets := []string{"patstat", "abt-buy", "dblp-acm", "redocred", "synthetic"}
	splits := leaveOneOut(sets)
	if len(splits) != len(sets) {
		t.Fatalf("%d splits for %d sets", len(splits), len(sets))
	}
	for k, sp := range splits {
		if sp.heldOut != sets[k] {
			t.Errorf("split %d holds out %s, want %s", k, sp.heldOut, sets[k])
		}
		if slices.Contains(sp.fit, sp.heldOut) {
			t.Errorf("%s is fitted on while held out: %v", sp.heldOut, sp.fit)
		}
		if len(sp.fit) != len(sets)-1 {
			t.Errorf("held out %s: fitted on %v, want every other set", sp.heldOut, sp.fit)
		}
	}
}

// No fold fits on a pair of the set it holds out, and each fits on every
// pair of the others.
func TestFoldSamples_HeldOutNeverFitted(t *testing.T) {
	sets := []string{"patstat", "abt-buy", "dblp-acm", "synthetic"}
	byGroup := map[string][]fitSample{}
	total := 0
	for k, s := range sets {
		for i := range k + 2 {
			byGroup[s] = append(byGroup[s], fitSample{set: s, a: fmt.Sprint(i), b: "x"})
			total++
		}
	}
	folds := foldSamples(byGroup, sets)
	for _, held := range sets {
		fit := folds[held]
		if len(fit) != total-len(byGroup[held]) {
			t.Errorf("held out %s: %d samples, want %d", held, len(fit), total-len(byGroup[held]))
		}
		for _, s := range fit {
			if s.set == held {
				t.Errorf("held out %s: fitted on its pair %s/%s", held, s.a, s.b)
			}
		}
	}
}

func TestOutsideSample(t *testing.T) {
	var p Problem
	for g := range 20 {
		for k := range 1 + g%3 {
			p.Records = append(p.Records, Record{ID: fmt.Sprintf("e%d:%d", g, k), Name: fmt.Sprint(g)})
			p.Gold = append(p.Gold, g)
		}
	}
	p.NearMiss = [][2]int{{0, 1}, {2, 3}}
	in := map[string]bool{}
	for _, r := range sampleEntities(p, 8, 1).Records {
		in[r.ID] = true
	}
	for _, n := range []int{0, 5} {
		out := outsideSample(p, 8, 1, n, 7)
		ents := map[int]int{}
		for i, r := range out.Records {
			if in[r.ID] {
				t.Errorf("n %d: record %s of the fit sample is outside it", n, r.ID)
			}
			ents[out.Gold[i]]++
		}
		want := 12
		if n > 0 {
			want = n
		}
		if len(ents) != want {
			t.Errorf("n %d: %d gold entities, want %d", n, len(ents), want)
		}
		for g, c := range ents {
			if c != 1+g%3 {
				t.Errorf("n %d: entity %d with %d of its %d records", n, g, c, 1+g%3)
			}
		}
		for _, nm := range out.NearMiss {
			if ents[nm[0]] == 0 || ents[nm[1]] == 0 {
				t.Errorf("n %d: near miss %v of an entity not in the sample", n, nm)
			}
		}
	}
	if out := outsideSample(p, 0, 1, 0, 1); len(out.Records) != 0 {
		t.Errorf("a fit on the whole set leaves %d records outside", len(out.Records))
	}
}

// A pick looks only at the sets it is given: the held-out set's own best
// rule does not sway it.
func TestPick(t *testing.T) {
	f1 := map[string]map[string][2]float64{ // set → rule → pairs F1, B³ F1
		"held":  {"exact": {0.9, 0.9}, "cosine-0.8": {0.1, 0.5}, "cosine-0.7": {0.1, 0.5}},
		"other": {"exact": {0.2, 0.6}, "cosine-0.8": {0.6, 0.7}, "cosine-0.7": {0.6, 0.8}},
		"third": {"exact": {0.3, 0.6}, "cosine-0.8": {0.5, 0.9}, "cosine-0.7": {0.5, 0.9}},
	}
	score := func(set, rule string) Scores {
		var s Scores
		s.Pairwise.F1, s.B3.F1 = f1[set][rule][0], f1[set][rule][1]
		return s
	}
	rules := []string{"exact", "cosine-0.8", "cosine-0.7"}
	if got, f := pick(rules, []string{"other", "third"}, score); got != "cosine-0.7" || f != 0.55 {
		t.Errorf("picked %s (%v), want cosine-0.7 (tie on pairs F1, better B³) at 0.55", got, f)
	}
	if got, _ := pick(rules, []string{"held"}, score); got != "exact" {
		t.Errorf("best on the held-out set %s, want exact", got)
	}
}

func TestRecallOf(t *testing.T) {
	gold := []int{0, 0, 0, 1, 1}
	pairs := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	got := recallOf(pairs, gold, nil)
	want := candidateRecall{TruePairs: 4, Candidates: 3, Found: 2, Connected: 3}
	if got != want {
		t.Errorf("all records: %+v, want %+v", got, want)
	}
	// Without record 1: its pairs leave the count, but the path through it
	// still joins 0 and 2.
	got = recallOf(pairs, gold, func(i int) bool { return i != 1 })
	want = candidateRecall{TruePairs: 2, Candidates: 1, Found: 0, Connected: 1}
	if got != want {
		t.Errorf("without record 1: %+v, want %+v", got, want)
	}
	if r := (candidateRecall{}).Recall(); r != 1 {
		t.Errorf("recall without true pairs %v, want 1", r)
	}
}

func TestScoreOf_Kind(t *testing.T) {
	d := Dataset{Name: "redocred", documents: true, Problems: []Problem{{
		Records: []Record{{Type: "person"}, {Type: "person"}, {Type: "location"}, {Type: "location"}},
		Gold:    []int{0, 0, 1, 2},
	}}}
	labels := [][]int{{0, 0, 1, 1}} // persons right, locations wrongly merged
	person, _, _ := scoreOf(d, labels, func(r Record) bool { return kindOf("redocred", r) == "person" }, 1)
	if person.Pairwise.F1 != 1 || person.Pairwise.FP != 0 {
		t.Errorf("persons: %+v, want F1 1", person.Pairwise)
	}
	loc, _, _ := scoreOf(d, labels, func(r Record) bool { return kindOf("redocred", r) == "location" }, 1)
	if loc.Pairwise.FP != 1 || loc.Pairwise.TP != 0 {
		t.Errorf("locations: %+v, want one false pair", loc.Pairwise)
	}
}

func TestKindOf(t *testing.T) {
	for _, tt := range []struct{ group, typ, want string }{
		{"patstat", "organization", "organisation"},
		{"abt-buy", "product", "product"},
		{"dblp-acm", "publication", "title"},
		{"redocred", "organization", "organisation"},
		{"redocred", "person", "person"},
		{"redocred", "location", "location"},
		{"synthetic", "facility", "synthetic"},
	} {
		if got := kindOf(tt.group, Record{Type: tt.typ}); got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.group, tt.typ, got, tt.want)
		}
	}
}

// The report reads which records a model was fitted on from its fit
// record, as -fit writes it; the committed model's must stay readable.
func TestCommittedFit(t *testing.T) {
	info, err := json.Marshal(fitInfo{Sets: []string{"patstat", "abt-buy"}, Sample: "-n 300 -seed 4"})
	if err != nil {
		t.Fatal(err)
	}
	sets, n, seed, err := committedFit(resolve.Model{Fit: info})
	if err != nil || !slices.Equal(sets, []string{"patstat", "abt-buy"}) || n != 300 || seed != 4 {
		t.Errorf("sets %v n %d seed %d err %v", sets, n, seed, err)
	}
	if _, _, _, err := committedFit(resolve.Model{}); err == nil {
		t.Error("a model without a fit record: no error")
	}
	if sets, _, _, err := committedFit(resolve.DefaultModel()); err != nil || len(sets) == 0 {
		t.Errorf("model.json: sets %v, err %v", sets, err)
	}
}
