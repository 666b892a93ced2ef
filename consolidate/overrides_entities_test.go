package consolidate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

func TestCheckType(t *testing.T) {
	for _, ok := range []string{"Person", "Supplier", "bicycle_model", "BicycleModel2", "Q", strings.Repeat("A", 64)} {
		if err := CheckType(ok); err != nil {
			t.Errorf("CheckType(%q) = %v; want nil", ok, err)
		}
	}
	bad := map[string]string{
		"":                      "empty type",
		"Bicycle Model":         `' ' is not a letter`,
		"2Wheels":               "ASCII letter first",
		"_x":                    "ASCII letter first",
		"Person:Admin":          `':' is not a letter`,
		"Person`) DETACH":       "is not a letter",
		"Véhicule":              "ASCII letter first, then",
		"chunk":                 "label of kgforge's own nodes",
		"ENTITY":                "label of kgforge's own nodes",
		"unknown":               "the unknown type",
		strings.Repeat("A", 65): "longer than 64",
	}
	for typ, want := range bad {
		if err := CheckType(typ); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckType(%q) = %v; want an error saying %q", typ, err, want)
		}
	}
}

func TestOverrides_EntityDecisionsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "overrides.yaml")
	o := &Overrides{}
	o.Retype(SetType{Name: "Velora Cycles", Type: "Person", To: "Person", Decision: Decision{By: "ana"}})
	// A second decision on the same name and type replaces the first.
	o.Retype(SetType{Name: "velora cycles", Type: "person", To: "Company", Decision: Decision{By: "rui", Note: "a company"}})
	o.Retype(SetType{Name: "Aurora", To: "BicycleModel"})
	o.MarkNotEntity(Single{Name: "about", Decision: Decision{By: "ana"}})
	o.MarkNotEntity(Single{Name: "About", Decision: Decision{By: "rui"}})
	o.MarkNotEntity(Single{Name: "Model | Type | Plant"})
	o.Accept(Link{A: "Kestrel Alloys", AType: "Person", B: "Kestrel Alloys", BType: "Supplier", Type: "Supplier", Decision: Decision{By: "ana"}})
	if err := o.Save(path); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	for _, want := range []string{"set_type:", "to: Company", "not_entity:", "name: Model | Type | Plant", "type: Supplier"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the file lacks %q:\n%s", want, raw)
		}
	}
	got, err := LoadOverrides(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.SetType) != 2 || got.SetType[0].To != "Company" || got.SetType[0].By != "rui" || got.SetType[0].At == "" || got.SetType[1].To != "BicycleModel" {
		t.Errorf("set_type read back: %+v", got.SetType)
	}
	if len(got.NotEntity) != 2 || got.NotEntity[0].By != "rui" || got.NotEntity[1].Name != "Model | Type | Plant" {
		t.Errorf("not_entity read back: %+v", got.NotEntity)
	}
	if len(got.MustLink) != 1 || got.MustLink[0].Type != "Supplier" || got.MustLink[0].AType != "Person" {
		t.Errorf("must_link read back: %+v", got.MustLink)
	}
	if !got.SetType[0].Names(Surface{Name: "VELORA CYCLES", Type: "Person"}) || got.SetType[0].Names(Surface{Name: "Velora Cycles", Type: "Company"}) {
		t.Error("the set_type of Velora Cycles [Person] names the wrong surfaces")
	}
	if NameKey("Kestrel  alloys.") != NameKey("KESTREL ALLOYS") || NameKey("Kestrel") == NameKey("Kestrel Alloys") {
		t.Error("NameKey does not fold names as an entry by name does")
	}
}

func TestOverrides_BadEntityEntriesNameTheFileAndEntry(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"set_type without to":    {"set_type:\n  - {name: Velora Cycles}\n", "set_type[0]: to: empty type"},
		"set_type without name":  {"set_type:\n  - {to: Company}\n", "set_type[0]: empty name"},
		"set_type not safe":      {"set_type:\n  - {name: Aurora, to: Bicycle Model}\n", `set_type[0]: to: type "Bicycle Model": ' ' is not a letter`},
		"set_type own label":     {"set_type:\n  - {name: Aurora, to: Table}\n", "set_type[0]: to: type \"Table\": Table is a label of kgforge's own nodes"},
		"set_type bad match":     {"set_type:\n  - {name: Aurora, to: Product, match: fuzzy}\n", `set_type[0]: match "fuzzy"`},
		"set_type two types":     {"set_type:\n  - {name: Aurora, to: Product}\n  - {name: AURORA, to: Person}\n", `set_type[1]: AURORA is set to "Person" here and to "Product" by set_type[0]`},
		"set_type unknown field": {"set_type:\n  - {name: Aurora, type_to: Product}\n", "unknown field"},
		"not_entity empty":       {"not_entity:\n  - {name: \" \"}\n", "not_entity[0]: empty name"},
		"not_entity bad match":   {"not_entity:\n  - {name: about, match: exact}\n", `not_entity[0]: match "exact"`},
		"must_link bad type": {
			"must_link:\n  - {a: Kestrel Alloys, a_type: Person, b: Kestrel Alloys, b_type: Supplier, type: \"Sup plier\"}\n",
			`must_link[0]: type: type "Sup plier"`,
		},
		"cannot_link with type": {
			"cannot_link:\n  - {a: Kestrel Alloys, a_type: Person, b: Kestrel Alloys, b_type: Supplier, type: Supplier}\n",
			`cannot_link[0]: type "Supplier": only a must_link names the type`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "o.yaml")
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOverrides(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v; want one naming %s and saying %q", err, path, c.want)
			}
		})
	}
}

// typesOf returns the type property of every entity node named name.
func typesOf(g kg.Graph, name string) []string {
	var out []string
	for _, n := range g.Nodes {
		if n.Kind == kg.NodeConcept && n.Name == name {
			out = append(out, n.Properties["type"])
		}
	}
	slices.Sort(out)
	return out
}

func TestBuild_SetTypeRetypesBeforeResolution(t *testing.T) {
	in := exampleInput()
	in.Resolve = resolve.Config{}
	in.Triplets = append(in.Triplets, trip("c1", "Aurora", "Person", "made_by", "Velora Cycles", "Person"))
	if got := typesOf(build(t, in), "Velora Cycles"); !slices.Equal(got, []string{"Company", "Person"}) {
		t.Fatalf("without overrides Velora Cycles has the types %q; want a Company and a Person apart", got)
	}
	in.Overrides = &Overrides{SetType: []SetType{
		{Name: "Velora Cycles", Type: "Person", To: "Company"},
		{Name: "aurora", To: "BicycleModel"},
		{Name: "Nobody", To: "Person"},
	}}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	g := out.Graph
	// The type guard now takes the Person for a Company: one node.
	if got := typesOf(g, "Velora Cycles"); !slices.Equal(got, []string{"Company"}) {
		t.Errorf("Velora Cycles has the types %q; want one Company", got)
	}
	if a := concept(g, "Aurora"); a == nil || a.Properties["type"] != "BicycleModel" || !slices.Equal(a.Labels, []string{"Entity", "BicycleModel"}) {
		t.Errorf("Aurora = %+v; want a BicycleModel", a)
	}
	if m := mergeOf(g, "Aurora"); m.MemberType != "BicycleModel" {
		t.Errorf("the merge log has Aurora as %+v; want the type set", m)
	}
	if !slices.ContainsFunc(g.Edges, func(e kg.Edge) bool { return e.Type == "made_by" }) {
		t.Error("the fact of the retyped names is gone")
	}
	if u := out.Resolution.UnmatchedOverrides; len(u) != 1 || u[0].Kind != OverrideSetType || u[0].Refs[0] != "Nobody" {
		t.Errorf("unmatched overrides %+v; want the set_type of a name nobody mentioned", u)
	}
}

func TestBuild_SetTypeMakesAnExtractedNameOneWithItsRow(t *testing.T) {
	in := rowInput(t, kg.Mention{ChunkID: "c2", Surface: "Danubia Wheelworks", Type: "Person"})
	in.Overrides = &Overrides{SetType: []SetType{{Name: "Danubia Wheelworks", Type: "Person", To: "Supplier"}}}
	g := build(t, in)
	if m := mergeOf(g, "Danubia Wheelworks"); len(typesOf(g, "Danubia Wheelworks")) != 1 || m.ClusterID != link.RowID("suppliers", "S002") {
		t.Errorf("Danubia Wheelworks: nodes of types %q, merge log %+v; want the extracted name on its row's node", typesOf(g, "Danubia Wheelworks"), m)
	}
}

func TestBuild_NotEntityDropsTheNameAndItsTriplets(t *testing.T) {
	in := exampleInput()
	in.Triplets = append(in.Triplets,
		trip("c1", "about", "Person", "relates_to", "Velora Cycles", "Company"),
		trip("c2", "Model | Type | Plant", "Product", "listed_in", "Catalogue", "Document"),
		trip("c2", "Catalogue", "Document", "lists", "Aurora", "BicycleModel"),
	)
	in.Entities = []kg.Mention{{ChunkID: "c1", Surface: "About", Type: "Concept"}, {ChunkID: "c2", Surface: "Service", Type: "Person"}}
	g := build(t, in)
	if concept(g, "about") == nil || concept(g, "Model | Type | Plant") == nil {
		t.Fatal("without overrides the names are not nodes: the test shows nothing")
	}
	in.Overrides = &Overrides{NotEntity: []Single{
		{Name: "about", Decision: Decision{By: "ana", Note: "a preposition"}},
		{Name: "Model | Type | Plant"},
		{Name: "nowhere"},
	}}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	g = out.Graph
	for _, name := range []string{"about", "About", "Model | Type | Plant"} {
		if n := concept(g, name); n != nil {
			t.Errorf("the graph keeps a node %+v", n)
		}
		if m := mergeOf(g, name); m.Member != "" {
			t.Errorf("the merge log keeps %+v", m)
		}
	}
	for _, e := range g.Edges {
		if e.Type == "relates_to" || e.Type == "listed_in" {
			t.Errorf("the graph keeps the edge %+v of a name that is not an entity", e)
		}
	}
	// The other end of a dropped triplet stays, and so do its other facts.
	if concept(g, "Catalogue") == nil || concept(g, "Service") == nil || !slices.ContainsFunc(g.Edges, func(e kg.Edge) bool { return e.Type == "lists" }) {
		t.Error("the other names lost their nodes or facts")
	}
	r := out.Resolution
	if r.TripletsDropped[DropNotEntity] != 2 {
		t.Errorf("triplets dropped %v; want 2 by reason %s", r.TripletsDropped, DropNotEntity)
	}
	want := []NotEntityDrop{
		{Ref: "about", Surfaces: []string{"About [Concept]", "about [Person]"}, Mentions: 2, Triplets: 1, By: "ana", Note: "a preposition"},
		{Ref: "Model | Type | Plant", Surfaces: []string{"Model | Type | Plant [Product]"}, Mentions: 1, Triplets: 1},
	}
	if !slicesEqualFunc(r.NotEntities, want) {
		t.Errorf("not entities %+v; want %+v", r.NotEntities, want)
	}
	if u := r.UnmatchedOverrides; len(u) != 1 || u[0].Kind != OverrideNotEntity || u[0].Refs[0] != "nowhere" {
		t.Errorf("unmatched overrides %+v; want the not_entity of a name nobody mentioned", u)
	}
	rep := MergeReport(g, r)
	for _, want := range []string{"## Names that are not entities", "the 2 triplets", "| about | About [Concept], about [Person] | 2 | 1 | ana | a preposition |", "not_entity nowhere: matches no extracted entity"} {
		if !strings.Contains(rep, want) {
			t.Errorf("the merge report lacks %q:\n%s", want, rep)
		}
	}
}

func slicesEqualFunc(a, b []NotEntityDrop) bool {
	return slices.EqualFunc(a, b, func(x, y NotEntityDrop) bool {
		return x.Ref == y.Ref && slices.Equal(x.Surfaces, y.Surfaces) && x.Mentions == y.Mentions && x.Triplets == y.Triplets && x.By == y.By && x.Note == y.Note
	})
}

func TestBuild_TypedMustLinkJoinsOneNameUnderTwoTypes(t *testing.T) {
	in := exampleInput()
	in.Resolve = resolve.Config{}
	if got := typesOf(build(t, in), "Kestrel Alloys"); !slices.Equal(got, []string{"Company", "Supplier"}) {
		t.Fatalf("without overrides Kestrel Alloys has the types %q; want two nodes", got)
	}
	in.Overrides = &Overrides{MustLink: []Link{{A: "Kestrel Alloys", AType: "Company", B: "kestrel alloys", BType: "Supplier", Type: "Manufacturer"}}}
	g := build(t, in)
	if got := typesOf(g, "Kestrel Alloys"); !slices.Equal(got, []string{"Manufacturer"}) {
		t.Errorf("after the join Kestrel Alloys has the types %q; want one Manufacturer", got)
	}
	if n := concept(g, "Kestrel Alloys"); n == nil || !slices.Equal(n.Labels, []string{"Entity", "Manufacturer"}) {
		t.Errorf("the joined node = %+v", n)
	}
	if !slices.ContainsFunc(g.Merges, func(m kg.MergeDecision) bool {
		return m.Member == "Kestrel Alloys" && m.Rule == string(resolve.RuleMustLink) && m.DecidedBy == "override"
	}) {
		t.Errorf("the merge log does not show the join decided by override: %+v", g.Merges)
	}
}

func TestBuild_TypedMustLinkJoinsAnExtractedNameWithItsRow(t *testing.T) {
	in := rowInput(t, kg.Mention{ChunkID: "c2", Surface: "Danubia Wheelworks", Type: "Person"})
	in.Overrides = &Overrides{MustLink: []Link{{A: "Danubia Wheelworks", AType: "Person", B: "Danubia Wheelworks", BType: "Supplier", Type: "Supplier"}}}
	g := build(t, in)
	row := link.RowID("suppliers", "S002")
	n := concept(g, "Danubia Wheelworks")
	if got := typesOf(g, "Danubia Wheelworks"); !slices.Equal(got, []string{"Supplier"}) || n.ID != row || n.Properties[kg.PropKey] != "S002" {
		t.Errorf("after the join: types %q, node %+v; want the row's node, a Supplier", got, n)
	}
	if m := slices.IndexFunc(g.Merges, func(m kg.MergeDecision) bool {
		return m.MemberType == "Person" && m.ClusterID == row && m.Rule == string(resolve.RuleMustLink)
	}); m < 0 {
		t.Errorf("the merge log lacks the Person on the row by must_link: %+v", g.Merges)
	}
}
