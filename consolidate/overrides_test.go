package consolidate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

func TestOverrides_RoundTripAndDecisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "overrides.yaml")
	o, err := LoadOverrides(path)
	if err != nil || len(o.MustLink)+len(o.CannotLink)+len(o.KeepApart)+len(o.Rename) != 0 {
		t.Fatalf("a missing file: %+v, %v; want no overrides", o, err)
	}
	o.Accept(Link{A: "Porto plant", B: "Porto factory", Decision: Decision{By: "ana"}})
	o.Accept(Link{A: "Acme", B: "ACME Inc.", Decision: Decision{By: "ana"}})
	o.Split(Single{Name: "Apple", Decision: Decision{By: "rui", Note: "fruit vs company"}})
	o.Rename = append(o.Rename, Rename{Member: "ACME", To: "ACME Corporation"})
	// Rejecting a pair replaces the earlier acceptance of the same pair,
	// whatever the order and case of its names.
	o.Reject(Link{A: "porto FACTORY", B: "Porto plant", Decision: Decision{By: "rui"}})
	o.Reject(Link{A: "Station 1", B: "Station 2", Decision: Decision{By: "rui"}})
	if err := o.Save(path); err != nil {
		t.Fatal(err)
	}
	bad := &Overrides{}
	bad.Reject(Link{A: "Porto", B: "porto"})
	if err := bad.Save(filepath.Join(t.TempDir(), "bad.yaml")); err == nil {
		t.Error("saved a cannot_link of a name with itself")
	}
	raw, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(raw), "# kgforge merge overrides") {
		t.Errorf("no header:\n%s", raw)
	}
	got, err := LoadOverrides(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.MustLink) != 1 || got.MustLink[0].B != "ACME Inc." || len(got.CannotLink) != 2 ||
		got.CannotLink[0].A != "porto FACTORY" || got.CannotLink[0].By != "rui" || got.CannotLink[0].At == "" ||
		len(got.KeepApart) != 1 || got.KeepApart[0].Note != "fruit vs company" || len(got.Rename) != 1 {
		t.Errorf("read back %+v", got)
	}
	r := got.Resolve()
	if len(r.MustLink) != 1 || len(r.CannotLink) != 2 || len(r.KeepApart) != 1 || r.Rename[0].Name != "ACME Corporation" {
		t.Errorf("as resolver overrides: %+v", r)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the overrides: %v", entries)
	}
}

func TestOverrides_BadFiles(t *testing.T) {
	cases := map[string]string{
		"unknown field":  "must_link:\n  - {a: x, b: y, reason: z}\n",
		"contradiction":  "must_link:\n  - {a: Station 1, b: Station 2}\ncannot_link:\n  - {a: station 2, b: STATION 1}\n",
		"empty name":     "keep_apart:\n  - {name: \"\"}\n",
		"rename no to":   "rename:\n  - {member: x}\n",
		"not yaml":       "must_link: [\n",
		"self link":      "must_link:\n  - {a: Porto, b: porto}\n",
		"missing b":      "cannot_link:\n  - {a: x}\n",
		"wrong top type": "- a\n- b\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "o.yaml")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOverrides(path)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("error = %v; want one naming %s", err, path)
			}
		})
	}
}

// TestOverrides_SurfaceEntries: entries that name a surface as written and
// a type read back, reach the resolver with their match and types, replace
// an earlier decision on the same two surfaces only, and are refused when
// they name one surface twice or an unknown match.
func TestOverrides_SurfaceEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "overrides.yaml")
	body := "cannot_link:\n" +
		"  - {a: Apple, a_type: Organization, b: apple, b_type: Organization, match: surface, by: ana}\n" +
		"keep_apart:\n  - {name: apple, type: Fruit, match: surface}\n" +
		"rename:\n  - {member: Apple, type: Organization, match: surface, to: Apple Inc.}\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := LoadOverrides(path)
	if err != nil {
		t.Fatal(err)
	}
	r := o.Resolve()
	wantPair := resolve.NamePair{A: "Apple", AType: "Organization", B: "apple", BType: "Organization", Match: resolve.MatchSurface}
	if len(r.CannotLink) != 1 || r.CannotLink[0] != wantPair ||
		len(r.KeepApart) != 1 || r.KeepApart[0] != (resolve.Ref{Name: "apple", Type: "Fruit", Match: resolve.MatchSurface}) ||
		len(r.Rename) != 1 || r.Rename[0] != (resolve.Rename{Member: "Apple", Type: "Organization", Match: resolve.MatchSurface, Name: "Apple Inc."}) {
		t.Errorf("as resolver overrides: %+v", r)
	}

	company, fruit := Surface{Name: "Apple", Type: "Organization"}, Surface{Name: "apple", Type: "Organization"}
	if !o.CannotLink[0].Names(fruit, company) || o.CannotLink[0].Names(company, Surface{Name: "APPLE", Type: "Organization"}) {
		t.Error("the surface entry names other surfaces than its own")
	}
	// Accepting the same two surfaces replaces the cannot-link; a must-link
	// of the two names by name is another entry (it names every spelling).
	o.Accept(Link{A: "apple", AType: "organization", B: "Apple", BType: "Organization", Match: resolve.MatchSurface})
	o.Accept(Link{A: "Apple", B: "Malus domestica"})
	if len(o.CannotLink) != 0 || len(o.MustLink) != 2 {
		t.Errorf("after two accepts: must %+v, cannot %+v; want the cannot-link replaced", o.MustLink, o.CannotLink)
	}
	if err := o.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := LoadOverrides(path)
	if err != nil || !slices.Equal(again.MustLink, o.MustLink) || !slices.Equal(again.KeepApart, o.KeepApart) {
		t.Errorf("read back %+v, %v; want %+v", again, err, o)
	}

	bad := map[string]string{
		"one surface twice": "cannot_link:\n  - {a: Apple, b: \"Apple \", match: surface}\n",
		"unknown match":     "keep_apart:\n  - {name: apple, match: exact}\n",
		"same name by name": "cannot_link:\n  - {a: Apple, b: apple}\n",
	}
	for name, body := range bad {
		p := filepath.Join(t.TempDir(), "o.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOverrides(p); err == nil {
			t.Errorf("%s: loaded", name)
		} else if name == "same name by name" && !strings.Contains(err.Error(), "match: surface") {
			t.Errorf("%s: %v; want a hint to name them as written", name, err)
		}
	}
}

// appleInput: "Apple" the company and "apple" the fruit, both typed
// Organization by the extractor, which the same_name rule merges.
func appleInput() Input {
	return Input{
		Sources: []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1"}},
		Triplets: []kg.Triplet{
			trip("c1", "Apple", "Organization", "sells", "iPhone", "Product"),
			trip("c1", "Kestrel Farm", "Organization", "grows", "apple", "Organization"),
		},
	}
}

// TestBuild_SurfaceOverridesTellApartNamesEqualOnceFolded: a cannot-link
// of two surfaces as written keeps apart two names that only differ in
// case, which no entry by name can; a must-link of the same surfaces puts
// them back together.
func TestBuild_SurfaceOverridesTellApartNamesEqualOnceFolded(t *testing.T) {
	in := appleInput()
	if n := concept(build(t, in), "Apple"); n == nil || !slices.Equal(n.Aliases, []string{"apple"}) {
		t.Fatalf("without overrides: %+v; want one node Apple with the alias apple", n)
	}
	in.Overrides = &Overrides{}
	pair := Link{A: "Apple", AType: "Organization", B: "apple", BType: "Organization", Match: resolve.MatchSurface}
	in.Overrides.Reject(pair)
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := concept(out.Graph, "Apple"), concept(out.Graph, "apple"); a == nil || b == nil || len(a.Aliases)+len(b.Aliases) != 0 {
		t.Errorf("after the cannot-link: Apple %+v, apple %+v; want two nodes", a, b)
	}
	if len(out.Resolution.UnmatchedOverrides) != 0 {
		t.Errorf("overrides not applied: %+v", out.Resolution.UnmatchedOverrides)
	}
	if !slices.ContainsFunc(out.Graph.MergeLinks, func(l kg.MergeLink) bool {
		return l.Decision == "cannot_link" && pair.Names(Surface{Name: l.A, Type: "Organization"}, Surface{Name: l.B, Type: "Organization"})
	}) {
		t.Errorf("the merge log lacks the pair the expert rejected: %+v", out.Graph.MergeLinks)
	}
	in.Overrides.Accept(pair)
	if n := concept(build(t, in), "Apple"); n == nil || !slices.Equal(n.Aliases, []string{"apple"}) {
		t.Errorf("after the must-link: %+v; want one node Apple with the alias apple", n)
	}
}
