package review_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/consolidate/resolve"
	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/review"
)

// loadCSV loads one CSV file into a fresh DuckDB with the build's loader
// and profiler, and finds its keys, as a build does.
func loadCSV(t *testing.T, name, content string) (*sql.DB, []kg.Table) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := duck.Open(ctx, filepath.Join(dir, "data.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	src := kg.Source{ID: kg.ID("source", name), URI: name, Kind: kg.KindCSV}
	tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: src, Path: path, Base: ingest.TableName(name)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ingest.FindKeys(ctx, db, tables); err != nil {
		t.Fatal(err)
	}
	return db, tables
}

// suppliersInput is a build of a suppliers table and a document that
// names one of them with a suffix and speaks of suppliers: without an
// embedder the resolver is not sure "Kestrel Alloys Ltd." is the row
// suppliers[S001], so the link log has an uncertain SAME_AS between them,
// and the concept "supplier" is linked to the table suppliers by its name.
func suppliersInput(t *testing.T) consolidate.Input {
	db, tables := loadCSV(t, "suppliers.csv", "supplier_id,name,country\nS001,Kestrel Alloys,United Kingdom\nS002,Danubia Wheelworks,Austria\nS003,Serra Brakes,Spain\n")
	text := "Our frames come from Kestrel Alloys Ltd. in Sheffield; every supplier is audited each year."
	mention := func(name, typ string) kg.Mention {
		i := strings.Index(text, name)
		return kg.Mention{ChunkID: "c1", Surface: name, Type: typ, Span: kg.Span{Start: i, End: i + len(name)}}
	}
	return consolidate.Input{
		Sources:  []kg.Source{{ID: "s1", URI: "docs/suppliers.md", Kind: kg.KindMarkdown}},
		Chunks:   []kg.Chunk{{ID: "c1", SourceID: "s1", Text: text, Span: kg.Span{End: len(text)}, Section: "Frames"}},
		Entities: []kg.Mention{mention("Kestrel Alloys Ltd.", "Company"), mention("supplier", "Concept")},
		Tables:   tables, Data: db,
		Resolve: resolve.Config{Compatible: map[string][]string{"Company": {"Supplier"}}},
	}
}

// build runs consolidate.Build and fails the test on an error or an
// override the build could not apply.
func build(t *testing.T, in consolidate.Input) kg.Graph {
	t.Helper()
	out, err := consolidate.Build(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Resolution.UnmatchedOverrides) != 0 {
		t.Errorf("the build did not apply every override: %+v", out.Resolution.UnmatchedOverrides)
	}
	return out.Graph
}

// linkTo returns the links of g of type typ from the node named name to
// target.
func linkTo(g kg.Graph, name, typ, target string) []kg.Link {
	var out []kg.Link
	for _, l := range g.Links {
		if l.SrcName == name && l.Type == typ && l.Target == target {
			out = append(out, l)
		}
	}
	return out
}

// clusterOf returns the node id the merge log puts member in.
func clusterOf(g kg.Graph, member string) string {
	for _, m := range g.Merges {
		if m.Member == member {
			return m.ClusterID
		}
	}
	return ""
}

// itemOf returns the number of the item of e that shows the link l.
func itemOf(t *testing.T, e *env, l kg.Link) int {
	t.Helper()
	i := slices.IndexFunc(e.srv.Items(), func(it review.Item) bool { return it.Kind == review.KindLink && it.DataLink.ID == l.ID })
	if i < 0 {
		t.Fatalf("the review has no item of the link %s → %s", l.SrcName, l.Target)
	}
	return e.srv.Items()[i].N
}

// decide posts action on the item of e that shows the link l, and returns
// the overrides file it wrote.
func decide(t *testing.T, e *env, l kg.Link, action string) *consolidate.Overrides {
	t.Helper()
	n := itemOf(t, e, l)
	code, _, body := e.post(t, fmt.Sprintf("/items/%d/%s", n, action), url.Values{"token": {e.token(t)}})
	if code != http.StatusSeeOther {
		t.Fatalf("%s item %d = %d\n%s", action, n, code, body)
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestLinkDecisionOnAConceptChangesTheNextBuild: the review of a real
// build shows the link of the concept "supplier" to the table suppliers;
// Reject on the page makes the next build log it in band none by rule
// cannot_link, with no edge, and Accept (replacing the Reject) puts it
// back in the graph by rule must_link.
func TestLinkDecisionOnAConceptChangesTheNextBuild(t *testing.T) {
	in := suppliersInput(t)
	g := build(t, in)
	rep := linkTo(g, "supplier", kg.LinkRepresentedBy, "suppliers")
	if len(rep) != 1 || rep[0].Band != kg.LinkBandLinked || !hasEdge(g, rep[0]) {
		t.Fatalf("first build: REPRESENTED_BY links %+v; want supplier → suppliers linked, with its edge", rep)
	}
	e := newEnv(t, bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Tables: in.Tables, Graph: g}, review.Options{By: "ana"})

	in.Overrides = decide(t, e, rep[0], "reject")
	again := linkTo(build(t, in), "supplier", kg.LinkRepresentedBy, "suppliers")
	if len(again) != 1 || again[0].Band != kg.LinkBandNone || again[0].Rule != "cannot_link" || again[0].DecidedBy != "ana" {
		t.Errorf("after Reject: %+v; want the link in band none by rule cannot_link, decided by ana", again)
	}
	if g := build(t, in); hasEdge(g, rep[0]) {
		t.Error("after Reject the graph still has the REPRESENTED_BY edge")
	}

	in.Overrides = decide(t, e, rep[0], "accept")
	g = build(t, in)
	again = linkTo(g, "supplier", kg.LinkRepresentedBy, "suppliers")
	if len(again) != 1 || again[0].Band != kg.LinkBandLinked || again[0].Rule != "must_link" || !hasEdge(g, again[0]) {
		t.Errorf("after Accept: %+v; want the link in the graph by rule must_link", again)
	}
}

// hasEdge reports whether g has the edge of the link l.
func hasEdge(g kg.Graph, l kg.Link) bool {
	return slices.ContainsFunc(g.Edges, func(e kg.Edge) bool { return e.Src == l.Src && e.Dst == l.Dst && e.Type == l.Type })
}
