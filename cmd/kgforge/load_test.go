package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/load"
)

// loadTestBundle writes a bundle of a small graph for pipeline name graph:
// n entities in a chain, salt in every description.
func loadTestBundle(t *testing.T, graph, build string, n int, salt string) string {
	t.Helper()
	var g kg.Graph
	for i := range n {
		g.Nodes = append(g.Nodes, kg.Node{
			ID: kg.ID("n", fmt.Sprint(i)), Name: fmt.Sprint("entity ", i), Kind: kg.NodeConcept,
			Labels: []string{"Entity", "Part"}, Description: salt + fmt.Sprint(i%5),
		})
		if i > 0 {
			src, dst := g.Nodes[i-1].ID, g.Nodes[i].ID
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(src, "part_of", dst), Src: src, Dst: dst, Type: "part_of", Confidence: 1})
		}
	}
	out := filepath.Join(t.TempDir(), build)
	w, err := bundle.Create(out, graph+"-"+build)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(bundle.Contents{Graph: g}, bundle.Manifest{Pipeline: graph}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLoadNeo4jIncrementalAndFull runs kgforge load neo4j against the real
// server: a first load is full, a changed bundle loads incrementally and
// says what it changed, --full loads it as a new staged build, and a bad
// --max-changes is a usage error.
func TestLoadNeo4jIncrementalAndFull(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" || os.Getenv("NEO4J_URI") == "" {
		t.Skip("needs KGFORGE_INTEGRATION=1 and NEO4J_URI")
	}
	ctx := context.Background()
	graph := fmt.Sprintf("kgforge-test-%08x-cli-load", rand.Uint32())
	l, err := load.New(ctx, *neo4jFromEnv(100), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := l.Drop(ctx, graph); err != nil {
			t.Error(err)
		}
		_ = l.Close(ctx)
	})
	a := loadTestBundle(t, graph, "a", 50, "one ")
	b := loadTestBundle(t, graph, "b", 52, "one ") // 2 nodes and 2 relationships more
	c := loadTestBundle(t, graph, "c", 52, "two ") // every description changed
	for _, s := range []struct {
		args []string
		want string
	}{
		{[]string{"--bundle", a}, "full (the graph has no current build): 50 nodes, 49 relationships"},
		{[]string{"--bundle", b}, "nodes 2 added, 0 removed, 0 changed, 50 unchanged; relationships 2 added, 0 removed, 0 changed, 49 unchanged"},
		{[]string{"--bundle", b}, "already loaded (52 nodes, 51 relationships), nothing written"},
		{[]string{"--bundle", c, "--full"}, "full (a full load was asked for): 52 nodes, 51 relationships, 52 stale removed"},
	} {
		out := cli(ctx, t, exitOK, append([]string{"load", "neo4j"}, s.args...)...)
		if !strings.Contains(out, s.want) {
			t.Errorf("kgforge load neo4j %s: %q, want %q", strings.Join(s.args, " "), out, s.want)
		}
	}
	if holds, err := l.Holds(ctx, graph); err != nil || holds != graph+"-c" {
		t.Errorf("the graph holds %q (%v), want build c", holds, err)
	}
	cli(ctx, t, exitUsage, "load", "neo4j", "--bundle", a, "--max-changes", "-1")
}
