package bundle

import (
	"context"
	"testing"

	"kgforge/bench/synth"
	"kgforge/kg"
)

func TestGraphNodesAndEdgesFillTheWalkFieldsOnly(t *testing.T) {
	g := synth.Graph(200, 600, 5)
	out := t.TempDir()
	w, err := Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(Contents{Graph: g}, Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	ctx := context.Background()
	var nodes []kg.Node
	if err := b.GraphNodes(ctx, func(n kg.Node) error { nodes = append(nodes, n); return nil }); err != nil {
		t.Fatal(err)
	}
	var edges []kg.Edge
	if err := b.GraphEdges(ctx, func(e kg.Edge) error { edges = append(edges, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(g.Nodes) || len(edges) != len(g.Edges) {
		t.Fatalf("%d nodes and %d edges, want %d and %d", len(nodes), len(edges), len(g.Nodes), len(g.Edges))
	}
	for i, n := range g.Nodes {
		want := kg.Node{ID: n.ID, Name: n.Name, Kind: n.Kind, Labels: n.Labels}
		if got := nodes[i]; got.ID != want.ID || got.Name != want.Name || got.Kind != want.Kind || len(got.Labels) != len(want.Labels) || got.Description != "" || got.Properties != nil {
			t.Fatalf("node %d = %+v, want %+v", i, got, want)
		}
	}
	dated := 0
	for i, e := range g.Edges {
		want := kg.Edge{ID: e.ID, Src: e.Src, Dst: e.Dst, Type: e.Type, ValidFrom: e.ValidFrom, ValidTo: e.ValidTo}
		got := edges[i]
		if got.ID != want.ID || got.Src != want.Src || got.Dst != want.Dst || got.Type != want.Type || got.ValidFrom != want.ValidFrom || got.ValidTo != want.ValidTo || got.Evidence != "" || got.ChunkIDs != nil || got.Properties != nil {
			t.Fatalf("edge %d = %+v, want %+v", i, got, want)
		}
		if e.ValidFrom != "" {
			dated++
		}
	}
	if dated == 0 {
		t.Error("the test graph has no dated edge to read back")
	}
}
