package review_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
	"kgforge/review"
)

// TestServer_DecidesNamesEqualOnceFoldedAsWritten: a pair whose names
// are equal once folded ("Porto plant", "Porto Plant") has buttons, and a
// decision on it names both as written, with their types; splitting one
// of two such names off a node names it as written too, while a name
// without a folded twin is still named by name.
func TestServer_DecidesNamesEqualOnceFoldedAsWritten(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	for _, d := range []struct {
		path   string
		member string
	}{
		{fmt.Sprintf("/items/%d/reject", itemPorto), ""},
		{fmt.Sprintf("/items/%d/split", itemPortoNode), "Porto Plant"},
		{fmt.Sprintf("/items/%d/split", itemLisbonNode), "Lisbon depot"},
	} {
		form := url.Values{"token": {tok}}
		if d.member != "" {
			form.Set("member", d.member)
		}
		if code, _, body := e.post(t, d.path, form); code != http.StatusSeeOther {
			t.Fatalf("POST %s = %d\n%s", d.path, code, body)
		}
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	wantCannot := consolidate.Link{A: "Porto plant", AType: "Facility", B: "Porto Plant", BType: "Facility", Match: resolve.MatchSurface}
	wantApart := []consolidate.Single{{Name: "Porto Plant", Type: "Facility", Match: resolve.MatchSurface}, {Name: "Lisbon depot"}}
	for i := range o.KeepApart {
		o.KeepApart[i].Decision = consolidate.Decision{}
	}
	if len(o.CannotLink) != 1 || !sameEntry(o.CannotLink[0], wantCannot) || !slices.Equal(o.KeepApart, wantApart) {
		t.Fatalf("overrides: cannot_link %+v, keep_apart %+v; want %+v and %+v", o.CannotLink, o.KeepApart, wantCannot, wantApart)
	}
	_, page := e.get(t, "/")
	for _, s := range []string{
		fmt.Sprintf(`data-testid="item-%d" data-status="rejected"`, itemPorto),
		fmt.Sprintf(`data-testid="status-%d-2"`, itemPortoNode),
		fmt.Sprintf(`data-testid="status-%d-2"`, itemLisbonNode),
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %s", s)
		}
	}
	if strings.Contains(page, fmt.Sprintf(`data-testid="status-%d-1"`, itemPortoNode)) {
		t.Error("splitting Porto Plant off shows Porto plant split too")
	}
}

func sameEntry(l, want consolidate.Link) bool {
	l.Decision = consolidate.Decision{}
	return l == want
}

// TestServer_RefusesAPairOfOneSurface: a pair of one name as written of
// one type (two types the merge log shows alike) cannot be named apart:
// no buttons, and a POST is refused with 409.
func TestServer_RefusesAPairOfOneSurface(t *testing.T) {
	c := bundle.Contents{Graph: kg.Graph{
		Nodes: []kg.Node{concept("n-apple", "Apple", "Organization")},
		Merges: []kg.MergeDecision{
			merge("n-apple", "Apple", "Apple", "Organization", "same_name", 1),
		},
		MergeLinks: []kg.MergeLink{{ClusterID: "n-apple", A: "Apple", B: "Apple", BCluster: "n-apple", Band: "", Rule: "same_name", Decision: "merged"}},
	}}
	e := newEnv(t, c, review.Options{})
	_, page := e.get(t, "/")
	if !strings.Contains(page, `data-testid="samename-1"`) || strings.Contains(page, `data-testid="reject-1"`) {
		t.Errorf("the pair of one surface offers buttons or does not say why not:\n%s", page)
	}
	code, _, body := e.post(t, "/items/1/reject", url.Values{"token": {e.token(t)}})
	if code != http.StatusConflict || !strings.Contains(body, "cannot tell them apart") {
		t.Errorf("reject = %d, want 409 saying the file cannot tell them apart\n%s", code, body)
	}
	e.untouched(t)
}

// appleInput is an extraction of "Apple" the company and "apple" the
// fruit, both typed Organization, which consolidate.Build merges by name.
func appleInput() consolidate.Input {
	text := "Apple sells phones in Porto. Kestrel Farm grows the apple that Porto eats."
	mention := func(name, typ string) kg.Mention {
		i := strings.Index(text, name)
		return kg.Mention{ChunkID: "c1", Surface: name, Type: typ, Span: kg.Span{Start: i, End: i + len(name)}}
	}
	fact := func(id string, s kg.Mention, pred string, o kg.Mention) kg.Triplet {
		return kg.Triplet{ID: id, ChunkID: "c1", Subject: s, Predicate: pred, Object: o, Evidence: text, EvidenceSpan: kg.Span{End: len(text)}, Confidence: 1}
	}
	return consolidate.Input{
		Sources: []kg.Source{{ID: "s1", URI: "docs/fruit.md", Kind: kg.KindMarkdown}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1", Text: text, Span: kg.Span{End: len(text)}, Section: "Orchards"}},
		Triplets: []kg.Triplet{
			fact("t1", mention("Apple", "Organization"), "sells_in", mention("Porto", "Location")),
			fact("t2", mention("Kestrel Farm", "Organization"), "grows", mention("apple", "Organization")),
		},
		FixedPredicates: true,
	}
}

// applePair returns the number of the item of e that shows the pair
// "Apple" / "apple".
func applePair(t *testing.T, e *env) int {
	t.Helper()
	for _, it := range e.srv.Items() {
		if it.Kind == review.KindPair && slices.Equal([]string{min(it.Link.A, it.Link.B), max(it.Link.A, it.Link.B)}, []string{"Apple", "apple"}) {
			return it.N
		}
	}
	t.Fatalf("the review has no pair of Apple and apple: %+v", e.srv.Items())
	return 0
}

// TestSurfaceDecisionChangesTheNextBuild: a build merges "Apple" and
// "apple"; Reject on the review page keeps them apart in the next build;
// the review of that build shows the pair rejected, and Accept there
// merges them again in the build after.
func TestSurfaceDecisionChangesTheNextBuild(t *testing.T) {
	in := appleInput()
	contents := func(g kg.Graph) bundle.Contents {
		return bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Triplets: in.Triplets, Graph: g}
	}
	g := build(t, in)
	if got := conceptNames(g); !slices.Contains(got, "Apple+apple") {
		t.Fatalf("first build: entity nodes %q; want Apple and apple in one", got)
	}
	e := newEnv(t, contents(g), review.Options{By: "ana"})
	n := applePair(t, e)
	code, _, body := e.post(t, fmt.Sprintf("/items/%d/reject", n), url.Values{"token": {e.token(t)}})
	if code != http.StatusSeeOther {
		t.Fatalf("reject item %d = %d\n%s", n, code, body)
	}
	var err error
	if in.Overrides, err = consolidate.LoadOverrides(e.overrides); err != nil {
		t.Fatal(err)
	}
	g = build(t, in)
	if got := conceptNames(g); !slices.Contains(got, "Apple") || !slices.Contains(got, "apple") {
		t.Fatalf("after Reject: entity nodes %q; want Apple and apple apart", got)
	}

	next := newEnv(t, contents(g), review.Options{By: "ana", Overrides: e.overrides})
	m := applePair(t, next)
	if _, page := next.get(t, "/"); !strings.Contains(page, fmt.Sprintf(`data-testid="item-%d" data-status="rejected"`, m)) {
		t.Errorf("the review of the next build does not show item %d rejected", m)
	}
	if code, _, body := next.post(t, fmt.Sprintf("/items/%d/accept", m), url.Values{"token": {next.token(t)}}); code != http.StatusSeeOther {
		t.Fatalf("accept item %d = %d\n%s", m, code, body)
	}
	if in.Overrides, err = consolidate.LoadOverrides(e.overrides); err != nil {
		t.Fatal(err)
	}
	if len(in.Overrides.MustLink) != 1 || len(in.Overrides.CannotLink) != 0 {
		t.Fatalf("after Accept: %+v; want the cannot-link replaced by a must-link", in.Overrides)
	}
	if got := conceptNames(build(t, in)); !slices.Contains(got, "Apple+apple") {
		t.Errorf("after Accept: entity nodes %q; want Apple and apple in one", got)
	}
}
