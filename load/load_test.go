package load

import (
	"context"
	"os"
	"regexp"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
)

var (
	labelRe = regexp.MustCompile(`^([A-Z][A-Za-z0-9]*)?$`)
	relRe   = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

func TestSanitizers(t *testing.T) {
	labels := map[string]string{
		"company": "Company", "quality incident": "QualityIncident", "`}) DETACH DELETE n //": "DETACHDELETEN",
		"Ｃompany": "Ompany", "123": "", "": "", "Label`:Admin": "LabelAdmin",
	}
	for in, want := range labels {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
	rels := map[string]string{
		"buys_from": "BUYS_FROM", "is located in": "IS_LOCATED_IN", "`]->() DETACH DELETE a //": "DETACH_DELETE_A",
		"": "RELATED_TO", "'\"": "RELATED_TO", "2nd supplier": "ND_SUPPLIER", "ѕupplies": "UPPLIES",
	}
	for in, want := range rels {
		if got := RelType(in); got != want {
			t.Errorf("RelType(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSanitizers(f *testing.F) {
	f.Add("`}) DETACH DELETE n //")
	f.Add("ünïcode`\"'")
	f.Fuzz(func(t *testing.T, s string) {
		if l := Label(s); !labelRe.MatchString(l) || len(l) > maxIdent {
			t.Fatalf("Label(%q) = %q", s, l)
		}
		if r := RelType(s); !relRe.MatchString(r) || len(r) > maxIdent+1 {
			t.Fatalf("RelType(%q) = %q", s, r)
		}
	})
}

func integrationLoader(t *testing.T) *Loader {
	t.Helper()
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Fatal("KGFORGE_INTEGRATION is set but NEO4J_URI is not")
	}
	l, err := New(context.Background(), Config{URI: uri, Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"), BatchSize: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

func buildBundle(t *testing.T, id string, g kg.Graph) *bundle.Bundle {
	t.Helper()
	out := t.TempDir()
	w, err := bundle.Create(out, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(bundle.Contents{Graph: g}, bundle.Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestLoaderIntegration_IdempotentAndInjectionSafe(t *testing.T) {
	l := integrationLoader(t)
	ctx := context.Background()
	hostile := []string{"`}) DETACH DELETE n //", "Company`:Admin", "Ｃompany", "x' OR 1=1 --"}
	g := kg.Graph{}
	for i, h := range hostile {
		id := kg.ID("n", h)
		g.Nodes = append(g.Nodes, kg.Node{ID: id, Name: h, Kind: kg.NodeConcept, Labels: []string{"Entity", h}, Properties: map[string]string{"type": h}})
		if i > 0 {
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(g.Nodes[0].ID, h, id), Src: g.Nodes[0].ID, Dst: id, Type: h, Evidence: h, Confidence: 1})
		}
	}
	g.Nodes = append(g.Nodes, kg.Node{ID: "doc1", Name: "a.md", Kind: kg.NodeDocument, Labels: []string{"Document"}})

	b1 := buildBundle(t, "build-1", g)
	st, err := l.Load(ctx, b1)
	if err != nil {
		t.Fatal(err)
	}
	nodes, rels, err := l.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nodes != int64(len(g.Nodes)) || rels != int64(len(g.Edges)) || st.Nodes != len(g.Nodes) {
		t.Fatalf("after load: %d nodes %d rels, want %d %d", nodes, rels, len(g.Nodes), len(g.Edges))
	}
	// The same bundle again changes nothing.
	if _, err := l.Load(ctx, b1); err != nil {
		t.Fatal(err)
	}
	if n2, r2, _ := l.Counts(ctx); n2 != nodes || r2 != rels {
		t.Errorf("reload changed counts: %d %d -> %d %d", nodes, rels, n2, r2)
	}
	// Names came through as data, untouched.
	res, err := l.query(ctx, "MATCH (n:KGNode {id: $id}) RETURN n.name AS name", map[string]any{"id": g.Nodes[0].ID})
	if err != nil || res != hostile[0] {
		t.Errorf("name = %q, %v", res, err)
	}
	// A new build without the hostile nodes replaces the old graph.
	g2 := kg.Graph{Nodes: g.Nodes[len(g.Nodes)-1:]}
	st, err = l.Load(ctx, buildBundle(t, "build-2", g2))
	if err != nil {
		t.Fatal(err)
	}
	if n3, r3, _ := l.Counts(ctx); n3 != 1 || r3 != 0 || st.StaleRemoved == 0 {
		t.Errorf("after build-2: %d nodes %d rels, removed %d", n3, r3, st.StaleRemoved)
	}
}
