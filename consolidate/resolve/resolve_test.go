package resolve

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
)

// TestResolve_Pairs decides one pair at a time: keys, bands and guards.
func TestResolve_Pairs(t *testing.T) {
	tests := []struct {
		name         string
		a, b         string // names
		ta, tb       string // types
		cos          float64
		noVectors    bool
		merge        bool
		rule         Rule     // of the merge or the uncertain pair
		signals      []Signal // of the merge or the uncertain pair
		uncertain    bool
		wantMarginLE float64 // for uncertain pairs, a bound on the margin
	}{
		// Blocking keys lift the uncertain band.
		{name: "suffix key", a: "Akzo Nobel N.V.", b: "AKZO NOBEL", cos: 0.85, merge: true, rule: RuleKeyCosine, signals: []Signal{SignalSuffix, SignalPlural, SignalCosine}},
		{name: "accents", a: "Société Générale", b: "Societe Generale", cos: 0.85, merge: true, rule: RuleSameName, signals: []Signal{SignalName, SignalSuffix, SignalPlural, SignalCosine}},
		{name: "acronym", a: "GE", b: "General Electric", cos: 0.85, merge: true, rule: RuleKeyCosine, signals: []Signal{SignalAcronym, SignalCosine}},
		{name: "the one expansion of an acronym", a: "IBM", b: "International Business Machines", cos: 0.85, merge: true, rule: RuleSoleAcronym, signals: []Signal{SignalAcronym, SignalCosine}},
		{name: "the one expansion of an acronym, low cosine", a: "WCW", b: "World Championship Wrestling", cos: 0.3, merge: true, rule: RuleSoleAcronym, signals: []Signal{SignalAcronym}},
		{name: "plural", a: "Solar Panels", b: "solar panel", cos: 0.83, merge: true, rule: RuleKeyCosine, signals: []Signal{SignalPlural, SignalCosine}},
		{name: "same name, low cosine", a: "Acme", b: "ACME", cos: 0.5, merge: true, rule: RuleSameName},
		{name: "same name, no vectors", a: "Acme-Werke", b: "acme werke", noVectors: true, merge: true, rule: RuleSameName},
		// Bands without keys.
		{name: "high band", a: "Northwind Traders", b: "Northwind Trading Company", cos: 0.95, merge: true, rule: RuleCosineHigh, signals: []Signal{SignalCosine}},
		{name: "uncertain band", a: "Northwind Traders", b: "Northwind Trading Company", cos: 0.85, uncertain: true, rule: RuleUncertainCosine, wantMarginLE: 0.0701},
		{name: "low band", a: "Northwind Traders", b: "Southwind Traders", cos: 0.6},
		{name: "key without cosine", a: "GE", b: "General Electric", cos: 0.5, uncertain: true, rule: RuleKeyOnly, signals: []Signal{SignalAcronym}, wantMarginLE: 0.3001},
		{name: "suffix key, no vectors", a: "Acme Inc", b: "ACME", noVectors: true, uncertain: true, rule: RuleKeyOnly, wantMarginLE: 1},
		// Number guards: never merge automatically, whatever the cosine.
		{name: "station numbers", a: "Station 1", b: "Station 2", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "model numbers", a: "Model X50", b: "Model X500", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "years", a: "2023 report", b: "2024 report", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "years with a key", a: "2023 Reports", b: "2024 report", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "months", a: "Sales March", b: "Sales April", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "roman numerals", a: "Louis XIV", b: "Louis XV", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "number only on one side", a: "Station", b: "Station 9", cos: 0.99, uncertain: true, rule: RuleGuardNumber, wantMarginLE: 0.0701},
		{name: "numbers far apart", a: "Station 1", b: "Station 2", cos: 0.3},
		{name: "same numbers merge", a: "Station 1 North", b: "North Station-1", cos: 0.95, merge: true, rule: RuleCosineHigh},
		{name: "a name inside a longer one", a: "Station 1", b: "Station-1 North", cos: 0.95, uncertain: true, rule: RuleGuardSubset, wantMarginLE: 0.0301},
		// Short names need a key or a higher cosine.
		{name: "short, high cosine", a: "AXA", b: "AXE", cos: 0.95, uncertain: true, rule: RuleGuardShort, wantMarginLE: 0.0201},
		{name: "short, uncertain cosine", a: "AXA", b: "AXE", cos: 0.85, uncertain: true, rule: RuleGuardShort, wantMarginLE: 0.1201},
		{name: "short, very high cosine", a: "AXA", b: "AXE", cos: 0.98, merge: true, rule: RuleShortCosine},
		{name: "short, with a key", a: "IBM Corp", b: "I.B.M.", cos: 0.93, merge: true, rule: RuleCosineHigh, signals: []Signal{SignalSuffix, SignalPlural, SignalCosine}},
		{name: "low entropy", a: "Anna", b: "Anne", cos: 0.95, uncertain: true, rule: RuleGuardShort, wantMarginLE: 0.0201},
		// Types.
		{name: "incompatible types", a: "Jordan", b: "Jordan", ta: "Person", tb: "Country", cos: 1},
		{name: "unknown type", a: "Jordan", b: "Jordan", ta: "Person", tb: "", cos: 1, merge: true, rule: RuleSameName},
		{name: "type case folded", a: "Jordan", b: "Jordan", ta: "Person", tb: "PERSON", cos: 1, merge: true, rule: RuleSameName},
		{name: "unknown spelled out", a: "Jordan", b: "Jordan", ta: "unknown", tb: "Country", cos: 1, merge: true, rule: RuleSameName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s space
			va := s.axis()
			vb := s.near(va, tt.cos)
			if tt.noVectors {
				va, vb = nil, nil
			}
			ents := []Entity{ent("a", tt.a, tt.ta, va), ent("b", tt.b, tt.tb, vb)}
			res := mustResolve(t, ents, Config{Rules: RulesCosine})
			if got := together(res, "a", "b"); got != tt.merge {
				t.Fatalf("merged = %v, want %v (uncertain %+v)", got, tt.merge, res.Uncertain)
			}
			var p *Pair
			if tt.merge {
				p = mergeOf(res, "a", "b")
				if p == nil {
					t.Fatalf("no merge-log entry for a-b: %+v", res.Clusters)
				}
			}
			u := uncertainPair(res, "a", "b")
			if (u != nil) != tt.uncertain {
				t.Fatalf("uncertain = %+v, want uncertain %v", u, tt.uncertain)
			}
			if u != nil {
				p = u
				if u.Margin > tt.wantMarginLE {
					t.Errorf("margin = %v, want ≤ %v", u.Margin, tt.wantMarginLE)
				}
			}
			if p == nil {
				if len(res.Uncertain) != 0 {
					t.Errorf("apart pair recorded as uncertain: %+v", res.Uncertain)
				}
				return
			}
			if p.Rule != tt.rule {
				t.Errorf("rule = %q, want %q", p.Rule, tt.rule)
			}
			// The keys and the cosine come first; the second signals follow.
			if tt.signals != nil && !reflect.DeepEqual(p.Signals[:min(len(tt.signals), len(p.Signals))], tt.signals) {
				t.Errorf("signals = %v, want %v", p.Signals, tt.signals)
			}
			if !tt.noVectors && math.Abs(p.Cosine-tt.cos) > 1e-4 {
				t.Errorf("cosine = %v, want %v", p.Cosine, tt.cos)
			}
			if tt.noVectors && p.Band != BandNone {
				t.Errorf("band = %q without vectors, want none", p.Band)
			}
		})
	}
}

func TestResolve_CompatibleTypes(t *testing.T) {
	var s space
	va := s.axis()
	ents := []Entity{ent("a", "Acme Corp", "Company", va), ent("b", "ACME", "Organization", s.near(va, 0.85))}
	if res := mustResolve(t, ents, Config{}); together(res, "a", "b") {
		t.Errorf("Company and Organization merged without Compatible")
	}
	res := mustResolve(t, ents, Config{Compatible: map[string][]string{"organization": {"company"}}})
	if !together(res, "a", "b") {
		t.Errorf("Company and Organization not merged with Compatible")
	}
	if got := clusterOf(res, "a").Type; got != "Company" {
		// a and b have one mention each and no evidence: "ACME" < "Acme Corp".
		if got != "Organization" {
			t.Errorf("type = %q, want one of the members' types", got)
		}
	}
}

// TestResolve_ChainingTrap: A~B and B~C above High, A and C far apart.
func TestResolve_ChainingTrap(t *testing.T) {
	var s space
	e0, e1 := s.axis(), s.axis()
	theta := math.Acos(0.93)
	ents := []Entity{
		ent("a", "Northwind", "", plane(e0, e1, 0)),
		ent("b", "Nordwind Logistics", "", plane(e0, e1, theta)),
		ent("c", "Southwind", "", plane(e0, e1, 2*theta)), // cos(a, c) = 2·0.93²−1 ≈ 0.73
		ent("d", "Unrelated", "", s.axis()),
	}
	res := mustResolve(t, ents, Config{})
	if together(res, "a", "c") {
		t.Fatalf("a and c are in one cluster: %+v", clusterOf(res, "a"))
	}
	if !together(res, "a", "b") && !together(res, "b", "c") {
		t.Errorf("b joined neither a nor c")
	}
	if len(res.Splits) != 1 {
		t.Fatalf("splits = %+v, want 1", res.Splits)
	}
	sp := res.Splits[0]
	if sp.Reason != SplitMinSim || sp.Size != 3 || sp.Weakest.A != "a" || sp.Weakest.B != "c" {
		t.Errorf("split = %+v, want min_similarity of 3 with weakest a-c", sp)
	}
	if math.Abs(sp.Weakest.Cosine-(2*0.93*0.93-1)) > 1e-4 {
		t.Errorf("weakest similarity = %v, want %v", sp.Weakest.Cosine, 2*0.93*0.93-1)
	}
	if len(sp.Cut) != 1 || len(sp.Clusters) != 2 {
		t.Errorf("split cut %d links into %d clusters, want 1 into 2: %+v", len(sp.Cut), len(sp.Clusters), sp)
	}
	// Ties go to the smallest members: a and b stay together.
	if !together(res, "a", "b") || sp.Cut[0].A != "b" || sp.Cut[0].B != "c" {
		t.Errorf("want {a b} {c} with b-c cut, got cut %+v", sp.Cut)
	}
}

// TestResolve_ChainingLongLine: a line of ten names, each at 0.95 to the
// next; the ends are far apart, so no cluster spans the line.
func TestResolve_ChainingLongLine(t *testing.T) {
	var s space
	e0, e1 := s.axis(), s.axis()
	theta := math.Acos(0.95)
	var ents []Entity
	for k, w := range strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliett") {
		ents = append(ents, ent(string(rune('a'+k)), "Point "+w, "", plane(e0, e1, float64(k)*theta)))
	}
	res := mustResolve(t, ents, Config{})
	for _, c := range res.Clusters {
		lowest := 1.0
		for x, a := range c.Members {
			for _, b := range c.Members[x+1:] {
				ia, ib := int(a[0]-'a'), int(b[0]-'a')
				lowest = math.Min(lowest, math.Cos(float64(ib-ia)*theta))
			}
		}
		if lowest < DefaultMinClusterSim {
			t.Errorf("cluster %v holds two members at cosine %.3f < %v", c.Members, lowest, DefaultMinClusterSim)
		}
	}
	if len(res.Splits) != 1 || res.Splits[0].Size != 10 {
		t.Errorf("splits = %+v, want one of 10", res.Splits)
	}
}

func TestResolve_SplitSize(t *testing.T) {
	var s space
	centre := s.axis()
	var ents []Entity
	for k := range 7 {
		ents = append(ents, ent(string(rune('a'+k)), "Member "+strings.Repeat("y", k+1)+"z", "", s.near(centre, 0.99)))
	}
	res := mustResolve(t, ents, Config{MaxClusterSize: 3})
	sizes := 0
	for _, c := range res.Clusters {
		if len(c.Members) > 3 {
			t.Errorf("cluster of %d > MaxClusterSize 3: %v", len(c.Members), c.Members)
		}
		sizes += len(c.Members)
	}
	if len(res.Clusters) != 3 {
		t.Errorf("clusters = %d, want 3 (3+3+1)", len(res.Clusters))
	}
	if len(res.Splits) != 1 || res.Splits[0].Reason != SplitSize || res.Splits[0].Size != 7 {
		t.Errorf("splits = %+v, want one size split of 7", res.Splits)
	}
	if len(res.Splits[0].Cut) == 0 {
		t.Errorf("size split cut no link")
	}
}

func TestResolve_Canonical(t *testing.T) {
	tests := []struct {
		name string
		ents []Entity
		want string
	}{
		{name: "most mentions", want: "IBM", ents: []Entity{
			{Key: "1", Name: "International Business Machines", Mentions: 3, Evidence: 9},
			{Key: "2", Name: "IBM", Mentions: 5},
		}},
		{name: "then evidence", want: "I.B.M.", ents: []Entity{
			{Key: "1", Name: "IBM", Mentions: 5, Evidence: 1},
			{Key: "2", Name: "I.B.M.", Mentions: 5, Evidence: 2},
		}},
		{name: "then description", want: "ibm", ents: []Entity{
			{Key: "1", Name: "IBM", Mentions: 5, Evidence: 2, Description: "a firm"},
			{Key: "2", Name: "ibm", Mentions: 5, Evidence: 2, Description: "a computer firm"},
		}},
		{name: "then name", want: "I.B.M.", ents: []Entity{
			{Key: "1", Name: "IBM", Mentions: 5},
			{Key: "2", Name: "I.B.M.", Mentions: 5},
		}},
		{name: "white space collapsed", want: "Big Blue", ents: []Entity{
			{Key: "1", Name: "  Big   Blue ", Mentions: 2},
			{Key: "2", Name: "big blue", Mentions: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustResolve(t, tt.ents, Config{Overrides: Overrides{MustLink: []NamePair{{A: "1", B: "2"}}}})
			if len(res.Clusters) != 1 {
				t.Fatalf("clusters = %+v, want 1", res.Clusters)
			}
			c := res.Clusters[0]
			if c.Canonical != tt.want {
				t.Errorf("canonical = %q, want %q", c.Canonical, tt.want)
			}
			if want := kg.ID("entity", kg.NormalizeName(tt.want), ""); c.ID != want {
				t.Errorf("id = %s, want %s", c.ID, want)
			}
		})
	}
}

func TestResolve_ClusterFields(t *testing.T) {
	var s space
	va, vc := s.axis(), s.axis()
	ents := []Entity{
		{Key: "k1", Name: "Acme Inc.", Type: "Organization", Mentions: 3, Vector: va},
		{Key: "k2", Name: "ACME", Type: "", Mentions: 9, Vector: s.near(va, 0.85)},
		{Key: "k3", Name: "Acme Incorporated", Type: "Organization", Mentions: 1, Vector: s.near(va, 0.97)},
		{Key: "k4", Name: "Zenith", Type: "Organization", Mentions: 1, Vector: vc},
	}
	res := mustResolve(t, ents, Config{})
	c := clusterOf(res, "k1")
	if !reflect.DeepEqual(c.Members, []string{"k1", "k2", "k3"}) {
		t.Fatalf("members = %v, want k1 k2 k3", c.Members)
	}
	if c.Canonical != "ACME" || c.Type != "Organization" {
		t.Errorf("canonical %q type %q, want ACME (most mentions) and Organization (first typed member)", c.Canonical, c.Type)
	}
	if c.ID != kg.ID("entity", "acme", "organization") {
		t.Errorf("id = %s, want kg.ID(entity, acme, organization)", c.ID)
	}
	if c.Band != BandUncertain {
		t.Errorf("band = %q, want uncertain (the weakest merge, at 0.85)", c.Band)
	}
	if len(c.Merges) < 2 {
		t.Errorf("merges = %+v, want at least the two that joined k2 and k3", c.Merges)
	}
	for _, m := range c.Merges {
		if m.A >= m.B || m.Rule == "" || m.AName == "" {
			t.Errorf("bad merge entry %+v", m)
		}
	}
	if z := clusterOf(res, "k4"); z.Band != BandNone || len(z.Merges) != 0 || z.Canonical != "Zenith" {
		t.Errorf("singleton = %+v", z)
	}
	if !slices.IsSortedFunc(res.Clusters, func(a, b Cluster) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("clusters not sorted by id")
	}
}

func TestResolve_UncertainOrder(t *testing.T) {
	var s space
	var ents []Entity
	for k, c := range []float64{0.82, 0.91, 0.86, 0.70} {
		base := s.axis()
		ents = append(ents,
			ent(string(rune('a'+2*k)), "Left "+strings.Repeat("q", k+1), "", base),
			ent(string(rune('b'+2*k)), "Right "+strings.Repeat("z", k+1), "", s.near(base, c)))
	}
	res := mustResolve(t, ents, Config{Rules: RulesCosine})
	var got []float64
	for _, p := range res.Uncertain {
		got = append(got, math.Round(p.Cosine*100)/100)
	}
	if want := []float64{0.91, 0.86, 0.82}; !reflect.DeepEqual(got, want) {
		t.Errorf("uncertain cosines in order %v, want %v (closest to High first)", got, want)
	}
	if res.Stats.Uncertain != 3 {
		t.Errorf("stats.Uncertain = %d, want 3", res.Stats.Uncertain)
	}
}

// fixture mixes every case the tests above cover, for determinism checks.
func fixture() []Entity {
	var s space
	e0, e1 := s.axis(), s.axis()
	theta := math.Acos(0.93)
	ibm := s.axis()
	station := s.axis()
	acme := s.axis()
	return []Entity{
		ent("n1", "Northwind", "", plane(e0, e1, 0)),
		ent("n2", "Nordwind Logistics", "", plane(e0, e1, theta)),
		ent("n3", "Southwind", "", plane(e0, e1, 2*theta)),
		{Key: "i1", Name: "IBM", Type: "Organization", Mentions: 7, Vector: ibm},
		{Key: "i2", Name: "International Business Machines", Type: "Organization", Mentions: 7, Evidence: 2, Vector: s.near(ibm, 0.86)},
		{Key: "i3", Name: "I.B.M. Corp", Type: "", Mentions: 1, Vector: s.near(ibm, 0.95)},
		ent("s1", "Station 1", "Place", station),
		ent("s2", "Station 2", "Place", s.near(station, 0.99)),
		ent("s3", "station-1", "Place", s.near(station, 0.97)),
		{Key: "a1", Name: "Acme Inc.", Type: "Organization", Mentions: 2, Description: "maker of anvils", Vector: acme},
		{Key: "a2", Name: "ACME", Type: "Organization", Mentions: 2, Description: "anvils", Vector: s.near(acme, 0.9)},
		{Key: "a3", Name: "Acme", Type: "Person", Mentions: 2, Vector: s.near(acme, 0.99)},
		ent("x1", "Société Générale", "Organization", nil),
		ent("x2", "Societe Generale", "", nil),
		ent("r1", "2023 report", "Document", s.axis()),
		ent("r2", "2024 report", "Document", s.axis()),
	}
}

func TestResolve_DeterministicUnderShuffle(t *testing.T) {
	for _, cfg := range []struct {
		name string
		cfg  Config
	}{
		{"exact", Config{}},
		{"ivf", Config{ExactLimit: 2, Index: IndexIVF}},
		{"hnsw", Config{ExactLimit: 2, Index: IndexHNSW}},
		{"overrides", Config{Overrides: Overrides{CannotLink: []NamePair{{A: "i1", B: "i3"}}, Rename: []Rename{{Member: "Acme", Name: "ACME Corporation"}}}}},
	} {
		t.Run(cfg.name, func(t *testing.T) {
			ents := fixture()
			want := mustResolve(t, ents, cfg.cfg)
			rng := rand.New(rand.NewPCG(1, 2))
			for round := range 8 {
				shuffled := slices.Clone(ents)
				rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				got := mustResolve(t, shuffled, cfg.cfg)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d: result differs after shuffling\n got %+v\nwant %+v", round, got, want)
				}
			}
			if !reflect.DeepEqual(ents, fixture()) {
				t.Errorf("Resolve modified its input")
			}
		})
	}
}

// TestResolve_Fixture pins what the mixed fixture resolves to.
func TestResolve_Fixture(t *testing.T) {
	res := mustResolve(t, fixture(), Config{})
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"n1", "n3", false},
		{"i1", "i2", true},
		{"i1", "i3", true},
		{"s1", "s3", true},
		{"s1", "s2", false},
		{"a1", "a2", true},
		{"a1", "a3", false}, // Person vs Organization
		{"x1", "x2", true},  // no vectors, same name
		{"r1", "r2", false},
	} {
		if got := together(res, tt.a, tt.b); got != tt.want {
			t.Errorf("together(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if c := clusterOf(res, "a1"); c.Canonical != "Acme Inc." {
		t.Errorf("canonical of acme = %q, want Acme Inc. (longer description)", c.Canonical)
	}
	if c := clusterOf(res, "i1"); c.Canonical != "International Business Machines" {
		t.Errorf("canonical of ibm = %q, want the expansion (more evidence)", c.Canonical)
	}
}

// TestResolve_IndexedMatchesExact runs each index on data small enough to
// compare with the exact path.
func TestResolve_IndexedMatchesExact(t *testing.T) {
	ents, _ := synthetic(3000, 96, 3)
	exact := mustResolve(t, ents, Config{})
	if exact.Stats.ExactGroups == 0 || exact.Stats.IndexedGroups != 0 {
		t.Fatalf("exact path not taken: %+v", exact.Stats)
	}
	for _, index := range []IndexKind{IndexIVF, IndexHNSW} {
		t.Run(string(index), func(t *testing.T) {
			indexed := mustResolve(t, ents, Config{ExactLimit: 100, Index: index})
			if indexed.Stats.IndexedGroups == 0 {
				t.Fatalf("index not used: %+v", indexed.Stats)
			}
			agree, total := 0, 0
			for _, c := range exact.Clusters {
				for _, m := range c.Members[1:] {
					total++
					if together(indexed, c.Members[0], m) {
						agree++
					}
				}
			}
			if total == 0 || float64(agree)/float64(total) < 0.98 {
				t.Errorf("%s kept %d of %d exact merges, want ≥ 98%%", index, agree, total)
			}
		})
	}
}

// TestNearestCells checks the partial selection of the IVF probes.
func TestNearestCells(t *testing.T) {
	cent := [][]float32{{1, 0}, {0, 1}, {0.6, 0.8}, {0.8, 0.6}, {-1, 0}}
	best := make([]neighbour, 3)
	nearestCells(best, []float32{1, 0}, cent)
	var got []int32
	for _, b := range best {
		got = append(got, b.j)
	}
	if want := []int32{0, 3, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("nearest cells = %v, want %v", got, want)
	}
	// Ties go to the lower cell.
	nearestCells(best[:1], []float32{0.6, 0.8}, [][]float32{{1, 0}, {0.6, 0.8}, {0.6, 0.8}})
	if best[0].j != 1 {
		t.Errorf("tie went to cell %d, want 1", best[0].j)
	}
}

func TestResolve_Errors(t *testing.T) {
	v := []float32{1, 0}
	tests := []struct {
		name string
		ents []Entity
		cfg  Config
		want string
	}{
		{name: "empty key", ents: []Entity{{Name: "x", Vector: v}}, want: "empty key"},
		{name: "repeated key", ents: []Entity{{Key: "k", Name: "x"}, {Key: "k", Name: "y"}}, want: "key repeated"},
		{name: "dimensions", ents: []Entity{{Key: "a", Vector: v}, {Key: "b", Vector: []float32{1, 0, 0}}}, want: "3 dimensions, others 2"},
		{name: "zero vector", ents: []Entity{{Key: "a", Vector: []float32{0, 0}}}, want: "zero or not finite"},
		{name: "nan vector", ents: []Entity{{Key: "a", Vector: []float32{float32(math.NaN()), 1}}}, want: "zero or not finite"},
		{name: "bands", cfg: Config{Low: 0.95, High: 0.9}, want: "low = 0.95: must not exceed high"},
		{name: "all problems at once", cfg: Config{Low: 2, K: -1}, want: "k = -1"},
		{name: "index", cfg: Config{Index: "faiss"}, want: `index = faiss: must be "ivf" or "hnsw"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(context.Background(), tt.ents, tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestResolve_Cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Resolve(ctx, fixture(), Config{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestResolve_Empty(t *testing.T) {
	res, err := Resolve(context.Background(), nil, Config{})
	if err != nil || len(res.Clusters) != 0 {
		t.Errorf("Resolve(nil) = %+v, %v", res, err)
	}
}

func TestConfig_Defaults(t *testing.T) {
	c := Config{}.withDefaults()
	if c.High != DefaultHigh || c.Low != DefaultLow || c.K != DefaultK || c.ExactLimit != DefaultExactLimit || c.HNSW.M != DefaultHNSWM || c.Workers < 1 {
		t.Errorf("defaults not applied: %+v", c)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config invalid: %v", err)
	}
}

// TestResolve_TypesThroughUnknown: an entity of unknown type is
// compatible with a Person and an Organization, which must not end in one
// cluster through it.
func TestResolve_TypesThroughUnknown(t *testing.T) {
	var s space
	c := s.axis()
	ents := []Entity{
		{Key: "o", Name: "Jordan", Type: "Organization", Mentions: 1, Vector: s.near(c, 0.99)},
		{Key: "p", Name: "Jordan", Type: "Person", Mentions: 1, Vector: s.near(c, 0.98)},
		{Key: "u", Name: "Jordan", Type: "", Mentions: 1, Vector: s.near(c, 0.99)},
	}
	res := mustResolve(t, ents, Config{})
	if together(res, "o", "p") {
		t.Fatalf("Person and Organization in one cluster: %+v", clusterOf(res, "o"))
	}
	if !together(res, "u", "o") && !together(res, "u", "p") {
		t.Errorf("the untyped entity joined neither")
	}
	if len(res.Splits) != 1 || res.Splits[0].Reason != SplitTypes || res.Splits[0].Weakest.A != "o" || res.Splits[0].Weakest.B != "p" {
		t.Errorf("splits = %+v, want one incompatible_types split naming o-p", res.Splits)
	}
}

// TestResolve_LargeNameBlock: more equal names than MaxBlockSize are
// linked as a star, still by type.
func TestResolve_LargeNameBlock(t *testing.T) {
	types := []string{"Organization", "Person", "Organization", "Organization", "Person", "Organization"}
	var ents []Entity
	for k, typ := range types {
		ents = append(ents, Entity{Key: string(rune('a' + k)), Name: "Acme", Type: typ, Mentions: 1})
	}
	res := mustResolve(t, ents, Config{MaxBlockSize: 2})
	if res.Stats.KeyPairs >= 6*5/2 {
		t.Errorf("key pairs = %d, want fewer than all pairs", res.Stats.KeyPairs)
	}
	if !reflect.DeepEqual(clusterOf(res, "a").Members, []string{"a", "c", "d", "f"}) ||
		!reflect.DeepEqual(clusterOf(res, "b").Members, []string{"b", "e"}) {
		t.Errorf("clusters = %+v, want the Organizations and the Persons", res.Clusters)
	}
	// Suffix, plural and acronym blocks over the limit are ignored.
	ents = []Entity{
		{Key: "1", Name: "Acme Inc"}, {Key: "2", Name: "Acme Ltd"}, {Key: "3", Name: "Acme GmbH"},
	}
	res = mustResolve(t, ents, Config{MaxBlockSize: 2})
	if res.Stats.KeyPairs != 0 || len(res.Uncertain) != 0 {
		t.Errorf("a suffix block over the limit gave pairs: %+v", res.Stats)
	}
}

// The uncertain pairs of one list of signals share one slice, clipped, so
// a caller's append cannot change another pair's list.
func TestResolve_UncertainPairsShareTheirSignals(t *testing.T) {
	var s space
	var ents []Entity
	for k, c := range []float64{0.82, 0.91, 0.86} {
		base := s.axis()
		ents = append(ents,
			ent(string(rune('a'+2*k)), "Left "+strings.Repeat("q", k+1), "", base),
			ent(string(rune('b'+2*k)), "Right "+strings.Repeat("z", k+1), "", s.near(base, c)))
	}
	res := mustResolve(t, ents, Config{Rules: RulesCosine})
	if len(res.Uncertain) != 3 {
		t.Fatalf("%d uncertain pairs, want 3: %+v", len(res.Uncertain), res.Uncertain)
	}
	first := res.Uncertain[0].Signals
	if len(first) == 0 || cap(first) != len(first) {
		t.Fatalf("signals %v: len %d cap %d, want a clipped non-empty list", first, len(first), cap(first))
	}
	for _, p := range res.Uncertain[1:] {
		if !slices.Equal(p.Signals, first) || &p.Signals[0] != &first[0] {
			t.Errorf("pair %s–%s: signals %v not the shared list %v", p.A, p.B, p.Signals, first)
		}
	}
	grown := res.Uncertain[0].Signals
	grown = append(grown, SignalMustLink)
	if slices.Contains(res.Uncertain[1].Signals, SignalMustLink) || len(grown) != len(first)+1 {
		t.Errorf("an append to one pair's signals reached another's: %v", res.Uncertain[1].Signals)
	}
}

// An acronym of three letters or more merges with the one name of the
// build it abbreviates whatever their cosine (a sentence encoder does not
// see "WCW" in "World Championship Wrestling"); with two names of the
// build to abbreviate, or two letters, it needs a cosine of at least Low,
// under every rule set.
func TestResolve_AcronymWithOneExpansionMerges(t *testing.T) {
	for _, rules := range []RuleSet{RulesKind, RulesCosine, RulesThreshold} {
		var s space
		wcw, abc := s.axis(), s.axis()
		ents := []Entity{
			ent("wcw", "WCW", "Organization", wcw),
			ent("wcw-long", "World Championship Wrestling", "Organization", s.near(wcw, 0.3)),
			ent("wcw-long2", "world championship wrestling", "Organization", s.near(wcw, 0.3)),
			ent("abc", "ABC", "Organization", abc),
			ent("abc-us", "Alpha Beta Chemicals", "Organization", s.near(abc, 0.5)),
			ent("abc-au", "Alpha Beta Cables", "Organization", s.near(abc, 0.5)),
			ent("us", "US", "Location", s.axis()),
			ent("us-long", "United States", "Location", s.axis()),
		}
		res := mustResolve(t, ents, Config{Rules: rules})
		for _, b := range []string{"wcw-long", "wcw-long2"} {
			if !together(res, "wcw", b) {
				t.Errorf("%s: WCW and %s apart; want merged (uncertain %+v)", rules, b, res.Uncertain)
			} else if p := mergeOf(res, "wcw", b); p != nil && p.Rule != RuleSoleAcronym {
				t.Errorf("%s: WCW–%s merged by %q, want %q", rules, b, p.Rule, RuleSoleAcronym)
			}
		}
		for _, pr := range [][2]string{{"abc", "abc-us"}, {"abc", "abc-au"}, {"us", "us-long"}} {
			if together(res, pr[0], pr[1]) {
				t.Errorf("%s: %s and %s merged; want them apart (two expansions, or two letters, and a low cosine)", rules, pr[0], pr[1])
			}
			if u := uncertainPair(res, pr[0], pr[1]); u == nil || u.Rule != RuleKeyOnly {
				t.Errorf("%s: %s–%s uncertain %+v; want it shown for review by its key", rules, pr[0], pr[1], u)
			}
		}
	}
}

// Two dates each merged with the month they fall in ("11 April 2025" and
// "8 April 2025" hold every number of "April 2025") must not end in one
// cluster through it: the bounds split a group whose members' numbers
// differ, and say why.
func TestResolve_NamesWhoseNumbersDifferSplitWhenJoinedThroughAnother(t *testing.T) {
	var s space
	month := s.axis()
	ents := []Entity{
		ent("m", "April 2025", "Date", month),
		ent("d8", "8 April 2025", "Date", s.near(month, 0.95)),
		ent("d11", "11 April 2025", "Date", s.near(month, 0.95)),
	}
	res := mustResolve(t, ents, Config{})
	if together(res, "d8", "d11") {
		t.Fatalf("8 and 11 April 2025 in one cluster: %+v", res.Clusters)
	}
	if len(res.Splits) != 1 || res.Splits[0].Reason != SplitNumbers {
		t.Fatalf("splits %+v; want one, reason %q", res.Splits, SplitNumbers)
	}
	if c := res.Splits[0].Weakest.Cosine; math.IsInf(c, 0) || math.IsNaN(c) {
		t.Errorf("the split's weakest pair has cosine %v; want the pair's own", c)
	}
	checkPartition(t, ents, res)
}

// TestResolve_TyposAndTaggedTitles: under the default rules a typo in one
// word of two names with a cosine of at least Low merges (not for person
// names, where one letter makes another name, nor for words that differ
// by more than a typo); a long concept name and the same name with a
// short tag merge at a high cosine, while an organisation's extra word or
// a short name's stays guarded.
func TestResolve_TyposAndTaggedTitles(t *testing.T) {
	tests := []struct {
		a, b, typ string
		cos       float64
		merge     bool
		rule      Rule
	}{
		{"A foundation for representing and quering moving objects", "A foundation for representing and querying moving objects", "", 0.9, true, RuleTypo},
		{"Alcatel Bell Telephone", "Alkatel Bell Telephone", "Organization", 0.85, true, RuleTypo},
		{"Mario Rossi", "Maria Rossi", "Person", 0.9, false, RuleGuardWords},
		{"Argentina", "Argentine", "", 0.88, false, RuleUncertainCosine},
		{"South Korea", "South Korean", "", 0.88, false, RuleUncertainCosine},
		{"Sodium chloride solution", "Sodium chlorate solution", "", 0.9, false, RuleUncertainCosine},
		{"Workflow automation: applications, technology and research", "Workflow automation: applications, technology and research (Tutorial)", "", 0.95, true, RuleCosineHigh},
		{"Bank of New York", "Bank of New York Mellon", "Organization", 0.9, false, RuleGuardSubset},
		{"Supplier", "Supplier scores", "", 0.95, false, RuleGuardSubset},
		{"Online query processing", "Online query processing tutorial", "", 0.95, false, RuleGuardSubset},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			var s space
			va := s.axis()
			res := mustResolve(t, []Entity{ent("a", tt.a, tt.typ, va), ent("b", tt.b, tt.typ, s.near(va, tt.cos))}, Config{})
			if got := together(res, "a", "b"); got != tt.merge {
				t.Fatalf("merged = %v, want %v (uncertain %+v)", got, tt.merge, res.Uncertain)
			}
			p := mergeOf(res, "a", "b")
			if !tt.merge {
				p = uncertainPair(res, "a", "b")
			}
			if p == nil || p.Rule != tt.rule {
				t.Fatalf("pair %+v, want rule %s", p, tt.rule)
			}
		})
	}
}
