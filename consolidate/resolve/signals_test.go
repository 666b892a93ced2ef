package resolve

import (
	"context"
	"math"
	"slices"
	"testing"
)

// indexOf builds the text index of names (one entity each, no type).
func indexOf(names ...string) *textIndex {
	ents := make([]Entity, len(names))
	feat := make([]features, len(names))
	for i, n := range names {
		ents[i] = Entity{Key: n, Name: n}
		feat[i] = nameFeatures(n, "")
	}
	return newTextIndex(ents, feat)
}

// Filler names make "philips" and "schneider" rare words of the build, as
// they are in a real one, and "electronics" a common one.
var filler = []string{"Acme Electronics", "Globex Electronics", "Initech Electronics", "Umbrella Electronics", "Hooli", "Vandelay Industries"}

func TestSignalContainmentMeetsShortAndLongForms(t *testing.T) {
	names := append([]string{"Philips", "Koninklijke Philips Electronics N.V.", "Schneider", "Willi Schneider", "Siemens"}, filler...)
	x := indexOf(names...)
	if c := x.names.containment(x.name[0], x.name[1]); math.Abs(c-1) > 1e-9 {
		t.Errorf("containment(Philips, Koninklijke Philips Electronics N.V.) = %v, want 1", c)
	}
	if c := x.names.containment(x.name[2], x.name[3]); math.Abs(c-1) > 1e-9 {
		t.Errorf("containment(Schneider, Willi Schneider) = %v, want 1", c)
	}
	if c := x.names.containment(x.name[0], x.name[4]); c != 0 {
		t.Errorf("containment(Philips, Siemens) = %v, want 0", c)
	}
	// IDF: sharing the rare word weighs more than sharing a common one.
	rare := x.names.jaccard(x.name[0], x.name[1])
	common := x.names.jaccard(x.name[5], x.name[6]) // Acme / Globex Electronics
	if rare <= common {
		t.Errorf("idf_overlap sharing philips %v ≤ sharing electronics %v", rare, common)
	}
}

func TestSignalTrigramSeesTyposAndWordsRunTogether(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		min  float64
	}{
		{"GISTBROCADES", "GIST BROCADES", 0.6},
		{"AKZO NOBEL", "AKZO NOBLE", 0.5},
		{"ALCATEL", "ALKATEL", 0.3},
	} {
		fa, fb := nameFeatures(tt.a, ""), nameFeatures(tt.b, "")
		if j := setJaccard(trigrams(fa.name), trigrams(fb.name)); j < tt.min {
			t.Errorf("trigram(%q, %q) = %.3f, want ≥ %v", tt.a, tt.b, j, tt.min)
		}
	}
	if j := setJaccard(trigrams("philips"), trigrams("siemens")); j > 0.1 {
		t.Errorf("trigram(philips, siemens) = %.3f, want about 0", j)
	}
}

func TestVariantWordGuardLearnsFromTheBuild(t *testing.T) {
	names := []string{
		"Tee black XL", "Tee white XL", "Mug black", "Mug red",
		"Lens Hood for Nikon", "Lens Hood for Canon", "Strap for Nikon", "Strap for Canon",
		"AKZO NOBEL", "AKZO NOBLE", "Tee XL",
	}
	x := indexOf(names...)
	variant := variantWords(x.name, x.names)
	at := func(n string) []uint32 { return x.name[slices.Index(names, n)] }
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"Tee black XL", "Tee white XL", true},               // black alternates in two families
		{"Lens Hood for Nikon", "Lens Hood for Canon", true}, // a named counterpart
		{"Strap for Nikon", "Strap for Canon", true},
		{"AKZO NOBEL", "AKZO NOBLE", false}, // a typo alternates in one context only
		{"Tee black XL", "Tee XL", false},   // one side only has the extra word
		{"Mug black", "Tee black XL", false},
	} {
		if got := variantDiffer(at(tt.a), at(tt.b), variant, x.names.words); got != tt.want {
			t.Errorf("variantDiffer(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// scoreModel is a hand-made model for tests: the score is high when the
// cosine is high, uncertain when the names only contain each other.
func scoreModel() *Model {
	return &Model{
		Features: Features, Intercept: -40,
		Coefficients: []float64{40, 0, 0, 38, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		Merge:        0.5, Uncertain: 0.1,
	}
}

func TestTokenCandidatesFindContainedNamesWithoutCosine(t *testing.T) {
	var s space
	ents := []Entity{ent("b1", "BAYER", "organization", s.axis()), ent("b2", "ANTWERP BAYER", "organization", s.axis())}
	for _, n := range filler {
		ents = append(ents, ent(n, n, "organization", s.axis()))
	}
	res := mustResolve(t, ents, Config{Rules: RulesScore, Model: scoreModel()})
	if res.Stats.TokenPairs == 0 {
		t.Fatalf("no pair found by a rare word: %+v", res.Stats)
	}
	var got *Pair
	for i := range res.Uncertain {
		if res.Uncertain[i].A == "b1" && res.Uncertain[i].B == "b2" {
			got = &res.Uncertain[i]
		}
	}
	if got == nil {
		t.Fatalf("BAYER / ANTWERP BAYER (cosine 0) not a scored candidate: uncertain %+v", res.Uncertain)
	}
	if got.Rule != RuleUncertainScore || got.Values[SignalContainment] != 1 || !slices.Contains(got.Signals, SignalContainment) {
		t.Errorf("pair = %+v, want uncertain_score with containment 1 listed", *got)
	}
	if want := scoreModel().Score(featureVector(got.Values)); math.Abs(got.Score-want) > 1e-12 || got.Score <= 0 {
		t.Errorf("score = %v, want %v", got.Score, want)
	}
}

func featureVector(v map[Signal]float64) []float64 {
	x := make([]float64, len(Features))
	for k, f := range Features {
		x[k] = v[f]
	}
	return x
}

func TestSignalsDescriptionNeighboursAndTypeInTheMergeLog(t *testing.T) {
	var s space
	a := s.axis()
	ents := []Entity{
		{
			Key: "a", Name: "Kestrel Alloys", Type: "organization", Vector: a, Description: "aluminium alloy supplier in Porto",
			Neighbours: []string{"Porto plant", "Velora Cycles"},
		},
		{
			Key: "b", Name: "Kestrel Alloys Porto", Type: "organization", Vector: s.near(a, 0.95), Description: "supplier of aluminium alloy",
			Neighbours: []string{"Porto Plant"},
		},
	}
	res := mustResolve(t, ents, Config{Rules: RulesScore, Model: scoreModel()})
	if len(res.Clusters) != 1 || len(res.Clusters[0].Merges) != 1 {
		t.Fatalf("clusters = %+v, want one merge", res.Clusters)
	}
	p := res.Clusters[0].Merges[0]
	for _, want := range []Signal{SignalCosine, SignalContainment, SignalDescription, SignalNeighbours, SignalType} {
		if !slices.Contains(p.Signals, want) {
			t.Errorf("signals %v lack %s", p.Signals, want)
		}
	}
	if p.Values["neighbours_known"] != 1 || p.Values[SignalNeighbours] <= 0 || p.Values["description_known"] != 1 {
		t.Errorf("values = %v, want neighbours and description known and shared", p.Values)
	}
	if p.Rule != RuleScore || p.Score < 0.5 {
		t.Errorf("rule %s score %v, want score ≥ 0.5", p.Rule, p.Score)
	}
}

func TestScoreGuardsStayAbsolute(t *testing.T) {
	var s space
	a, v, w := s.axis(), s.axis(), s.axis()
	ents := []Entity{
		ent("s1", "Station 1", "facility", a), ent("s2", "Station 2", "facility", s.near(a, 0.999)),
		ent("t1", "Tee black XL", "product", v), ent("t2", "Tee white XL", "product", s.near(v, 0.999)),
		ent("m1", "Mug black", "product", s.axis()), ent("m2", "Mug white", "product", s.axis()),
		ent("j1", "John Smith", "person", w), ent("j2", "Jane Smith", "person", s.near(w, 0.9)),
		ent("c1", "SX130-IS", "product", s.axis()),
	}
	res := mustResolve(t, ents, Config{Rules: RulesScore, Model: scoreModel()})
	for _, tt := range []struct {
		a, b string
		rule Rule
	}{
		{"s1", "s2", RuleGuardNumber},
		{"t1", "t2", RuleGuardVariant}, // black and white are variants of the build
		{"j1", "j2", RuleGuardWords},   // one word each, not a respelling, cosine under High
	} {
		if together(res, tt.a, tt.b) {
			t.Errorf("%s and %s merged", tt.a, tt.b)
		}
		if u := uncertainPair(res, tt.a, tt.b); u == nil || u.Rule != tt.rule || u.Score < 0.5 {
			t.Errorf("%s / %s: %+v, want uncertain by %s with a merging score", tt.a, tt.b, u, tt.rule)
		}
	}
}

func TestSubstitutedAndRespelling(t *testing.T) {
	x := indexOf("John Smith", "Jane Smith", "ADIDAS INTERNAT MARKETING", "ADIDAS INTERNATL MARKETING", "Sodium chloride", "Sodium chlorate", "Acme", "Acme Widgets")
	for _, tt := range []struct {
		a, b int
		want bool
	}{{0, 1, true}, {2, 3, false}, {4, 5, true}, {6, 7, false}} {
		if got := substituted(x.name[tt.a], x.name[tt.b], x.names.words); got != tt.want {
			t.Errorf("substituted(%d, %d) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCandidatesCarryTheScoredValues(t *testing.T) {
	var s space
	a := s.axis()
	ents := []Entity{
		ent("x", "Acme Widgets", "", a), ent("y", "ACME Widgets Inc", "", s.near(a, 0.9)), ent("z", "Acme Widgets", "", s.near(a, 0.99)),
		ent("w", "Acme Widgets Europe", "", s.near(a, 0.85)),
	}
	cands, err := Candidates(context.Background(), ents, Config{})
	if err != nil {
		t.Fatal(err)
	}
	decided := map[string]Rule{}
	for _, c := range cands {
		if len(c.Values) != len(Features) {
			t.Errorf("%s-%s: %d values", c.A, c.B, len(c.Values))
		}
		decided[c.A+"-"+c.B] = c.Decided
	}
	// x-y: a suffix key with a cosine of at least Low merges whatever the
	// score (key_and_cosine), so it teaches the score nothing; w-x is left
	// to the score.
	if decided["x-z"] != RuleSameName || decided["x-y"] != RuleKeyCosine || decided["w-x"] != "" {
		t.Errorf("decided = %v, want x-z same_name, x-y key_and_cosine and w-x by the score", decided)
	}
}

// Legal-form words and single letters alternate in one company's names
// ("AKZO NOBEL V", "AKZO NOBEL VNL"); they are not what another name has
// instead of a place, so for organisations they do not make the place a
// variant word. For another kind the same names still do.
func TestVariantWordsIgnoreLegalFormsOfOrganisations(t *testing.T) {
	names := []string{"AKZO NOBEL V", "AKZO ARNHEM NOBEL", "AKZO ARNHEM NOBEL V", "AKZO NOBEL VNL V", "AKZO ARNHEM NOBEL VNL"}
	for _, tt := range []struct {
		typ  string
		want bool
	}{{"organization", false}, {"concept", true}} {
		var s space
		ents := make([]Entity, len(names))
		for i, n := range names {
			ents[i] = ent(n, n, tt.typ, s.axis())
		}
		r, err := newResolver(ents, Config{}.withDefaults(), entityKeys)
		if err != nil {
			t.Fatal(err)
		}
		id, ok := r.text.names.ids["arnhem"]
		if !ok {
			t.Fatalf("%s: no word id for arnhem in %v", tt.typ, r.text.names.words)
		}
		if got := r.variant[id]; got != tt.want {
			t.Errorf("%s: arnhem a variant word = %v, want %v", tt.typ, got, tt.want)
		}
	}
}
