package review_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/consolidate/link"
	"kgforge/kg"
	"kgforge/review"
)

// entitiesInput is a build of a suppliers table and a page a small model
// read badly: the bicycle model Aurora typed Person, the supplier Danubia
// Wheelworks typed Person (so its name is also the row of suppliers, a
// Supplier: one name under two types), and "about" taken for an entity.
func entitiesInput(t *testing.T) consolidate.Input {
	db, tables := loadCSV(t, "suppliers.csv", "supplier_id,name,country\nS001,Kestrel Alloys,United Kingdom\nS002,Danubia Wheelworks,Austria\n")
	text := "Velora Cycles builds the Aurora. Danubia Wheelworks supplies its rims. Read more about Velora Cycles."
	mention := func(name, typ string) kg.Mention {
		i := strings.Index(text, name)
		return kg.Mention{ChunkID: "c1", Surface: name, Type: typ, Span: kg.Span{Start: i, End: i + len(name)}}
	}
	fact := func(id string, s kg.Mention, pred string, o kg.Mention) kg.Triplet {
		return kg.Triplet{ID: id, ChunkID: "c1", Subject: s, Predicate: pred, Object: o, Evidence: text, EvidenceSpan: kg.Span{End: len(text)}, Confidence: 1}
	}
	velora := mention("Velora Cycles", "Company")
	return consolidate.Input{
		Sources: []kg.Source{{ID: "s1", URI: "web/aurora.html", Kind: kg.KindHTML}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1", Text: text, Span: kg.Span{End: len(text)}, Section: "Aurora"}},
		Triplets: []kg.Triplet{
			fact("t1", velora, "builds", mention("Aurora", "Person")),
			fact("t2", mention("Danubia Wheelworks", "Person"), "supplies", velora),
			fact("t3", mention("about", "Person"), "relates_to", velora),
		},
		Tables: tables, Data: db, FixedPredicates: true,
	}
}

// entityItem returns the number of the item of kind k whose first member
// is named name.
func entityItem(t *testing.T, e *env, k review.Kind, name string) int {
	t.Helper()
	for _, it := range e.srv.Items() {
		if it.Kind == k && it.Members[0].Name == name {
			return it.N
		}
	}
	t.Fatalf("the review has no %s item of %q", k, name)
	return 0
}

// checkEntityDecisions checks that the overrides file holds the three
// decisions the tests make: join Danubia Wheelworks as a Supplier, Aurora
// a BicycleModel, "about" not an entity.
func checkEntityDecisions(t *testing.T, o *consolidate.Overrides) {
	t.Helper()
	if len(o.MustLink) != 1 || o.MustLink[0].Type != "Supplier" || o.MustLink[0].By != "ana" ||
		!o.MustLink[0].Names(consolidate.Surface{Name: "Danubia Wheelworks", Type: "Person"}, consolidate.Surface{Name: "Danubia Wheelworks", Type: "Supplier"}) {
		t.Errorf("must_link %+v; want Danubia Wheelworks [Person] and [Supplier] joined as a Supplier", o.MustLink)
	}
	if len(o.SetType) != 1 || o.SetType[0].To != "BicycleModel" || !o.SetType[0].Names(consolidate.Surface{Name: "Aurora", Type: "Person"}) {
		t.Errorf("set_type %+v; want Aurora [Person] set to BicycleModel", o.SetType)
	}
	if len(o.NotEntity) != 1 || !o.NotEntity[0].Names(consolidate.Surface{Name: "about", Type: "Person"}) || o.NotEntity[0].Note != "a preposition" {
		t.Errorf("not_entity %+v; want about, with its note", o.NotEntity)
	}
}

// checkRebuild checks that a build with the three decisions obeys them.
func checkRebuild(t *testing.T, in consolidate.Input) consolidate.Output {
	t.Helper()
	out, err := consolidate.Build(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	g := out.Graph
	if u := out.Resolution.UnmatchedOverrides; len(u) != 0 {
		t.Errorf("the rebuild did not apply every override: %+v", u)
	}
	var danubia, aurora, about []kg.Node
	for _, n := range g.Nodes {
		switch {
		case n.Kind != kg.NodeConcept:
		case n.Name == "Danubia Wheelworks":
			danubia = append(danubia, n)
		case n.Name == "Aurora":
			aurora = append(aurora, n)
		case strings.EqualFold(n.Name, "about"):
			about = append(about, n)
		}
	}
	if len(danubia) != 1 || danubia[0].ID != link.RowID("suppliers", "S002") || danubia[0].Properties["type"] != "Supplier" {
		t.Errorf("Danubia Wheelworks nodes %+v; want one, the row's, a Supplier", danubia)
	}
	if len(aurora) != 1 || aurora[0].Properties["type"] != "BicycleModel" || !slices.Contains(aurora[0].Labels, "BicycleModel") {
		t.Errorf("Aurora nodes %+v; want one BicycleModel", aurora)
	}
	if len(about) != 0 || slices.ContainsFunc(g.Edges, func(e kg.Edge) bool { return e.Type == "relates_to" }) {
		t.Errorf("about is still in the graph: %+v", about)
	}
	if got := out.Resolution.TripletsDropped[consolidate.DropNotEntity]; got != 1 {
		t.Errorf("triplets dropped as not entities: %d, want 1", got)
	}
	if !strings.Contains(consolidate.MergeReport(g, out.Resolution), "| about | about [Person] | 1 | 1 | ana | a preposition |") {
		t.Error("the merge report does not say why about is gone")
	}
	return out
}

// TestEntityDecisionsChangeTheNextBuild: over the review of a real build,
// the three decisions on entities are posted as the page's forms post
// them; the overrides file holds them, the next build obeys them, and the
// review of that build shows the retyped node decided and no join left.
func TestEntityDecisionsChangeTheNextBuild(t *testing.T) {
	in := entitiesInput(t)
	out, err := consolidate.Build(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	contents := func(g kg.Graph) bundle.Contents {
		return bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Triplets: in.Triplets, Tables: in.Tables, Graph: g}
	}
	e := newEnv(t, contents(out.Graph), review.Options{By: "ana"})
	join := entityItem(t, e, review.KindJoin, "Danubia Wheelworks")
	aurora := entityItem(t, e, review.KindNode, "Aurora")
	about := entityItem(t, e, review.KindNode, "about")
	if it := e.srv.Items()[join-1]; it.JoinType != "Supplier" {
		t.Errorf("the join proposes the type %q; want the row's, Supplier", it.JoinType)
	}
	_, page := e.get(t, "/")
	for _, want := range []string{
		`<option value="Supplier">`, `<option value="Person">`,
		fmt.Sprintf(`data-testid="jointype-%d" list="types" value="Supplier"`, join),
		fmt.Sprintf(`data-testid="notentity-%d"`, about),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}

	tok := e.token(t)
	// Refused: a type that is not label-safe, an action of another kind
	// of item. Nothing is written.
	for _, c := range []struct {
		path string
		form url.Values
		says string
	}{
		{fmt.Sprintf("/items/%d/type", aurora), url.Values{"token": {tok}, "type": {"Bicycle Model"}}, "is not a letter, digit or _"},
		{fmt.Sprintf("/items/%d/type", aurora), url.Values{"token": {tok}}, "empty type"},
		{fmt.Sprintf("/items/%d/join", join), url.Values{"token": {tok}, "type": {"Chunk"}}, "label of kgforge&#39;s own nodes"},
		{fmt.Sprintf("/items/%d/join", aurora), url.Values{"token": {tok}, "type": {"Supplier"}}, "join does not apply to a node item"},
		{fmt.Sprintf("/items/%d/not_entity", join), url.Values{"token": {tok}}, "not_entity does not apply to a join item"},
		{fmt.Sprintf("/items/%d/accept", about), url.Values{"token": {tok}}, "set its type or mark it as not an entity instead"},
	} {
		if code, _, body := e.post(t, c.path, c.form); code != http.StatusBadRequest || !strings.Contains(body, c.says) {
			t.Errorf("POST %s %v = %d; want 400 saying %q\n%s", c.path, c.form, code, c.says, body)
		}
	}
	if _, err := os.Stat(e.overrides); !os.IsNotExist(err) {
		t.Fatalf("a refused decision wrote the overrides file (stat: %v)", err)
	}

	for _, c := range []struct {
		path string
		form url.Values
	}{
		{fmt.Sprintf("/items/%d/join", join), url.Values{"token": {tok}, "type": {"Supplier"}}},
		// A second decision on the node replaces the first.
		{fmt.Sprintf("/items/%d/type", aurora), url.Values{"token": {tok}, "type": {"Product"}}},
		{fmt.Sprintf("/items/%d/type", aurora), url.Values{"token": {tok}, "type": {" BicycleModel "}}},
		{fmt.Sprintf("/items/%d/not_entity", about), url.Values{"token": {tok}, "note": {"a preposition"}}},
	} {
		if code, loc, body := e.post(t, c.path, c.form); code != http.StatusSeeOther || !strings.HasSuffix(loc, "#item-"+strings.Split(c.path, "/")[2]) {
			t.Fatalf("POST %s = %d (Location %q)\n%s", c.path, code, loc, body)
		}
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	checkEntityDecisions(t, o)
	_, page = e.get(t, "/")
	for _, want := range []string{
		fmt.Sprintf(`data-testid="item-%d" data-status="joined"`, join),
		fmt.Sprintf(`data-testid="item-%d" data-status="typed"`, aurora),
		fmt.Sprintf(`data-testid="item-%d" data-status="not_entity"`, about),
		"type set to BicycleModel by ana", "joined as one Supplier by ana", "not an entity by ana",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("after the decisions the page lacks %s", want)
		}
	}

	in.Overrides = o
	again := checkRebuild(t, in)
	// The review of the next build: the node shows its type as decided,
	// and there is nothing left to join or drop.
	next := newEnv(t, contents(again.Graph), review.Options{Overrides: e.overrides})
	n := entityItem(t, next, review.KindNode, "Aurora")
	if _, page := next.get(t, "/"); !strings.Contains(page, fmt.Sprintf(`data-testid="item-%d" data-status="typed"`, n)) {
		t.Errorf("the review of the next build does not show Aurora typed")
	}
	for _, it := range next.srv.Items() {
		if it.Kind == review.KindJoin || strings.EqualFold(it.Members[0].Name, "about") {
			t.Errorf("the review of the next build still has %s item %+v", it.Kind, it.Members)
		}
	}
}

// TestJoinItemsListOneNameUnderTwoTypes: the page lists two nodes of one
// name once folded whose types differ, not two of one type, and proposes
// the type of the name mentioned most when neither is a row (the first
// node's on a tie).
func TestJoinItemsListOneNameUnderTwoTypes(t *testing.T) {
	c := fixture()
	g := &c.Graph
	g.Nodes = append(g.Nodes, concept("n-kp", "Kestrel Alloys", "Person"), concept("n-kc", "KESTREL ALLOYS", "Company"), concept("n-kc2", "Kestrel alloys", "company"))
	m := merge("n-kc", "KESTREL ALLOYS", "KESTREL ALLOYS", "Company", "single", 1)
	m.Mentions = 5
	g.Merges = append(g.Merges, merge("n-kp", "Kestrel Alloys", "Kestrel Alloys", "Person", "single", 1), m,
		merge("n-kc2", "Kestrel alloys", "Kestrel alloys", "company", "single", 1))
	e := newEnv(t, c, review.Options{})
	var joins []string
	for _, it := range e.srv.Items() {
		if it.Kind == review.KindJoin {
			joins = append(joins, fmt.Sprintf("%s [%s] + %s [%s] as %s", it.Members[0].Name, it.Members[0].Type, it.Members[1].Name, it.Members[1].Type, it.JoinType))
		}
	}
	want := []string{"KESTREL ALLOYS [Company] + Kestrel Alloys [Person] as Company", "Kestrel alloys [company] + Kestrel Alloys [Person] as company"}
	if !slices.Equal(joins, want) {
		t.Errorf("join items %q; want %q", joins, want)
	}
}
