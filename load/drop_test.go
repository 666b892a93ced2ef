package load

import (
	"context"
	"slices"
	"testing"
)

// TestLoaderIntegration_DropRemovesItsGraphOnly loads two graphs, drops one
// and checks that nothing of it is left (nodes, relationships, build
// records) while the other graph is whole: the cleanup every test that
// loads Neo4j runs at its end.
func TestLoaderIntegration_DropRemovesItsGraphOnly(t *testing.T) {
	ctx := context.Background()
	l := newLoader(t, neo4jURI(t), 7)
	other := newLoader(t, l.cfg.URI, 7)
	other.cfg.Graph = l.cfg.Graph + "-kept"
	for _, x := range []*Loader{l, other} { // whatever the test leaves, the graphs go
		t.Cleanup(func() { _, _ = x.Drop(ctx, x.cfg.Graph) })
	}
	for _, b := range []struct {
		l  *Loader
		id string
	}{{l, "drop-1"}, {other, "kept-1"}, {l, "drop-2"}} { // two builds of the dropped graph: the second is current
		if _, err := b.l.Load(ctx, buildBundle(t, b.id+"-"+t.Name(), testGraph(40, b.id))); err != nil {
			t.Fatal(err)
		}
	}
	kept := graphState(t, other)

	n, err := l.Drop(ctx, l.cfg.Graph)
	if err != nil {
		t.Fatal(err)
	}
	if n != 40 {
		t.Errorf("Drop removed %d nodes, want 40 (the current build; the load of drop-2 removed drop-1's)", n)
	}
	res, err := l.read(ctx, "MATCH (b:"+BuildLabel+" {graph: $g}) OPTIONAL MATCH (n:"+NodeLabel+" {build_id: b.id}) RETURN count(DISTINCT b) AS builds, count(n) AS nodes",
		map[string]any{"g": l.cfg.Graph})
	if err != nil {
		t.Fatal(err)
	}
	if builds, nodes := res.Records[0].Values[0].(int64), res.Records[0].Values[1].(int64); builds != 0 || nodes != 0 {
		t.Errorf("after Drop the graph still has %d build records and %d nodes", builds, nodes)
	}
	if cur, err := l.Current(ctx, l.cfg.Graph); err != nil || cur != "" {
		t.Errorf("after Drop the current build is %q (%v), want none", cur, err)
	}
	if got := graphState(t, other); len(got) == 0 || !slices.Equal(got, kept) {
		t.Errorf("Drop changed the other graph: %d lines, had %d", len(got), len(kept))
	}
	if n, err := l.Drop(ctx, l.cfg.Graph); err != nil || n != 0 {
		t.Errorf("a second Drop removed %d nodes (%v), want 0", n, err)
	}
	if _, err := l.Drop(ctx, ""); err == nil {
		t.Error("Drop of an unnamed graph succeeded")
	}
}
