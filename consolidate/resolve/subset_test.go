package resolve

import (
	"context"
	"testing"
)

// pairAt returns two entities of a type at cosine c, among the filler
// names, for rules that look at the whole build's words.
func pairAt(a, b, typ string, c float64) []Entity {
	var s space
	e := s.axis()
	ents := []Entity{ent("a", a, typ, e), ent("b", b, typ, s.near(e, c))}
	for k, n := range filler {
		ents = append(ents, ent(string(rune('f'+k)), n, typ, s.axis()))
	}
	return ents
}

var allRuleSets = []RuleSet{RulesKind, RulesScore, RulesThreshold, RulesCosine}

// TestSubsetGuard_KeepsANameOutOfALongerOne: a name inside a longer one
// (a group and its subsidiary, a company and its report) stays apart
// under every rule set, however high the cosine under ShortHigh, and is
// shown for review with guard_subset.
func TestSubsetGuard_KeepsANameOutOfALongerOne(t *testing.T) {
	for _, tt := range []struct{ a, b, typ string }{
		{"PHILIPS", "INTELLECTUAL PHILIPS PROPERTY STANDARDS", "organization"},
		{"SANOFI", "SANOFI SYNTHELABO", "organization"},
		{"Velora Cycles", "Velora Cycles Quality Review", "organization"},
		{"Supplier", "Supplier scores", "concept"},
		{"Harbour Jacket", "Harbour Jacket Deluxe", "product"},
		// Place words are qualifiers of organisation names only, and only
		// beside a name that is more than places.
		{"Supplier", "Supplier Porto", "concept"},
		{"Harbour Jacket", "Harbour Jacket Amsterdam", "product"},
		{"Porto", "Porto Amsterdam", "organization"},
		// A word is a place written twice only when both halves spell the
		// place: not a place and a word, nor a name written twice.
		{"AKZO NOBEL", "AKZO ARNHEMSTRAAT NOBEL", "organization"},
		{"Porto Cycles", "Porto Cycles PORTOPORTO", "product"},
		// A word of a place of several words is a place only beside all
		// of them, and only for a town of 50,000 people or more.
		{"Cargill", "Cargill Zoom", "organization"},
		{"Meadow Maintenance", "East Meadow Maintenance", "organization"},
		{"Hoechst", "Hoechst Frankfurt am Main", "product"},
		// Legal forms do not hide a name inside another.
		{"River Advisors Co.", "Accurate River Advisors Ltd.", "organization"},
	} {
		for _, rules := range allRuleSets {
			for _, c := range []float64{0.85, 0.95} {
				res := mustResolve(t, pairAt(tt.a, tt.b, tt.typ, c), Config{Rules: rules})
				if together(res, "a", "b") {
					t.Errorf("%s, cosine %.2f: %q merged into %q: %+v", rules, c, tt.a, tt.b, clusterOf(res, "a").Merges)
				}
				if u := uncertainPair(res, "a", "b"); u == nil || u.Rule != RuleGuardSubset {
					t.Errorf("%s, cosine %.2f: %q / %q uncertain = %+v, want %s", rules, c, tt.a, tt.b, u, RuleGuardSubset)
				}
			}
		}
	}
}

// TestSubsetGuard_MergesWithASecondSignal: the same shape merges when a
// second signal agrees: a legal form (the suffix key, or legal-form words
// written out), a neighbour both names are related to, one anchor.
func TestSubsetGuard_MergesWithASecondSignal(t *testing.T) {
	shared := func(ents []Entity) []Entity {
		ents[0].Neighbours = []string{"Jan de Vries", "Porto plant"}
		ents[1].Neighbours = []string{"Jan de Vries"}
		return ents
	}
	for _, tt := range []struct {
		name string
		ents []Entity
	}{
		{"suffix key", pairAt("Akzo Nobel", "Akzo Nobel N.V.", "organization", 0.9)},
		{"legal form written out", pairAt("Akzo Nobel", "Akzo Naamloze Nobel Vennootschap", "organization", 0.9)},
		{"a place", pairAt("ALCATEL", "ALCATEL AMSTERDAM V", "organization", 0.9)},
		{"places and a regional qualifier", pairAt("Whirlpool", "Euro Whirlpool Eindhoven International", "organization", 0.9)},
		{"a country's code", pairAt("Kestrel Alloys", "Kestrel Alloys UK", "organization", 0.9)},
		{"the last word of a place of several words", pairAt("BERGEN CARGILL OP V", "BERGEN CARGILL OP V ZOOM", "organization", 0.87)},
		{"a place of several words", pairAt("Hoechst", "Hoechst Frankfurt am Main", "organization", 0.85)},
		{"a place in two spellings run together", pairAt("AKZO NOBEL", "AKZO ARNHEIMARNHEM NOBEL V", "organization", 0.82)},
		{"shared neighbour", shared(pairAt("SANOFI", "SANOFI SYNTHELABO", "organization", 0.9))},
	} {
		res := mustResolve(t, tt.ents, Config{Rules: RulesThreshold})
		if !together(res, "a", "b") {
			t.Errorf("%s: %q / %q apart; uncertain %+v", tt.name, tt.ents[0].Name, tt.ents[1].Name, uncertainPair(res, "a", "b"))
		}
	}
}

// TestSubsetGuard_ALegalFormRunOnIsNoLongerName: "ALCATEL V" / "ALCATEL
// VNL" (a legal form run on into a country's code) differ in one word,
// one the other's respelling: neither name is inside the other.
func TestSubsetGuard_ALegalFormRunOnIsNoLongerName(t *testing.T) {
	res := mustResolve(t, pairAt("ALCATEL V", "ALCATEL VNL", "organization", 0.87), Config{})
	if !together(res, "a", "b") {
		t.Errorf("apart: uncertain %+v", uncertainPair(res, "a", "b"))
	}
}

// TestSubsetGuard_ASharedNeighbourIsNoSecondSignalForConcepts: two titles
// by the same authors, one inside the other, are two works ("The LHAM
// Log-Structured History Data Access Method" and "Design, Implementation,
// and Performance of the LHAM …"), and two concepts related to one
// supplier are two concepts; a company and its longer name with a shared
// co-inventor still merge.
func TestSubsetGuard_ASharedNeighbourIsNoSecondSignalForConcepts(t *testing.T) {
	shared := func(ents []Entity) []Entity {
		ents[0].Neighbours = []string{"Peter Muth", "Gerhard Weikum"}
		ents[1].Neighbours = []string{"Gerhard Weikum", "Patrick O'Neil"}
		return ents
	}
	for _, tt := range []struct {
		a, b, typ string
		merged    bool
	}{
		{"The LHAM Log-Structured History Data Access Method", "Design, Implementation, and Performance of the LHAM Log-Structured History Data Access Method", "", false},
		{"Battery", "Battery pack", "concept", false},
		{"SANOFI", "SANOFI SYNTHELABO", "organization", true},
	} {
		for _, c := range []float64{0.85, 0.95} {
			res := mustResolve(t, shared(pairAt(tt.a, tt.b, tt.typ, c)), Config{})
			if got := together(res, "a", "b"); got != tt.merged {
				t.Errorf("cosine %.2f: %q / %q merged = %v, want %v; uncertain %+v", c, tt.a, tt.b, got, tt.merged, uncertainPair(res, "a", "b"))
			}
		}
	}
}

// TestTitle_MergesWithNoOtherName: a report's title is not an entity. It
// is neither merged with the company it names nor shown beside it for
// review, even where the guards would have listed the pair; an equal name
// still merges with it.
func TestTitle_MergesWithNoOtherName(t *testing.T) {
	const title = "Velora Cycles Quality Review, First Quarter 2025"
	var s space
	e := s.axis()
	ents := []Entity{
		ent("t", title, "organization", e),
		ent("t2", "velora cycles quality review first quarter 2025", "organization", s.near(e, 0.99)),
		ent("c", "Velora Cycles", "organization", s.near(e, 0.95)),
	}
	ents[0].Title, ents[1].Title = true, true
	for _, rules := range allRuleSets {
		res := mustResolve(t, ents, Config{Rules: rules})
		if together(res, "t", "c") || together(res, "t2", "c") {
			t.Errorf("%s: the title merged with the company: %+v", rules, clusterOf(res, "c"))
		}
		for _, u := range res.Uncertain {
			if u.A == "c" || u.B == "c" {
				t.Errorf("%s: the company paired with a title for review: %+v", rules, u)
			}
		}
		if !together(res, "t", "t2") {
			t.Errorf("%s: two spellings of one title apart", rules)
		}
	}
	ents[0].Title, ents[1].Title = false, false
	res := mustResolve(t, ents, Config{})
	if uncertainPair(res, "t", "c") == nil && uncertainPair(res, "t2", "c") == nil {
		t.Errorf("without Title the pair is not listed: the test shows nothing")
	}
}

func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		want Kind
	}{
		{"Organization", KindOrganization},
		{"company", KindOrganization},
		{"Suppliers", KindOrganization},
		{"PERSON", KindPerson},
		{"product", KindProduct},
		{"City", KindConcept},
		{"Products", KindProduct},
		{"publication", KindConcept},
		{"", KindConcept},
		{"unknown", KindConcept},
		{"Plant", KindConcept},
	} {
		if got := KindOf(tt.typ); got != tt.want {
			t.Errorf("KindOf(%q) = %s, want %s", tt.typ, got, tt.want)
		}
	}
}

// TestKindRules_DecideByTheNamesKind: under RulesKind an organisation pair
// at cosine 0.85 with no key merges by the threshold rule, a concept pair
// of the same shape does not; KindRules changes a kind's rule; and a pair
// not decided by the score carries no score.
func TestKindRules_DecideByTheNamesKind(t *testing.T) {
	for _, typ := range []string{"organization", "person", "product"} {
		res := mustResolve(t, pairAt("Kestrel Alloys Porto", "Kestrel Alloy Works Porto", typ, 0.85), Config{})
		if m := mergeOf(res, "a", "b"); m == nil || m.Rule != RuleThreshold || m.Score != 0 {
			t.Errorf("%s: merge %+v, uncertain %+v; want %s without a score", typ, m, uncertainPair(res, "a", "b"), RuleThreshold)
		}
	}
	concept := pairAt("Kestrel Alloys Porto", "Kestrel Alloy Works Porto", "publication", 0.85)
	res := mustResolve(t, concept, Config{})
	if together(res, "a", "b") {
		t.Errorf("concept merged at cosine 0.85 without a key: %+v", mergeOf(res, "a", "b"))
	}
	if u := uncertainPair(res, "a", "b"); u == nil || u.Rule != RuleUncertainCosine || u.Score != 0 {
		t.Errorf("concept: uncertain %+v, want %s without a score", u, RuleUncertainCosine)
	}
	res = mustResolve(t, concept, Config{KindRules: map[Kind]RuleSet{KindConcept: RulesThreshold}})
	if !together(res, "a", "b") {
		t.Errorf("concept under KindRules threshold: apart")
	}
	res = mustResolve(t, concept, Config{KindRules: map[Kind]RuleSet{KindConcept: RulesScore}, Model: scoreModel()})
	p := uncertainPair(res, "a", "b")
	if p == nil {
		p = mergeOf(res, "a", "b")
	}
	if p == nil || p.Score == 0 {
		t.Errorf("concept under KindRules score: pair %+v, want a score", p)
	}
}

func TestConfig_ValidateKindRules(t *testing.T) {
	for _, tt := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{KindRules: map[Kind]RuleSet{KindPerson: RulesScore}}, true},
		{Config{KindRules: map[Kind]RuleSet{KindPerson: RulesKind}}, false},
		{Config{KindRules: map[Kind]RuleSet{KindPerson: "bogus"}}, false},
		{Config{KindRules: map[Kind]RuleSet{KindConcept: RulesThreshold}}, true},
		{Config{KindRules: map[Kind]RuleSet{"company": RulesCosine}}, false}, // a type, not a kind: it would be ignored
		{Config{Rules: "bogus"}, false},
		{Config{Floor: 0.9}, false},
	} {
		if err := tt.cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("Validate(%+v) = %v, want ok %v", tt.cfg, err, tt.ok)
		}
	}
}

// TestCandidates_FindPairsNoWordAndNoCosineFinds: rare character trigrams
// find a typo inside a word ("ALCATEL" / "ALKATEL") and a model code
// written two ways, between names whose vectors are orthogonal; in a small
// group the nearest neighbours are kept whatever their cosine ("Washington"
// / "D.C.").
func TestCandidates_FindPairsNoWordAndNoCosineFinds(t *testing.T) {
	var s space
	ents := []Entity{
		ent("a1", "ALCATEL", "organization", s.axis()),
		ent("a2", "ALKATEL", "organization", s.axis()),
		ent("d1", "Denon Semi-Automatic Turntable - Black Finish - DP29F", "product", s.axis()),
		ent("d2", "Denon DP-29F Analog Record Turntable", "product", s.axis()),
		ent("w1", "Washington", "location", s.axis()),
		ent("w2", "D.C.", "location", s.axis()),
	}
	for k, n := range filler {
		ents = append(ents, ent(string(rune('f'+k)), n, "organization", s.axis()))
	}
	cands, err := Candidates(context.Background(), ents, Config{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[[2]string]bool{}
	for _, c := range cands {
		found[[2]string{c.A, c.B}] = true
	}
	for _, want := range [][2]string{{"a1", "a2"}, {"d1", "d2"}, {"w1", "w2"}} {
		if !found[want] {
			t.Errorf("%v is no candidate", want)
		}
	}
}

// TestSubsetGuard_APersonsOnlyLongerName: a person's surname inside the
// one longer person name of the build is that person ("Obama" / "Barack
// Obama", sole_surname, which comes before the cosine rules); inside two
// it is neither (TestBoundSplitsAFamilyOfSubstitutedNames),
// and an organisation inside its only longer name still needs a second
// signal (TestSubsetGuard_KeepsANameOutOfALongerOne).
func TestSubsetGuard_APersonsOnlyLongerName(t *testing.T) {
	res := mustResolve(t, pairAt("Obama", "Barack Obama", "person", 0.85), Config{})
	if m := mergeOf(res, "a", "b"); m == nil || m.Rule != RuleSoleSurname {
		t.Errorf("Obama / Barack Obama: merge %+v, uncertain %+v; want %s", m, uncertainPair(res, "a", "b"), RuleSoleSurname)
	}
	ents := append(pairAt("Obama", "Barack Obama", "person", 0.85), ent("m", "Michelle Obama", "person", make([]float32, testDim)))
	ents[len(ents)-1].Vector[testDim-1] = 1
	res = mustResolve(t, ents, Config{})
	if together(res, "a", "b") {
		t.Errorf("Obama merged into Barack Obama beside Michelle Obama: %+v", clusterOf(res, "a"))
	}
}

// TestGuards_ALegalFormIsNotWhatTwoCompanyNamesDifferIn: two organisation
// names that differ in a legal-form word on one side and a place on the
// other ("AKZO NOBEL V" / "AKZO ARNHEM NOBEL") are compared without the
// legal form, so the place extends the name and they merge under the
// threshold rule; the same shape of another kind is still two names that
// differ in one word each (guard_words).
func TestGuards_ALegalFormIsNotWhatTwoCompanyNamesDifferIn(t *testing.T) {
	res := mustResolve(t, pairAt("AKZO NOBEL V", "AKZO ARNHEM NOBEL", "organization", 0.87), Config{Rules: RulesThreshold})
	if !together(res, "a", "b") {
		t.Errorf("organisations apart; uncertain %+v", uncertainPair(res, "a", "b"))
	}
	res = mustResolve(t, pairAt("Harbour Jacket V", "Harbour Jacket Arnhem", "product", 0.87), Config{Rules: RulesThreshold})
	if u := uncertainPair(res, "a", "b"); together(res, "a", "b") || u == nil || u.Rule != RuleGuardWords {
		t.Errorf("products: together %v, uncertain %+v; want apart by %s", together(res, "a", "b"), u, RuleGuardWords)
	}
}
