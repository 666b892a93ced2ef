package resolve

import "testing"

// TestGivenNames_TwoPeopleWithOneSurnameStayApart: person names whose
// given names differ are two people whatever their cosine (a million
// generated names had put "Hugo Kenji Hernandez" with "Sven Hernandez");
// an initial, a shortening or two swapped letters is one given name.
func TestGivenNames_TwoPeopleWithOneSurnameStayApart(t *testing.T) {
	for _, tt := range []struct {
		a, b   string
		merged bool
	}{
		{"Hugo Kenji Hernandez", "Sven Hernandez", false},
		{"Carlos Marco Fischer", "Marco Diego Fischer", false},
		{"Mario Rossi", "Maria Rossi", false},
		{"J. Smithson", "John Smithson", true},
		{"Ö. Lindqvist", "Örjan Lindqvist", true},
		{"Alex Turner", "Alexander Turner", true},
		{"Henrik August Angell", "Henrik Angell", true}, // one more given name
		// A given name is no shortening of the other's surname ("Erik" /
		// "Eriksson", "Lars" / "Larsson": a million generated names had
		// joined such people).
		{"Nina Marta Eriksson", "Nina Erik Sokolov", false},
		{"Hiroshi Lars Wagner", "Hiroshi Larsson", false},
		{"Martin Eriksson", "Erik Martin", false},
		// A space missing between two of the words is no other name.
		{"Emma LauraKowalski", "Emma Laura Kowalski", true},
	} {
		for _, c := range []float64{0.85, 0.95} {
			res := mustResolve(t, pairAt(tt.a, tt.b, "Person", c), Config{})
			if got := together(res, "a", "b"); got != tt.merged {
				t.Errorf("cosine %.2f: %q / %q merged = %v, want %v; uncertain %+v", c, tt.a, tt.b, got, tt.merged, uncertainPair(res, "a", "b"))
			}
			if !tt.merged {
				if u := uncertainPair(res, "a", "b"); u == nil || u.Rule != RuleGuardWords {
					t.Errorf("cosine %.2f: %q / %q uncertain = %+v, want %s", c, tt.a, tt.b, u, RuleGuardWords)
				}
			}
		}
	}
	// Two swapped letters are one given name for this guard (below High
	// the one-word-each guard still asks a reviewer).
	var p resolver
	p.text = indexOf("Andres Lopez", "Anders Lopez")
	p.kind = []Kind{KindPerson, KindPerson}
	if p.givenNamesDiffer(0, 1) {
		t.Error("Andres / Anders judged two given names")
	}
	// Not a person: the guard is not theirs ("Acme Steel Works" / "Apex
	// Steel" is the subset and words guards' business, not this one's).
	var r resolver
	r.text = indexOf("Hugo Kenji Hernandez", "Sven Hernandez")
	r.kind = []Kind{KindOrganization, KindOrganization}
	if r.givenNamesDiffer(0, 1) {
		t.Error("organisation names judged as given names")
	}
}

// TestGivenNames_SplitAGroupJoinedThroughAnInitial: "J. Weber" may be
// John or Jim, but John Weber and Jim Weber are two people: the group the
// initial joins is split, with reason given_names_differ.
func TestGivenNames_SplitAGroupJoinedThroughAnInitial(t *testing.T) {
	var s space
	e := s.axis()
	ents := []Entity{
		ent("a", "J. Weber", "Person", e),
		ent("b", "John Weber", "Person", s.near(e, 0.95)),
		ent("c", "Jim Weber", "Person", s.near(e, 0.95)),
	}
	res := mustResolve(t, ents, Config{})
	if together(res, "b", "c") {
		t.Errorf("John Weber and Jim Weber in one cluster: %+v", clusterOf(res, "b"))
	}
	if len(res.Splits) != 1 || res.Splits[0].Reason != SplitGivenNames {
		t.Errorf("splits %+v; want one, reason %q", res.Splits, SplitGivenNames)
	}
}

// TestOrganisations_OwnWordsOnBothSidesStayApart: two organisation names
// that each have words of their own, legal forms and places aside, are two
// organisations under High (a million generated names had put "Zenith
// Machinery Corp." with "Zenith Legacy Consulting Corp."), unless a word
// of one is a respelling or a typo of one of the other's, or the other's
// words run together.
func TestOrganisations_OwnWordsOnBothSidesStayApart(t *testing.T) {
	for _, tt := range []struct {
		a, b   string
		merged bool
	}{
		{"Zenith Machinery Corp.", "Zenith Legacy Consulting Corp.", false},
		{"Norwegian Military Academy", "Norwegian Army", false},
		{"Metro Health KG", "Prime Metro Medical KG", false},
		{"GISTBROCADES", "BROCADES GIST", true},
		{"ADIDAS INTERNAT MARKETING", "ADIDAS IUMLAUT MARKETING NTERNAT OVER", true},
		{"AKZO ARNHEIMARNHEM NOBEL V", "AKZO ARNHEIMARNHEM NL NOBEL V", true}, // a country's code is a place
	} {
		res := mustResolve(t, pairAt(tt.a, tt.b, "organization", 0.85), Config{})
		if got := together(res, "a", "b"); got != tt.merged {
			t.Errorf("%q / %q merged = %v, want %v; uncertain %+v", tt.a, tt.b, got, tt.merged, uncertainPair(res, "a", "b"))
		}
		if u := uncertainPair(res, "a", "b"); !tt.merged && (u == nil || u.Rule != RuleGuardWords) {
			t.Errorf("%q / %q uncertain = %+v, want %s", tt.a, tt.b, u, RuleGuardWords)
		}
	}
	// At High or above, the cosine alone decides, as for one word each.
	if res := mustResolve(t, pairAt("Zenith Machinery Corp.", "Zenith Legacy Consulting Corp.", "organization", 0.95), Config{}); !together(res, "a", "b") {
		t.Errorf("cosine 0.95: apart; uncertain %+v", uncertainPair(res, "a", "b"))
	}
}

// TestTypos_TwoLettersSwapped: two neighbouring letters swapped are a
// typo, in a person's name too ("Carmen Matrin Gomez"), and even in a word
// the build knows as a variant ("balck" is no colour); one letter for
// another in a given name is another name ("Mario" / "Maria").
func TestTypos_TwoLettersSwapped(t *testing.T) {
	for _, tt := range []struct {
		a, b, typ string
		merged    bool
	}{
		{"Carmen Matrin Gomez", "Carmen Martin Gomez", "Person", true},
		{"Elena Zoe Johnasson", "Elena Zoe Johansson", "Person", true},
		{"Mario Rossi", "Maria Rossi", "Person", false},
	} {
		res := mustResolve(t, pairAt(tt.a, tt.b, tt.typ, 0.85), Config{})
		if got := together(res, "a", "b"); got != tt.merged {
			t.Errorf("%q / %q merged = %v, want %v; uncertain %+v", tt.a, tt.b, got, tt.merged, uncertainPair(res, "a", "b"))
		}
	}
	// "black" is a variant of this build (the one word two names differ in,
	// in two contexts), "balck" a typo of it.
	var s space
	e := s.axis()
	ents := []Entity{ent("a", "Harbour Tee balck XL", "product", e), ent("b", "Harbour Tee black XL", "product", s.near(e, 0.85))}
	for k, n := range []string{"Tee black XL", "Tee white XL", "Mug black", "Mug red"} {
		ents = append(ents, ent(string(rune('p'+k)), n, "product", s.axis()))
	}
	res := mustResolve(t, ents, Config{})
	if !together(res, "a", "b") {
		t.Errorf("balck / black apart; uncertain %+v", uncertainPair(res, "a", "b"))
	}
	if res := mustResolve(t, append(ents[:0:0], ent("a", "Harbour Tee white XL", "product", e), ent("b", "Harbour Tee black XL", "product", s.near(e, 0.85)), ents[2], ents[3], ents[4], ents[5]), Config{}); together(res, "a", "b") {
		t.Error("white / black merged: the variant guard no longer holds")
	}
	for _, tt := range []struct {
		x, y string
		want bool
	}{{"dnever", "denver", true}, {"ab", "ba", true}, {"mario", "maria", false}, {"abc", "cba", false}, {"abcd", "abdc", true}, {"abcd", "abcd", false}, {"jösef", "jsöef", true}, {"jösef", "jöesf", true}, {"aéb", "abé", true}, {"aé", "éa", true}, {"ab", "abc", false}} {
		if got := swapped(tt.x, tt.y); got != tt.want {
			t.Errorf("swapped(%q, %q) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

// TestHonorifics_AreNotPartOfAPersonsName: "Dr. Olga Lange" is Olga
// Lange (the subset guard held them: "dr" was a word the shorter lacked),
// and a doctor and a professor of one name are not two given names.
func TestHonorifics_AreNotPartOfAPersonsName(t *testing.T) {
	for _, tt := range [][2]string{
		{"Dr. Olga Lange", "Olga Lange"},
		{"Dr. Wei Takahashi", "Prof. Wei Takahashi"},
		{"Mrs Eva Hill", "Eva Hill"},
	} {
		// Another person holds the shorter name, so "the only longer
		// person name" does not merge them either.
		ents := pairAt(tt[0], tt[1], "Person", 0.88)
		ents = append(ents, ent("z", "Anna "+tt[1], "Person", ents[2].Vector))
		ents[2].Vector = make([]float32, len(ents[2].Vector))
		ents[2].Vector[len(ents[2].Vector)-1] = 1
		res := mustResolve(t, ents, Config{})
		if !together(res, "a", "b") {
			t.Errorf("%q / %q apart; uncertain %+v", tt[0], tt[1], uncertainPair(res, "a", "b"))
		}
	}
	// Not for organisations: "Dr" may be a company's own word there.
	res := mustResolve(t, pairAt("Dr. Oetker", "Oetker", "organization", 0.88), Config{})
	if together(res, "a", "b") {
		t.Error("Dr. Oetker merged into Oetker")
	}
}

func TestSurnameWord(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"Leon Georg Thompson", "thompson"},
		{"Thompson, Leon Georg", "thompson"},
		{"Van Dyke, Dick", "dyke"},
		{"Paul Desmarais Sr", "desmarais"},
		{"William DeMott II", "demott"},
		{"Dr. Olga Lange", "lange"},
		{"Madonna", ""},
		{"Smith,", ""}, // one word, whatever the comma
	} {
		if got := surnameWord(tt.name, nameWords(tt.name)); got != tt.want {
			t.Errorf("surnameWord(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSoleSurname: a surname alone merges with the one person name of the
// build that holds it, whatever the cosine (sole_surname); not when a
// second person name holds the word, not a given name alone, not a short
// surname, and not for names that are no persons.
func TestSoleSurname(t *testing.T) {
	for _, tt := range []struct {
		name   string
		names  []string // the first two are the pair; the rest are more person names of the build
		typ    string
		merged bool
	}{
		{"the one holder", []string{"Guattari", "Félix Guattari"}, "Person", true},
		{"three words", []string{"Angell", "Henrik August Angell"}, "Person", true},
		{"a surname before a comma", []string{"Thompson", "Thompson, Leon Georg"}, "Person", true},
		{"two holders", []string{"Page", "Jimmy Page", "Larry Page"}, "Person", false},
		{"the word a given name elsewhere", []string{"Page", "Jimmy Page", "Page Hamilton"}, "Person", false},
		{"a given name alone", []string{"John", "John MacDonald"}, "Person", false},
		{"a short surname", []string{"Li", "Wei Li"}, "Person", false},
		{"organisations", []string{"Guattari", "Félix Guattari"}, "Organization", false},
	} {
		var s space
		ents := []Entity{ent("a", tt.names[0], tt.typ, s.axis()), ent("b", tt.names[1], tt.typ, s.axis())} // cosine 0
		for k, n := range tt.names[2:] {
			ents = append(ents, ent(string(rune('c'+k)), n, tt.typ, s.axis()))
		}
		for k, n := range filler {
			ents = append(ents, ent(string(rune('m'+k)), n, "Organization", s.axis()))
		}
		res := mustResolve(t, ents, Config{})
		if got := together(res, "a", "b"); got != tt.merged {
			t.Errorf("%s: %q / %q merged = %v, want %v", tt.name, tt.names[0], tt.names[1], got, tt.merged)
			continue
		}
		if m := mergeOf(res, "a", "b"); tt.merged && (m == nil || m.Rule != RuleSoleSurname) {
			t.Errorf("%s: merge %+v, want rule %s", tt.name, m, RuleSoleSurname)
		}
	}
}
