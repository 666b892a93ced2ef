package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/kg"
)

// changedGraph is testGraph(n, salt) with a known set of changes: 3 nodes
// with a new description, 1 with a new type (labels and the property), 2
// removed with their edges, 2 added with an edge each; 2 edges with new
// evidence, 1 whose type became another (same id), 3 more removed. It
// returns the counts the incremental load of it over testGraph(n, salt)
// must report.
func changedGraph(n int, salt string) (kg.Graph, Changes) {
	g := testGraph(n, salt)
	var want Changes
	for i := range 3 {
		g.Nodes[i].Description += " (revised)"
	}
	g.Nodes[5].Labels = []string{"Entity", "Warehouse"}
	g.Nodes[5].Properties = map[string]string{"type": "Warehouse"}
	want.Nodes.Changed = 4
	gone := map[string]bool{g.Nodes[10].ID: true, g.Nodes[11].ID: true}
	g.Nodes = slices.DeleteFunc(g.Nodes, func(x kg.Node) bool { return gone[x.ID] })
	want.Nodes.Removed = 2
	edges := g.Edges[:0:0]
	for _, e := range g.Edges {
		if gone[e.Src] || gone[e.Dst] {
			want.Relationships.Removed++
			continue
		}
		edges = append(edges, e)
	}
	g.Edges = edges
	for i := range 2 {
		id := kg.ID("node", "new", fmt.Sprint(i))
		g.Nodes = append(g.Nodes, kg.Node{ID: id, Name: fmt.Sprint("new entity ", i), Kind: kg.NodeConcept, Labels: []string{"Entity", "Plant"}, Properties: map[string]string{"type": "Plant"}})
		g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(id, "located_in", g.Nodes[20].ID), Src: id, Dst: g.Nodes[20].ID, Type: "located_in", Confidence: 0.5, Evidence: "new"})
	}
	want.Nodes.Added, want.Relationships.Added = 2, 2
	g.Edges[0].Evidence += " (revised)"
	g.Edges[1].Confidence = 0.25
	g.Edges[2].Type = "competes_with" // the id stays: the relationship is replaced
	want.Relationships.Changed = 3
	g.Edges = slices.Delete(g.Edges, 3, 6)
	want.Relationships.Removed += 3
	want.Nodes.Unchanged = len(g.Nodes) - want.Nodes.Added - want.Nodes.Changed
	want.Relationships.Unchanged = len(g.Edges) - want.Relationships.Added - want.Relationships.Changed
	return g, want
}

// TestLoaderIntegration_IncrementalLoadEqualsFullLoad loads A, then B (A
// with nodes and relationships added, removed and changed, a node's labels
// and a relationship's type among them) incrementally, and checks that the
// graph equals a full load of B into another graph — every node and
// relationship with its labels or type and properties — that the load
// reports the changes, and that loading B again, or a new bundle with B's
// content, changes nothing.
func TestLoaderIntegration_IncrementalLoadEqualsFullLoad(t *testing.T) {
	ctx := context.Background()
	l := newLoader(t, neo4jURI(t), 7)
	ref := newLoader(t, l.cfg.URI, 7)
	ref.cfg.Graph += "-full"
	gA := testGraph(120, "a")
	gB, want := changedGraph(120, "a")
	bA, bB := buildBundle(t, "inc-a-"+t.Name(), gA), buildBundle(t, "inc-b-"+t.Name(), gB)

	st, err := l.Load(ctx, bA)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != ModeFull || st.Reason != "the graph has no current build" {
		t.Errorf("first load: mode %q (%s), want full", st.Mode, st.Reason)
	}
	st, err = l.Load(ctx, bB)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != ModeIncremental || st.Changes == nil || *st.Changes != want {
		t.Fatalf("incremental load: mode %q (%s), changes %+v, want %+v", st.Mode, st.Reason, st.Changes, want)
	}
	if st.Previous != bA.Manifest.BuildID || st.NodesBuild != bA.Manifest.BuildID || st.Nodes != len(gB.Nodes) || st.Relationships != len(gB.Edges) {
		t.Errorf("stats %+v", st)
	}
	if _, err := ref.Load(ctx, bB); err != nil {
		t.Fatal(err)
	}
	got, full := fullState(t, l), fullState(t, ref)
	if !slices.Equal(got, full) {
		t.Fatalf("the incremental load differs from a full load of B:\n got %q\nwant %q", got, full)
	}
	if g := graphState(t, l); !slices.Equal(g, bundleState(gB)) {
		t.Errorf("neo4j holds %d lines, bundle B %d", len(g), len(bundleState(gB)))
	}
	if holds, err := l.Holds(ctx, l.cfg.Graph); err != nil || holds != bB.Manifest.BuildID {
		t.Errorf("Holds = %q, %v; want B", holds, err)
	}
	checkBuilds(t, l, bA.Manifest.BuildID)

	// Again: B is already loaded; a new bundle with B's content changes nothing.
	if st, err = l.Load(ctx, bB); err != nil || !st.AlreadyLoaded || st.Mode != ModeIncremental {
		t.Errorf("reload of B: %+v, %v", st, err)
	}
	st, err = l.Load(ctx, buildBundle(t, "inc-b2-"+t.Name(), gB))
	if err != nil {
		t.Fatal(err)
	}
	same := Changes{Nodes: Delta{Unchanged: len(gB.Nodes)}, Relationships: Delta{Unchanged: len(gB.Edges)}}
	if st.Mode != ModeIncremental || *st.Changes != same {
		t.Errorf("a bundle with B's content: mode %q, changes %+v, want %+v", st.Mode, st.Changes, same)
	}
	if got := fullState(t, l); !slices.Equal(got, full) {
		t.Errorf("a bundle with B's content changed neo4j")
	}
	// Back to A in full: a new staged build, though A's id is on the nodes.
	l.cfg.Full = true
	if st, err = l.Load(ctx, bA); err != nil || st.Mode != ModeFull || st.NodesBuild != bA.Manifest.BuildID+"-reload" {
		t.Fatalf("full reload of A: %+v, %v", st, err)
	}
	if g := graphState(t, l); !slices.Equal(g, bundleState(gA)) {
		t.Errorf("after the full reload of A neo4j holds %d lines, A has %d", len(g), len(bundleState(gA)))
	}
	checkBuilds(t, l, bA.Manifest.BuildID+"-reload")
}

// errInjected is what the test double Loader.fault returns.
var errInjected = errors.New("fault injected by the test double Loader.fault")

// TestLoaderIntegration_IncrementalFailureLeavesPreviousGraph fails an
// incremental load at every step of its transaction (a fault injected by
// the test double Loader.fault), cancels one half-way and cuts the
// connection of another for good, and checks each time that A is still
// current and whole; then cuts the connection right after the commit
// reached the server (the loader must find out that it committed), and
// finally loads B and checks it.
func TestLoaderIntegration_IncrementalFailureLeavesPreviousGraph(t *testing.T) {
	ctx := context.Background()
	uri := neo4jURI(t)
	l := newLoader(t, uri, 5)
	gA := testGraph(150, "a")
	gB, _ := changedGraph(150, "a")
	for i := range gB.Nodes[:60] { // enough bytes for the proxy to cut mid-way
		gB.Nodes[i].Description = strings.Repeat("revised ", 40)
	}
	bA, bB := buildBundle(t, "incfail-a-"+t.Name(), gA), buildBundle(t, "incfail-b-"+t.Name(), gB)
	if _, err := l.Load(ctx, bA); err != nil {
		t.Fatal(err)
	}
	stateA := fullState(t, l)
	checkA := func(what string) {
		t.Helper()
		if got := fullState(t, l); !slices.Equal(got, stateA) {
			t.Fatalf("%s: the graph is not A any more (%d lines, A has %d)", what, len(got), len(stateA))
		}
		if holds, err := l.Holds(ctx, l.cfg.Graph); err != nil || holds != bA.Manifest.BuildID {
			t.Fatalf("%s: the graph holds %q (%v), want A", what, holds, err)
		}
		checkBuilds(t, l, bA.Manifest.BuildID)
	}
	for _, step := range []string{"remove relationships", "remove nodes", "add nodes", "change nodes", "add relationships", "count", "record", "commit"} {
		calls := 0
		l.fault = func(s string) error {
			if s == step {
				calls++
				return fmt.Errorf("%w at %s", errInjected, s)
			}
			return nil
		}
		st, err := l.Load(ctx, bB)
		if !errors.Is(err, errInjected) || calls == 0 || st.Mode != ModeIncremental {
			t.Fatalf("fault at %s: %v (%d calls, mode %q)", step, err, calls, st.Mode)
		}
		checkA("fault at " + step)
	}

	cctx, cancel := context.WithCancel(ctx)
	l.fault = func(s string) error {
		if s == "add relationships" {
			cancel()
		}
		return nil
	}
	if _, err := l.Load(cctx, bB); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled mid-way: %v", err)
	}
	l.fault = nil
	checkA("cancelled mid-way")

	p := startProxy(t, uri)
	lp, err := New(ctx, Config{
		URI: p.uri(), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
		BatchSize: 5, Graph: l.cfg.Graph, RetryTime: 2 * time.Second,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lp.Close(ctx) })
	lp.fault = func(s string) error {
		if s == "add nodes" {
			p.killAfter(8_000, true)
			lp.fault = nil
		}
		return nil
	}
	if _, err := lp.Load(ctx, bB); err == nil || p.killed.Load() == 0 {
		t.Fatalf("incremental load through a dead connection: %v, %d cuts", err, p.killed.Load())
	}
	checkA("connection cut for good")

	// The commit reaches the server, its answer never comes back.
	p2 := startProxy(t, uri)
	lc, err := New(ctx, Config{
		URI: p2.uri(), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
		BatchSize: 5, Graph: l.cfg.Graph, RetryTime: 10 * time.Second,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lc.Close(ctx) })
	lc.fault = func(s string) error {
		if s == "commit" {
			p2.killAfterCommits(1)
		}
		return nil
	}
	st, err := lc.Load(ctx, bB)
	if err != nil {
		t.Fatal(err)
	}
	if p2.killed.Load() == 0 || st.Retries == 0 {
		t.Errorf("the commit's answer was not lost: %d cuts, %d retries", p2.killed.Load(), st.Retries)
	}
	if got := graphState(t, l); !slices.Equal(got, bundleState(gB)) {
		t.Errorf("after the load whose commit answer was lost neo4j holds %d lines, B has %d", len(got), len(bundleState(gB)))
	}
	if st, err := l.Load(ctx, bB); err != nil || !st.AlreadyLoaded {
		t.Errorf("B again: %+v, %v", st, err)
	}
	checkBuilds(t, l, bA.Manifest.BuildID)
}

// TestLoaderIntegration_LoadIsFullWhenIncrementalIsNotSafe checks the
// choice of a full load: when asked, when the current build has no content
// hashes (loaded by an older kgforge) and when more than MaxChanges nodes
// and relationships changed.
func TestLoaderIntegration_LoadIsFullWhenIncrementalIsNotSafe(t *testing.T) {
	ctx := context.Background()
	l := newLoader(t, neo4jURI(t), 50)
	g := testGraph(60, "a")
	if _, err := l.Load(ctx, buildBundle(t, "choose-0", g)); err != nil {
		t.Fatal(err)
	}
	g2, want := changedGraph(60, "a")
	n := want.Nodes.Added + want.Nodes.Removed + want.Nodes.Changed + want.Relationships.Added + want.Relationships.Removed + want.Relationships.Changed
	cases := []struct {
		name   string
		arm    func()
		reason string
	}{
		{"asked", func() { l.cfg.Full = true }, "a full load was asked for"},
		{"no hashes", func() {
			if err := l.write(ctx, "MATCH (b:"+BuildLabel+" {graph: $g}) REMOVE b.hashed", map[string]any{"g": l.cfg.Graph}); err != nil {
				t.Fatal(err)
			}
		}, "loaded without content hashes"},
		{"too many changes", func() { l.cfg.MaxChanges = n - 1 }, fmt.Sprintf("more than %d nodes and relationships changed", n-1)},
	}
	for i, c := range cases {
		l.cfg.Full, l.cfg.MaxChanges = false, 0
		c.arm()
		gi := g
		if i%2 == 0 {
			gi = g2
		}
		st, err := l.Load(ctx, buildBundle(t, fmt.Sprintf("choose-%d", i+1), gi))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if st.Mode != ModeFull || !strings.Contains(st.Reason, c.reason) || st.Changes != nil {
			t.Errorf("%s: mode %q (%s), want full (%s)", c.name, st.Mode, st.Reason, c.reason)
		}
		if got := graphState(t, l); !slices.Equal(got, bundleState(gi)) {
			t.Errorf("%s: neo4j holds %d lines, the bundle %d", c.name, len(got), len(bundleState(gi)))
		}
		g = gi
		g2, _ = changedGraph(60, fmt.Sprint("a", i))
	}
}

// TestContentHashSeesEveryChange checks that the content hash of a node
// changes with its labels and every property, and of an edge with its
// type, ends and properties, and with nothing else.
func TestContentHashSeesEveryChange(t *testing.T) {
	n := kg.Node{ID: "n1", Name: "Acme", Kind: kg.NodeConcept, Labels: []string{"Entity", "Company"}, Description: "d", Properties: map[string]string{"type": "Company", "x": "1"}}
	_, base := nodeRow(n)
	same := n
	same.Properties = map[string]string{"x": "1", "type": "Company"}
	if _, r := nodeRow(same); rowHash(r) != rowHash(base) {
		t.Error("the same node hashes differently")
	}
	for what, change := range map[string]func(*kg.Node){
		"labels":      func(m *kg.Node) { m.Labels = []string{"Entity", "Supplier"} },
		"name":        func(m *kg.Node) { m.Name = "Acme Ltd" },
		"description": func(m *kg.Node) { m.Description = "" },
		"property":    func(m *kg.Node) { m.Properties = map[string]string{"type": "Company", "x": "2"} },
		"aliases":     func(m *kg.Node) { m.Aliases = []string{"ACME"} },
	} {
		m := n
		change(&m)
		if _, r := nodeRow(m); rowHash(r) == rowHash(base) {
			t.Errorf("a change of the node's %s keeps its hash", what)
		}
	}
	e := kg.Edge{ID: "e1", Src: "a", Dst: "b", Type: "supplies", Confidence: 1, Evidence: "a supplies b"}
	_, eb := edgeRow(e)
	for what, change := range map[string]func(*kg.Edge){
		"type":       func(x *kg.Edge) { x.Type = "buys_from" },
		"src":        func(x *kg.Edge) { x.Src = "c" },
		"dst":        func(x *kg.Edge) { x.Dst = "c" },
		"confidence": func(x *kg.Edge) { x.Confidence = 0.5 },
		"evidence":   func(x *kg.Edge) { x.Evidence = "" },
		"chunks":     func(x *kg.Edge) { x.ChunkIDs = []string{"c1"} },
	} {
		x := e
		change(&x)
		if _, r := edgeRow(x); rowHash(r) == rowHash(eb) {
			t.Errorf("a change of the edge's %s keeps its hash", what)
		}
	}
	if got := lost("Company:Entity", "Entity:Supplier"); !slices.Equal(got, []string{"Company"}) {
		t.Errorf("lost = %q", got)
	}
	if _, err := storedKey("n1", []any{NodeLabel, "Entity", "Bad`Label"}); err == nil {
		t.Error("a label kgforge never writes was accepted into a statement")
	}
}
