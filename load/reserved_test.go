package load

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/consolidate"
	"kgforge/kg"
)

// spellings returns ways an LLM may spell a reserved name, the name itself
// first, each once.
func spellings(name string) []string {
	words := strings.ToLower(strings.ReplaceAll(name, "_", " "))
	var out []string
	for _, s := range []string{name, strings.ToLower(name), strings.ToUpper(name), words, " " + words + "!", "`" + name + "`"} {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestReservedNamesNeverComeFromExtractedTypes(t *testing.T) {
	for _, name := range reservedLabels {
		for _, s := range spellings(name) {
			got := NodeTypeLabel(kg.NodeConcept, s)
			if foldIn(got, reservedLabels) && got != "Entity" {
				t.Errorf("NodeTypeLabel(concept, %q) = %q, a reserved label", s, got)
			}
			if got == "" || !strings.HasSuffix(got, reservedLabelSuffix) && got != "Entity" {
				t.Errorf("NodeTypeLabel(concept, %q) = %q, want it with the suffix %q", s, got, reservedLabelSuffix)
			}
		}
	}
	// Each kind keeps its own structural label.
	for kind, own := range kindLabels {
		if got := NodeTypeLabel(kind, own); got != own {
			t.Errorf("NodeTypeLabel(%s, %q) = %q, want it kept", kind, own, got)
		}
		for _, internal := range []string{NodeLabel, BuildLabel} {
			if got := NodeTypeLabel(kind, internal); got != internal+reservedLabelSuffix {
				t.Errorf("NodeTypeLabel(%s, %q) = %q, want %q", kind, internal, got, internal+reservedLabelSuffix)
			}
		}
	}
	for _, name := range reservedRelTypes {
		if got := EdgeType(name); got != name {
			t.Errorf("EdgeType(%q) = %q, want the structural type kept", name, got)
		}
		for _, s := range spellings(name)[1:] {
			if got := EdgeType(s); foldIn(got, reservedRelTypes) || got != name+reservedRelTypeSuffix {
				t.Errorf("EdgeType(%q) = %q, want %q", s, got, name+reservedRelTypeSuffix)
			}
		}
	}
	for _, s := range []string{"supplier", "KGBuilder", "Documents", "located in"} {
		if NodeTypeLabel(kg.NodeConcept, s) != Label(s) || EdgeType(s) != RelType(s) {
			t.Errorf("%q: a name that is not reserved changed: %q, %q", s, NodeTypeLabel(kg.NodeConcept, s), EdgeType(s))
		}
	}
}

// TestReservedNamesCoverTheStructure checks that every node kind has its
// label and every structural edge type consolidate writes, and every link
// type of the link step, is reserved.
func TestReservedNamesCoverTheStructure(t *testing.T) {
	for _, k := range []kg.NodeKind{kg.NodeConcept, kg.NodeDocument, kg.NodeChunk, kg.NodeTable, kg.NodeColumn} {
		if l, ok := kindLabels[k]; !ok || !slices.Contains(reservedLabels, l) {
			t.Errorf("node kind %s has no reserved label", k)
		}
	}
	for _, e := range []string{
		consolidate.EdgeHasChunk, consolidate.EdgeMentions, consolidate.EdgeHasColumn, consolidate.EdgeJoins,
		kg.LinkRepresentedBy, kg.LinkMeasuredBy, kg.LinkRowOf, kg.LinkSameAs,
	} {
		if !slices.Contains(reservedRelTypes, e) {
			t.Errorf("structural edge type %s is not reserved", e)
		}
	}
}

// reservedGraph has an entity typed with each spelling of each reserved
// label, facts typed with each spelling of each reserved type, and one
// document with its chunk; salt changes every description.
func reservedGraph(salt string) kg.Graph {
	g := kg.Graph{Nodes: []kg.Node{
		{ID: "doc", Name: "a.md", Kind: kg.NodeDocument, Labels: []string{"Document"}},
		{ID: "chunk", Name: "a.md#0", Kind: kg.NodeChunk, Labels: []string{"Chunk"}},
	}, Edges: []kg.Edge{{ID: "doc-chunk", Src: "doc", Dst: "chunk", Type: consolidate.EdgeHasChunk, Confidence: 1}}}
	for _, name := range reservedLabels {
		for _, s := range spellings(name) {
			id := kg.ID("entity", s)
			g.Nodes = append(g.Nodes, kg.Node{
				ID: id, Name: "the " + s, Kind: kg.NodeConcept, Labels: []string{"Entity", s}, Description: salt,
				Properties: map[string]string{"type": s},
			})
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID("chunk", "MENTIONS", id), Src: "chunk", Dst: id, Type: consolidate.EdgeMentions, Confidence: 1})
		}
	}
	first := g.Nodes[2].ID
	for _, name := range reservedRelTypes {
		for i, s := range spellings(name)[1:] {
			dst := g.Nodes[3+i].ID
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(first, s, dst), Src: first, Dst: dst, Type: s, Evidence: salt, Confidence: 1})
		}
	}
	return g
}

func TestLoaderIntegration_ReservedTypesLoadAndTheNextLoadSucceeds(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	a, other := newLoader(t, uri, 7), newLoader(t, uri, 7)
	other.cfg.Graph += "-other"
	a.cfg.Full, other.cfg.Full = true, true // each round a new staged build
	// Both graphs hold the same entities, in builds of their own, twice.
	for round := range 2 {
		for _, l := range []*Loader{a, other} {
			g := reservedGraph(fmt.Sprint("round ", round))
			b := buildBundle(t, fmt.Sprintf("reserved-%d-%s", round, l.cfg.Graph), g)
			if _, err := l.Load(ctx, b); err != nil {
				t.Fatalf("round %d, graph %s: %v", round, l.cfg.Graph, err)
			}
			if got, want := graphState(t, l), bundleState(g); !slices.Equal(got, want) {
				t.Fatalf("round %d, graph %s: neo4j holds\n%q\nwant\n%q", round, l.cfg.Graph, got, want)
			}
			checkBuilds(t, l, b.Manifest.BuildID)
		}
	}
	cur, err := a.Current(ctx, a.cfg.Graph)
	if err != nil {
		t.Fatal(err)
	}
	// No node of the graph has a reserved label its kind does not own,
	// and an entity typed KGBuild keeps its type as a property.
	res, err := a.read(ctx, "MATCH (n:"+NodeLabel+" {build_id: $b}) UNWIND labels(n) AS l RETURN n.kind AS kind, l, count(*) AS n",
		map[string]any{"b": cur})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		kind, l := kg.NodeKind(r.Values[0].(string)), r.Values[1].(string)
		if l != NodeLabel && l != kindLabels[kind] && foldIn(l, reservedLabels) {
			t.Errorf("%d %s nodes have the reserved label %s", r.Values[2], kind, l)
		}
	}
	typ, err := a.query(ctx, "MATCH (n:"+NodeLabel+":Entity:KGBuildType {build_id: $b, name: 'the KGBuild'}) RETURN n.type", map[string]any{"b": cur})
	if err != nil || typ != "KGBuild" {
		t.Errorf("entity typed KGBuild: type = %q, %v; want a KGBuildType with type KGBuild", typ, err)
	}
}

// checkBuilds checks that the graph of l has one build record, current,
// complete and with id want, and that no node of kgforge is a build record.
func checkBuilds(t *testing.T, l *Loader, want string) {
	t.Helper()
	ctx := context.Background()
	res, err := l.read(ctx, "MATCH (b:"+BuildLabel+" {graph: $g}) RETURN b.id + ' ' + b.status + ' ' + toString(b.current) AS b", map[string]any{"g": l.cfg.Graph})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Records {
		got = append(got, r.Values[0].(string))
	}
	if w := want + " " + StatusComplete + " true"; !slices.Equal(got, []string{w}) {
		t.Errorf("graph %s: builds %q, want only %q", l.cfg.Graph, got, w)
	}
	n, err := l.query(ctx, "MATCH (n:"+NodeLabel+":"+BuildLabel+") RETURN count(n)", nil)
	if err != nil || n != "0" {
		t.Errorf("%s nodes are also %s: %s, %v", NodeLabel, BuildLabel, n, err)
	}
}

func TestLoaderIntegration_FailedLoadNeverBlocksTheNext(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	l, other := newLoader(t, uri, 50), newLoader(t, uri, 50)
	other.cfg.Graph += "-other"
	l.cfg.Full = true // staged builds that fail half-way (an incremental load fails whole)
	g1 := testGraph(300, "one")
	b1 := buildBundle(t, "first-"+t.Name(), g1)
	if _, err := l.Load(ctx, b1); err != nil {
		t.Fatal(err)
	}
	// Another graph holds the same entities; it must not see what follows.
	bo := buildBundle(t, "other-"+t.Name(), g1)
	if _, err := other.Load(ctx, bo); err != nil {
		t.Fatal(err)
	}
	wantOther := graphState(t, other)

	// Two loads of new builds die half-way, each leaving a build loading.
	var failed []string
	for i := range 2 {
		b := buildBundle(t, fmt.Sprintf("fail-%d-%s", i, t.Name()), testGraph(400, fmt.Sprint("fail ", i)))
		p := startProxy(t, uri)
		p.killAfter(60_000, true)
		lp, err := New(ctx, Config{
			URI: p.uri(), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
			BatchSize: 50, Graph: l.cfg.Graph, RetryTime: 2 * time.Second, Full: true,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = lp.Close(ctx) })
		if _, err := lp.Load(ctx, b); err == nil || p.killed.Load() == 0 {
			t.Fatalf("load %d through a dead connection: %v, %d cuts", i, err, p.killed.Load())
		}
		failed = append(failed, b.Manifest.BuildID)
	}
	// The second failed load removed what the first left.
	if n, _, err := l.countBuild(ctx, failed[0]); err != nil || n != 0 {
		t.Errorf("the build of the first failed load holds %d nodes after the second load (%v)", n, err)
	}
	if cur, err := l.Current(ctx, l.cfg.Graph); err != nil || cur != b1.Manifest.BuildID {
		t.Errorf("current = %s (%v), want %s", cur, err, b1.Manifest.BuildID)
	}

	g3 := testGraph(350, "three")
	b3 := buildBundle(t, "next-"+t.Name(), g3)
	if _, err := l.Load(ctx, b3); err != nil {
		t.Fatalf("the load after two failed ones: %v", err)
	}
	if got := graphState(t, l); !slices.Equal(got, bundleState(g3)) {
		t.Errorf("after the next load neo4j holds %d lines, want %d", len(got), len(bundleState(g3)))
	}
	checkBuilds(t, l, b3.Manifest.BuildID)
	for _, id := range append(failed, b1.Manifest.BuildID) {
		if n, _, err := l.countBuild(ctx, id); err != nil || n != 0 {
			t.Errorf("build %s left %d nodes (%v)", id, n, err)
		}
	}
	if got := graphState(t, other); !slices.Equal(got, wantOther) {
		t.Errorf("the other graph changed: %d lines, want %d", len(got), len(wantOther))
	}
	checkBuilds(t, other, bo.Manifest.BuildID)
}

func TestLoaderIntegration_BuildBelongsToOneGraph(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	a, other := newLoader(t, uri, 50), newLoader(t, uri, 50)
	other.cfg.Graph += "-other"
	g := testGraph(20, "one")
	b := buildBundle(t, "shared-"+t.Name(), g)
	if _, err := a.Load(ctx, b); err != nil {
		t.Fatal(err)
	}
	_, err := other.Load(ctx, b)
	if err == nil || !strings.Contains(err.Error(), "already loaded as graph "+fmt.Sprintf("%q", a.cfg.Graph)) {
		t.Errorf("loading a build of graph %s as %s: %v, want a refusal naming the graph", a.cfg.Graph, other.cfg.Graph, err)
	}
	if got := graphState(t, a); !slices.Equal(got, bundleState(g)) {
		t.Errorf("graph %s holds %d lines, want %d", a.cfg.Graph, len(got), len(bundleState(g)))
	}
	checkBuilds(t, a, b.Manifest.BuildID)
}
