package resolve

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// family returns a core at e0 and two longer names at cosine c from it, on
// either side of it in one plane, so that the two are at cos 2·acos(c)
// from each other, with the filler names as the rest of the build.
func family(core, left, right string, c float64) []Entity {
	var s space
	e0, e1 := s.axis(), s.axis()
	theta := math.Acos(c)
	ents := []Entity{
		ent("core", core, "organization", e0),
		ent("left", left, "organization", plane(e0, e1, theta)),
		ent("right", right, "organization", plane(e0, e1, -theta)),
	}
	for k, n := range filler {
		ents = append(ents, ent(string(rune('f'+k)), n, "organization", s.axis()))
	}
	return ents
}

// TestBoundKeepsANameFamilyAroundItsCore: PATSTAT's name families, a core
// and its forms with a city or a legal form in another language, are one
// company although two of the forms are far apart by cosine (0.62 here,
// under the bound of 0.75) and share too few words for the score to hold
// them. Both were merged with the core, whose words are all in both, each
// with a second signal (a core is inside its forms, so the subset guard
// asks for one): a legal form written out, a shared co-inventor. The
// bound keeps the family whole and the merge log says why.
func TestBoundKeepsANameFamilyAroundItsCore(t *testing.T) {
	ents := family("Akzo Nobel", "Akzo Arnheimarnhem NL Nobel V", "Akzo Naamlooze Nobel Vennootschap", 0.9)
	ents[0].Neighbours = []string{"Jan de Vries"}
	ents[1].Neighbours = []string{"Jan de Vries"}
	res := mustResolve(t, ents, Config{})
	if !together(res, "core", "left") || !together(res, "core", "right") {
		t.Fatalf("the family is split: %+v; splits %+v", clusterOf(res, "core"), res.Splits)
	}
	if len(res.Splits) != 0 {
		t.Errorf("splits = %+v, want none", res.Splits)
	}
	for _, other := range []string{"left", "right"} {
		m := mergeOf(res, "core", other)
		if m == nil || !slices.Contains(m.Signals, SignalSharedCore) {
			t.Errorf("merge core-%s = %+v, want the %s signal", other, m, SignalSharedCore)
		}
	}
}

// TestBoundSplitsAFamilyOfVariants: a core does not hold two names that
// differ only in a variant word of the build ("black" and "white" are the
// only difference of two names in two contexts): the guards stay absolute
// in the bound too.
func TestBoundSplitsAFamilyOfVariants(t *testing.T) {
	ents := family("Harbour Jacket", "Harbour Jacket black", "Harbour Jacket white", 0.9)
	var s space
	s.next = testDim - 2
	ents = append(ents, ent("s1", "Scarf black", "organization", s.axis()), ent("s2", "Scarf white", "organization", s.axis()))
	res := mustResolve(t, ents, Config{})
	if together(res, "left", "right") {
		t.Errorf("black and white jackets in one cluster: %+v", clusterOf(res, "left"))
	}
}

// TestSignalTypoMergesTitlesThatDifferByATypo: two long titles that differ
// in one word each, by one edit (DBLP-ACM: "implementation" /
// "implementations", "facilitate" / "falilitate"), are one paper. The typo
// signal lets the score say so where a linear score over cosine and length
// alone put such a pair at 0.03.
func TestSignalTypoMergesTitlesThatDifferByATypo(t *testing.T) {
	var s space
	a, b := s.axis(), s.axis()
	ents := []Entity{
		ent("p1", "Semantics for update rule programs and implementation in a relational database management system", "publication", a),
		ent("p2", "Semantics for Update Rule Programs and Implementations in a Relational Database Management System", "publication", s.near(a, 0.998)),
		ent("q1", "Using semantic values to facilitate interoperability among heterogeneous information systems", "publication", b),
		ent("q2", "Using Semantic Values to Falilitate Interoperability Among Heterogeneous Information Systems", "publication", s.near(b, 0.964)),
	}
	res := mustResolve(t, ents, Config{Rules: RulesScore})
	for _, pq := range [][2]string{{"p1", "p2"}, {"q1", "q2"}} {
		m := mergeOf(res, pq[0], pq[1])
		if m == nil || m.Rule != RuleScore || !slices.Contains(m.Signals, SignalTypo) {
			t.Errorf("%s / %s: merge %+v, uncertain %+v; want merged by the score with the typo signal", pq[0], pq[1], m, uncertainPair(res, pq[0], pq[1]))
		}
	}
}

func TestTypoDifferIsOneEditInFiveLetters(t *testing.T) {
	x := indexOf("Implementation in a system", "Implementations in a system", "AKZO NOBEL", "AKZO NOBLE",
		"John Smith", "Jane Smith", "Northwind", "Southwind", "Sodium chloride", "Sodium chlorate", "Acme", "Acme Widgets")
	for _, tt := range []struct {
		a, b int
		want bool
	}{{0, 1, true}, {2, 3, true}, {4, 5, false}, {6, 7, false}, {8, 9, false}, {10, 11, false}} {
		if got := typoDiffer(x.name[tt.a], x.name[tt.b], x.names.words); got != tt.want {
			t.Errorf("typoDiffer(%q, %q) = %v, want %v", x.names.words[x.name[tt.a][0]], x.names.words[x.name[tt.b][0]], got, tt.want)
		}
	}
}

// TestDoubledPlace: a place written in two spellings run together is a
// place ("ARNHEIMARNHEM"); a place and another word, a place written once,
// or two short halves are not.
func TestDoubledPlace(t *testing.T) {
	for w, want := range map[string]bool{
		"arnheimarnhem": true, "arnhemarnheim": true, "antwerpantwerpen": true, "amsterdamamsterdam": true,
		"arnhem": false, "arnhemstraat": false, "nordarnhem": false, "osloslo": false, "arnhemx": false, "": false,
		strings.Repeat("arnhem", 20): false, // too long to be a place written twice
	} {
		if got := doubledPlace(w); got != want {
			t.Errorf("doubledPlace(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestScoreNeverMergesWithoutVectors: every pair the score was fitted on
// has a cosine; a pair without vectors is ranked by the score but never
// merged by it ("Porto Plants" / "Porto Plant": a plural key and a typo,
// and no cosine to confirm them).
func TestScoreNeverMergesWithoutVectors(t *testing.T) {
	ents := []Entity{{Key: "a", Name: "Porto Plants", Type: "Plant"}, {Key: "b", Name: "Porto Plant", Type: "Plant"}}
	res := mustResolve(t, ents, Config{Rules: RulesScore})
	if together(res, "a", "b") {
		t.Fatalf("merged without vectors: %+v", clusterOf(res, "a"))
	}
	if u := uncertainPair(res, "a", "b"); u == nil || u.Rule != RuleKeyOnly || u.Score == 0 {
		t.Errorf("uncertain = %+v, want key_without_cosine with a score", u)
	}
}

// TestBoundSplitsAFamilyOfSubstitutedNames: a core does not hold two names
// that differ in one word each ("John Smith" / "Jane Smith" around
// "Smith"): the score's rules would not merge them under High however
// high their score (guard_words), so the bounds do not hold them either.
// Under every rule set; and "Smithson" alone, inside both, joins neither
// without a second signal (guard_subset).
func TestBoundSplitsAFamilyOfSubstitutedNames(t *testing.T) {
	ents := family("Smithson", "John Smithson", "Jane Smithson", 0.9)
	for k := range ents {
		ents[k].Type = "person"
	}
	for _, rules := range []RuleSet{RulesKind, RulesScore, RulesThreshold, RulesCosine} {
		res := mustResolve(t, ents, Config{Rules: rules})
		if together(res, "left", "right") {
			t.Errorf("%s: John and Jane Smithson in one cluster: %+v", rules, clusterOf(res, "left"))
		}
		if together(res, "core", "left") || together(res, "core", "right") {
			t.Errorf("%s: Smithson joined a longer name without a second signal: %+v", rules, clusterOf(res, "core"))
		}
		if u := uncertainPair(res, "core", "left"); u == nil || u.Rule != RuleGuardSubset {
			t.Errorf("%s: Smithson / John Smithson uncertain = %+v, want %s", rules, u, RuleGuardSubset)
		}
	}
}

// TestBoundKeepsARunTogetherNameInItsFamily: PATSTAT's "GISTBROCADES" is
// "BROCADES GIST" written without a space; with the core merged to it and
// to "BROCADES GIST BV" (cosine 0.9 each), the two forms are far apart by
// cosine (0.62), and the core's words, run together in the one word, hold
// them as a family as they hold forms that contain the words.
func TestBoundKeepsARunTogetherNameInItsFamily(t *testing.T) {
	ents := family("Brocades Gist", "Gistbrocades", "Brocades Gist BV", 0.9)
	res := mustResolve(t, ents, Config{})
	if !together(res, "core", "left") || !together(res, "core", "right") {
		t.Fatalf("the family is split: %+v; splits %+v", clusterOf(res, "core"), res.Splits)
	}
	// Words run together in another order, or only some of them, are no core.
	for _, c := range []struct {
		ws, bag []string
		want    bool
	}{
		{[]string{"gistbrocades"}, []string{"brocades", "gist"}, true},
		{[]string{"delft", "gistbrocades"}, []string{"gist", "brocades"}, true},
		{[]string{"gistbrocadesdelft"}, []string{"brocades", "gist"}, false},
		{[]string{"gist"}, []string{"brocades", "gist"}, false},
		{[]string{"gistgist"}, []string{"gist"}, false},
	} {
		words := append(append([]string{}, c.ws...), c.bag...)
		ws := make([]uint32, len(c.ws))
		for k := range ws {
			ws[k] = uint32(k)
		}
		bag := make([]uint32, len(c.bag))
		for k := range bag {
			bag[k] = uint32(len(c.ws) + k)
		}
		if got := runTogetherAll(ws, bag, words); got != c.want {
			t.Errorf("runTogetherAll(%q, %q) = %v, want %v", c.ws, c.bag, got, c.want)
		}
	}
}

// TestBoundKeepsAFamilyJoinedThroughAForm: the core reaches a far form
// ("Brocades Delft Gist V", cosine 0.78 from the core: no merge of its
// own) only through another form ("Brocades Gist V"); the far form and
// "Gistbrocades" are at cosine 0.51. Every member on the path holds the
// core's words, so the core holds the two together. A path through a
// member that is not a form of the core (a typo of it) holds nothing.
func TestBoundKeepsAFamilyJoinedThroughAForm(t *testing.T) {
	vec := func(x, y, z float64) []float32 {
		v := make([]float32, testDim)
		v[0], v[1], v[2] = float32(x), float32(y), float32(z)
		return v
	}
	far := func(c0, c1 float64) []float32 { // at c0 from e0, at c1 from (0.9, 0.436, 0)
		y := (c1 - 0.9*c0) / math.Sqrt(1-0.81)
		return vec(c0, y, -math.Sqrt(1-c0*c0-y*y))
	}
	s := math.Sqrt(1 - 0.81)
	build := func(middle string) []Entity {
		ents := []Entity{
			ent("core", "Brocades Gist", "organization", vec(1, 0, 0)),
			ent("left", "Gistbrocades", "organization", vec(0.9, 0, s)),
			ent("mid", middle, "organization", vec(0.9, s, 0)),
			ent("far", "Brocades Delft Gist V", "organization", far(0.78, 0.9)),
		}
		var sp space
		sp.next = 3
		for k, n := range filler {
			ents = append(ents, ent(string(rune('f'+k)), n, "organization", sp.axis()))
		}
		return ents
	}
	res := mustResolve(t, build("Brocades Gist V"), Config{})
	for _, m := range []string{"left", "mid", "far"} {
		if !together(res, "core", m) {
			t.Errorf("%s is not with the core: %+v; splits %+v", m, clusterOf(res, "core"), res.Splits)
		}
	}
	res = mustResolve(t, build("Brocades Gistt V"), Config{})
	if together(res, "left", "far") {
		t.Errorf("a path through a typo of the core held the family: %+v", clusterOf(res, "core"))
	}
}
