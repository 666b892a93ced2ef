package resolve

import (
	"reflect"
	"strings"
	"testing"

	"kgforge/kg"
)

// overrideFixture: a~b and b~c at 0.97, a~c at 0.94 (all one cluster
// without overrides); d and e far from everything; f and g two "Acme"s.
func overrideFixture() []Entity {
	var s space
	va := s.axis()
	vb := s.near(va, 0.97)
	return []Entity{
		ent("a", "Northwind", "", va),
		ent("b", "Nordwind Logistics", "", vb),
		ent("c", "North Wind Traders", "", s.near(vb, 0.97)),
		ent("d", "Zephyr", "Organization", s.axis()),
		ent("e", "Boreas", "Person", s.axis()),
		ent("f", "Acme", "Organization", s.axis()),
		ent("g", "ACME", "", s.axis()),
	}
}

func TestResolve_Overrides(t *testing.T) {
	base := mustResolve(t, overrideFixture(), Config{})
	if !together(base, "a", "c") || together(base, "d", "e") || !together(base, "f", "g") {
		t.Fatalf("fixture without overrides is not what the tests assume: %+v", base.Clusters)
	}
	tests := []struct {
		name     string
		ov       Overrides
		together [][2]string
		apart    [][2]string
		check    func(t *testing.T, res Result)
	}{
		{
			name:     "must-link joins far entities of incompatible types",
			ov:       Overrides{MustLink: []NamePair{{A: "d", B: "Boreas"}}},
			together: [][2]string{{"d", "e"}},
			check: func(t *testing.T, res Result) {
				m := mergeOf(res, "d", "e")
				if m == nil || m.Rule != RuleMustLink || !reflect.DeepEqual(m.Signals, []Signal{SignalMustLink}) {
					t.Errorf("merge log = %+v, want a must_link entry", m)
				}
			},
		},
		{
			name:  "cannot-link holds through others",
			ov:    Overrides{CannotLink: []NamePair{{A: "a", B: "c"}}},
			apart: [][2]string{{"a", "c"}},
			check: func(t *testing.T, res Result) {
				if !together(res, "a", "b") && !together(res, "b", "c") {
					t.Errorf("b joined neither side")
				}
				if len(res.Splits) != 1 || res.Splits[0].Reason != SplitCannotLink || res.Splits[0].Weakest.A != "a" || res.Splits[0].Weakest.B != "c" {
					t.Errorf("splits = %+v, want one cannot_link split naming a-c", res.Splits)
				}
			},
		},
		{
			name:  "cannot-link by name",
			ov:    Overrides{CannotLink: []NamePair{{A: "acme", B: "g"}}},
			apart: [][2]string{{"f", "g"}},
			check: func(t *testing.T, res Result) {
				// "acme" names f and g, "g" names g: f-g is the pair.
				if len(res.UnmatchedOverrides) != 0 {
					t.Errorf("issues = %+v", res.UnmatchedOverrides)
				}
				if uncertainPair(res, "f", "g") != nil {
					t.Errorf("a cannot-link pair is offered for review")
				}
			},
		},
		{
			name:  "keep apart",
			ov:    Overrides{KeepApart: []Ref{{Name: "ACME"}}},
			apart: [][2]string{{"f", "g"}},
			check: func(t *testing.T, res Result) {
				cf, cg := clusterOf(res, "f"), clusterOf(res, "g")
				if len(cf.Members) != 1 || len(cg.Members) != 1 {
					t.Errorf("keep-apart entities not alone: %v %v", cf.Members, cg.Members)
				}
				if cf.ID == cg.ID {
					t.Errorf("two clusters share id %s", cf.ID)
				}
			},
		},
		{
			name:     "rename",
			ov:       Overrides{Rename: []Rename{{Member: "b", Name: "  Northwind   Group "}}},
			together: [][2]string{{"a", "c"}},
			check: func(t *testing.T, res Result) {
				c := clusterOf(res, "a")
				if c.Canonical != "Northwind Group" || c.ID != kg.ID("entity", "northwind group", "") {
					t.Errorf("renamed cluster = %q %s", c.Canonical, c.ID)
				}
			},
		},
		{
			name: "unmatched overrides are reported",
			ov: Overrides{
				MustLink:   []NamePair{{A: "Nowhere", B: "a"}},
				CannotLink: []NamePair{{A: "a", B: "Ghost"}, {A: "x1", B: "x2"}},
				KeepApart:  []Ref{{Name: "Phantom"}},
				Rename:     []Rename{{Member: "Nobody", Name: "Somebody"}, {Member: "a", Name: "  "}},
			},
			together: [][2]string{{"a", "c"}},
			check: func(t *testing.T, res Result) {
				want := []OverrideIssue{
					{Kind: OverrideKeepApart, Refs: []string{"Phantom"}, Reason: "matches no entity"},
					{Kind: OverrideCannotLink, Refs: []string{"a", "Ghost"}, Reason: `"Ghost" match no entity`},
					{Kind: OverrideCannotLink, Refs: []string{"x1", "x2"}, Reason: `"x1" and "x2" match no entity`},
					{Kind: OverrideMustLink, Refs: []string{"Nowhere", "a"}, Reason: `"Nowhere" match no entity`},
					{Kind: OverrideRename, Refs: []string{"Nobody", "Somebody"}, Reason: "matches no entity"},
					{Kind: OverrideRename, Refs: []string{"a", "  "}, Reason: "the new name is empty"},
				}
				if !reflect.DeepEqual(res.UnmatchedOverrides, want) {
					t.Errorf("issues =\n%+v\nwant\n%+v", res.UnmatchedOverrides, want)
				}
			},
		},
		{
			name:  "must-link that contradicts a cannot-link is refused",
			ov:    Overrides{CannotLink: []NamePair{{A: "d", B: "e"}}, MustLink: []NamePair{{A: "d", B: "f"}, {A: "f", B: "e"}}},
			apart: [][2]string{{"d", "e"}},
			check: func(t *testing.T, res Result) {
				if !together(res, "d", "f") {
					t.Errorf("the first must-link was not applied")
				}
				if len(res.UnmatchedOverrides) != 1 || res.UnmatchedOverrides[0].Kind != OverrideMustLink ||
					!strings.Contains(res.UnmatchedOverrides[0].Reason, "would join d and e") {
					t.Errorf("issues = %+v, want the second must-link refused", res.UnmatchedOverrides)
				}
			},
		},
		{
			name:  "must-link of a keep-apart entity is refused",
			ov:    Overrides{KeepApart: []Ref{{Name: "d"}}, MustLink: []NamePair{{A: "d", B: "e"}}},
			apart: [][2]string{{"d", "e"}},
			check: func(t *testing.T, res Result) {
				if len(res.UnmatchedOverrides) != 1 || !strings.Contains(res.UnmatchedOverrides[0].Reason, "must stay apart") {
					t.Errorf("issues = %+v", res.UnmatchedOverrides)
				}
			},
		},
		{
			name:     "conflicting renames: the first wins",
			ov:       Overrides{Rename: []Rename{{Member: "a", Name: "First"}, {Member: "c", Name: "Second"}}},
			together: [][2]string{{"a", "c"}},
			check: func(t *testing.T, res Result) {
				if c := clusterOf(res, "a"); c.Canonical != "First" {
					t.Errorf("canonical = %q, want First", c.Canonical)
				}
				if len(res.UnmatchedOverrides) != 1 || res.UnmatchedOverrides[0].Kind != OverrideRename ||
					!strings.Contains(res.UnmatchedOverrides[0].Reason, `renamed "First"`) {
					t.Errorf("issues = %+v, want the second rename reported", res.UnmatchedOverrides)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustResolve(t, overrideFixture(), Config{Overrides: tt.ov})
			for _, p := range tt.together {
				if !together(res, p[0], p[1]) {
					t.Errorf("%s and %s apart, want together", p[0], p[1])
				}
			}
			for _, p := range tt.apart {
				if together(res, p[0], p[1]) {
					t.Errorf("%s and %s together, want apart", p[0], p[1])
				}
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

// appleFixture: "Apple" the company and "apple" the fruit, typed alike by
// an extractor, which the same_name rule merges; "Apple Inc." near the
// company; "APPLE" of unknown type; "Malus domestica" far from all. A
// name embeds alike whatever its case: the vectors of the three are close.
func appleFixture() []Entity {
	var s space
	company := s.axis()
	return []Entity{
		ent("co", "Apple", "Organization", company),
		ent("inc", "Apple Inc.", "Organization", s.near(company, 0.97)),
		ent("fruit", "apple", "Organization", s.near(company, 0.95)),
		ent("caps", "APPLE", "", s.near(company, 0.95)),
		ent("malus", "Malus domestica", "Plant", s.axis()),
	}
}

// TestResolve_OverridesBySurfaceAndType: names equal after NormalizeName
// are kept apart, split off, merged and renamed one by one when the
// override names the surface as written and the type; a plain name still
// names all of them.
func TestResolve_OverridesBySurfaceAndType(t *testing.T) {
	base := mustResolve(t, appleFixture(), Config{})
	if !together(base, "co", "fruit") || !together(base, "co", "inc") || !together(base, "co", "caps") {
		t.Fatalf("fixture without overrides is not what the test assumes: %+v", base.Clusters)
	}
	company := Ref{Name: "Apple", Type: "Organization", Match: MatchSurface}
	tests := []struct {
		name            string
		ov              Overrides
		together, apart [][2]string
		issues          []OverrideIssue
	}{
		{
			name:     "cannot-link of two surfaces of one name and type",
			ov:       Overrides{CannotLink: []NamePair{{A: "Apple", AType: "Organization", B: "apple", BType: "Organization", Match: MatchSurface}}},
			together: [][2]string{{"co", "inc"}},
			apart:    [][2]string{{"co", "fruit"}},
		},
		{
			name:     "keep-apart of one surface",
			ov:       Overrides{KeepApart: []Ref{{Name: "apple", Match: MatchSurface}}},
			together: [][2]string{{"co", "inc"}, {"co", "caps"}},
			apart:    [][2]string{{"co", "fruit"}, {"inc", "fruit"}},
		},
		{
			name:     "keep-apart by name of the unknown type only",
			ov:       Overrides{KeepApart: []Ref{{Name: "apple", Type: "unknown"}}},
			together: [][2]string{{"co", "fruit"}},
			apart:    [][2]string{{"co", "caps"}},
		},
		{
			name: "must-link of a surface and another name",
			ov: Overrides{
				CannotLink: []NamePair{{A: "Apple", AType: "Organization", B: "apple", BType: "Organization", Match: MatchSurface}},
				MustLink:   []NamePair{{A: "apple", B: "Malus domestica", Match: MatchSurface}},
			},
			together: [][2]string{{"fruit", "malus"}, {"co", "inc"}},
			apart:    [][2]string{{"co", "fruit"}},
		},
		{
			name:   "must-link of a kept-apart surface is refused",
			ov:     Overrides{KeepApart: []Ref{{Name: "apple", Match: MatchSurface}}, MustLink: []NamePair{{A: "apple", B: "Malus domestica", Match: MatchSurface}}},
			apart:  [][2]string{{"co", "fruit"}, {"fruit", "malus"}},
			issues: []OverrideIssue{{Kind: OverrideMustLink, Refs: []string{`"apple" as written`, `"Malus domestica" as written`}, Reason: "entity fruit must stay apart"}},
		},
		{
			name: "a surface of another case or type matches nothing",
			ov: Overrides{
				KeepApart: []Ref{{Name: "aPPLE", Match: MatchSurface}, {Name: "Apple", Type: "Fruit", Match: MatchSurface}},
				Rename:    []Rename{{Member: "Apple", Type: "Organization", Match: "exact", Name: "Apple Computer"}},
			},
			together: [][2]string{{"co", "fruit"}},
			issues: []OverrideIssue{
				{Kind: OverrideKeepApart, Refs: []string{`"aPPLE" as written`}, Reason: "matches no entity"},
				{Kind: OverrideKeepApart, Refs: []string{`"Apple" [Fruit] as written`}, Reason: "matches no entity"},
				{Kind: OverrideRename, Refs: []string{`"Apple" [Organization]`, "Apple Computer"}, Reason: `unknown match "exact": want "surface" or none`},
			},
		},
		{
			name:     "the old cannot-link by name names every surface",
			ov:       Overrides{CannotLink: []NamePair{{A: "apple", B: "Apple Inc."}}},
			apart:    [][2]string{{"co", "inc"}, {"fruit", "inc"}, {"caps", "inc"}},
			together: [][2]string{{"co", "fruit"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustResolve(t, appleFixture(), Config{Overrides: tt.ov})
			for _, p := range tt.together {
				if !together(res, p[0], p[1]) {
					t.Errorf("%s and %s apart, want together", p[0], p[1])
				}
			}
			for _, p := range tt.apart {
				if together(res, p[0], p[1]) {
					t.Errorf("%s and %s together, want apart", p[0], p[1])
				}
			}
			if !reflect.DeepEqual(res.UnmatchedOverrides, tt.issues) {
				t.Errorf("issues =\n%+v\nwant\n%+v", res.UnmatchedOverrides, tt.issues)
			}
		})
	}
	renamed := mustResolve(t, appleFixture(), Config{Overrides: Overrides{
		KeepApart: []Ref{{Name: "apple", Match: MatchSurface}},
		Rename:    []Rename{{Member: company.Name, Type: company.Type, Match: company.Match, Name: "Apple Computer"}},
	}})
	if c, f := clusterOf(renamed, "co"), clusterOf(renamed, "fruit"); c.Canonical != "Apple Computer" || f.Canonical != "apple" {
		t.Errorf("after a rename of the company's surface: %q and %q, want Apple Computer and apple", c.Canonical, f.Canonical)
	}
}

func TestRef_MatchesAndKey(t *testing.T) {
	tests := []struct {
		name      string
		ref       Ref
		surface   string
		typ       string
		want      bool
		sameKeyAs Ref // a reference of the same Key, or zero
	}{
		{"by name, another case", Ref{Name: "Apple"}, "APPLE.", "Fruit", true, Ref{Name: "apple"}},
		{"by name, another spacing", Ref{Name: "Apple Inc"}, "AppleInc", "", true, Ref{Name: "apple  inc."}},
		{"by name of a type", Ref{Name: "apple", Type: "Fruit"}, "Apple", "Organization", false, Ref{Name: "APPLE", Type: " fruit"}},
		{"by surface, another case", Ref{Name: "Apple", Match: MatchSurface}, "apple", "", false, Ref{Name: " Apple ", Match: MatchSurface}},
		{"by surface, white space folded", Ref{Name: "Porto  plant", Match: MatchSurface}, "Porto plant", "Plant", true, Ref{Name: "Porto plant", Match: MatchSurface}},
		{"by surface, punctuation kept", Ref{Name: "Apple Inc.", Match: MatchSurface}, "Apple Inc", "", false, Ref{}},
		{"unknown type", Ref{Name: "apple", Type: "unknown", Match: MatchSurface}, "apple", "", true, Ref{Name: "apple", Type: "Unknown", Match: MatchSurface}},
		{"any type", Ref{Name: "apple", Match: MatchSurface}, "apple", "Fruit", true, Ref{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ref.Matches(tt.surface, tt.typ); got != tt.want {
				t.Errorf("%s matches %q [%s] = %v, want %v", tt.ref, tt.surface, tt.typ, got, tt.want)
			}
			if tt.sameKeyAs != (Ref{}) && tt.ref.Key() != tt.sameKeyAs.Key() {
				t.Errorf("%s and %s have different keys", tt.ref, tt.sameKeyAs)
			}
		})
	}
	distinct := []Ref{{Name: "apple"}, {Name: "apple", Match: MatchSurface}, {Name: "Apple", Match: MatchSurface}, {Name: "apple", Type: "Fruit"}, {Name: "apple", Type: "unknown"}}
	keys := map[string]Ref{}
	for _, r := range distinct {
		if o, ok := keys[r.Key()]; ok {
			t.Errorf("%s and %s share the key %q", r, o, r.Key())
		}
		keys[r.Key()] = r
	}
}
