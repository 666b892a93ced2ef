package consolidate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/consolidate/link"
	"kgforge/kg"
)

func TestParseTargetAcceptsTablesColumnsAndRows(t *testing.T) {
	cases := map[string]Target{
		"suppliers":                 {Table: "suppliers"},
		" parts.lead_time_days ":    {Table: "parts", Column: "lead_time_days"},
		"parts . lead time":         {Table: "parts", Column: "lead time"},
		"orders.delivered.at":       {Table: "orders", Column: "delivered.at"},
		"suppliers[S-001]":          {Table: "suppliers", Key: "S-001"},
		"suppliers[Kestrel Alloys]": {Table: "suppliers", Key: "Kestrel Alloys"},
		"t[a.b[c]]":                 {Table: "t", Key: "a.b[c]"},
		"parts.weight [kg]":         {Table: "parts", Column: "weight [kg]"},
		"parts.x[1]":                {Table: "parts", Column: "x[1]"},
	}
	for in, want := range cases {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParseTarget(got.String()); err != nil || again != got {
			t.Errorf("ParseTarget(%q) does not read back: %+v, %v", got.String(), again, err)
		}
	}
}

func TestParseTargetRejectsBadSyntaxNamingTheTarget(t *testing.T) {
	cases := map[string]string{
		"":             "empty target",
		"   ":          "empty target",
		"parts.":       "empty column",
		".lead_time":   "empty table",
		"[S-001]":      "empty table",
		"suppliers[]":  "empty key",
		"suppliers[ ]": "empty key",
		"suppliers[S1": "ends with ]",
		"my table":     "white space",
		"a[b].c":       "ends with ]",
		"sup]pliers":   "bracket",
	}
	for in, want := range cases {
		_, err := ParseTarget(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "TABLE[KEY]") {
			t.Errorf("ParseTarget(%q) = %v; want an error saying %q and the syntax", in, err, want)
		}
	}
}

func TestOverridesLinksRoundTripToLinkOverrides(t *testing.T) {
	path := filepath.Join(t.TempDir(), "overrides.yaml")
	o := &Overrides{}
	if got := o.Link(); len(got.MustLink)+len(got.CannotLink) != 0 {
		t.Fatalf("no links section gives %+v", got)
	}
	o.Accept(Link{A: "Acme", B: "ACME Inc.", Decision: Decision{By: "ana"}})
	o.AcceptLink("supplier", "suppliers", Decision{By: "ana", Note: "the supplier table"})
	o.AcceptLink("lead time", "parts.lead_time_days", Decision{By: "ana"})
	o.AcceptLink("TechChip", "suppliers[S-007]", Decision{})
	// A later decision on the same pair replaces the earlier one, whatever
	// the case of the name and the spaces in the target.
	o.RejectLink("Lead Time", " parts . lead_time_days", Decision{By: "rui", Note: "that is the promised time"})
	if err := o.Save(path); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "links:\n  must_link:\n") || !strings.Contains(string(raw), "target: suppliers[S-007]") {
		t.Errorf("the file:\n%s", raw)
	}
	got, err := LoadOverrides(path)
	if err != nil {
		t.Fatal(err)
	}
	l := got.Links
	if l == nil || len(l.MustLink) != 2 || len(l.CannotLink) != 1 || l.MustLink[0].Note != "the supplier table" ||
		l.CannotLink[0].By != "rui" || l.CannotLink[0].At == "" || len(got.MustLink) != 1 {
		t.Fatalf("read back %+v (links %+v)", got, l)
	}
	want := link.Overrides{
		MustLink: []link.Pair{
			{Entity: "supplier", Target: "suppliers", By: "ana"},
			{Entity: "TechChip", Target: "suppliers[S-007]", By: "override"},
		},
		CannotLink: []link.Pair{{Entity: "Lead Time", Target: "parts.lead_time_days", By: "rui"}},
	}
	if m := got.Link(); !slices.Equal(m.MustLink, want.MustLink) || !slices.Equal(m.CannotLink, want.CannotLink) {
		t.Errorf("as link overrides: %+v\nwant %+v", m, want)
	}
	if !SameLink(l.CannotLink[0], "lead TIME", "parts.lead_time_days") || SameLink(l.CannotLink[0], "lead time", "parts.promised_at") {
		t.Error("SameLink does not match a decision to its own link only")
	}
}

func TestOverridesLinksBadFilesNameTheEntry(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"both lists": {
			"links:\n  must_link:\n    - {entity: Lead time, target: parts.lead_time_days}\n  cannot_link:\n    - {entity: lead TIME, target: \"parts. lead_time_days\"}\n",
			"links.cannot_link[0]: \"lead TIME\" and parts.lead_time_days are also a must_link",
		},
		"empty entity":     {"links:\n  must_link:\n    - {entity: \"\", target: parts}\n", "links.must_link[0]: entity \"\""},
		"punctuation only": {"links:\n  cannot_link:\n    - {entity: \"--\", target: parts}\n", "links.cannot_link[0]: entity \"--\""},
		"no target":        {"links:\n  must_link:\n    - {entity: supplier}\n", "links.must_link[0]: empty target"},
		"bad target":       {"links:\n  cannot_link:\n    - {entity: x, target: \"suppliers[S1\"}\n", "links.cannot_link[0]: target \"suppliers[S1\""},
		"unknown field":    {"links:\n  must_link:\n    - {entity: x, target: t, table: t}\n", "unknown field"},
		"unknown list":     {"links:\n  maybe_link:\n    - {entity: x, target: t}\n", "unknown field"},
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
	bad := &Overrides{}
	bad.RejectLink("supplier", "suppliers[]", Decision{})
	if err := bad.Save(filepath.Join(t.TempDir(), "bad.yaml")); err == nil || !strings.Contains(err.Error(), "empty key") {
		t.Errorf("saved a cannot_link to a bad target: %v", err)
	}
}

// FuzzParseTarget: a target that parses reads back from its canonical
// form, and the targets the link log writes (kg.RowTarget of any key that
// is not blank, TABLE.COLUMN of any column) parse to their parts.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"suppliers", "parts.lead_time_days", "suppliers[S-001]", "t[a.b[c]]", "parts.weight [kg]", "x[", "[]", ".", " a . b "} {
		f.Add(s, "k")
	}
	f.Fuzz(func(t *testing.T, s, part string) {
		if p, err := ParseTarget(s); err == nil {
			if again, err := ParseTarget(p.String()); err != nil || again != p {
				t.Fatalf("ParseTarget(%q) = %+v, but its form %q reads %+v, %v", s, p, p.String(), again, err)
			}
		}
		if strings.TrimSpace(part) != "" {
			if p, err := ParseTarget(kg.RowTarget("suppliers", part)); err != nil || p != (Target{Table: "suppliers", Key: part}) {
				t.Fatalf("the row target of key %q: %+v, %v", part, p, err)
			}
			if p, err := ParseTarget("parts." + part); err != nil || p != (Target{Table: "parts", Column: strings.TrimSpace(part)}) {
				t.Fatalf("the column target of %q: %+v, %v", part, p, err)
			}
		}
	})
}

// TestBuildWarnsOfLinkOverridesItCannotApply: a link decision the build
// cannot apply (a name no node has, a table, column or row the data layer
// lacks, a must-link from a row entity to a table) is in
// Resolution.UnmatchedOverrides with the reason, which the run report
// lists as a warning; the decisions it applies are not.
func TestBuildWarnsOfLinkOverridesItCannotApply(t *testing.T) {
	in := rowInput(t,
		kg.Mention{ChunkID: "c1", Surface: "supplier", Type: "Concept"},
		kg.Mention{ChunkID: "c1", Surface: "Velora Cycles", Type: "Company"},
	)
	in.Overrides = &Overrides{Links: &LinkOverrides{
		MustLink: []TargetLink{
			{Entity: "supplier", Target: "suppliers"}, // applied
			{Entity: "suplier", Target: "suppliers"},
			{Entity: "supplier", Target: "vendors"},
			{Entity: "supplier", Target: "suppliers.rating"},
			{Entity: "Serra Brakes", Target: "suppliers"}, // a row entity
		},
		CannotLink: []TargetLink{
			{Entity: "supplier", Target: "suppliers.country"}, // applied: nothing to refuse, nothing wrong
			{Entity: "Velora Cycles", Target: "suppliers[S999]"},
		},
	}}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out.Resolution.UnmatchedOverrides {
		got = append(got, fmt.Sprintf("%s %s: %s", o.Kind, strings.Join(o.Refs, " / "), o.Reason))
	}
	want := []string{
		`links.must_link suplier / suppliers: no entity or concept is named "suplier"`,
		`links.must_link supplier / vendors: the data layer has no table "vendors"`,
		`links.must_link supplier / suppliers.rating: the data layer has no column suppliers.rating`,
		`links.must_link Serra Brakes / suppliers: "Serra Brakes" is not linked to suppliers after the link step: only an extracted entity or concept links to a table or column`,
		`links.cannot_link Velora Cycles / suppliers[S999]: no row entity is suppliers[S999]: its table gives no row entities, or no row has that key`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("unmatched overrides:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
