package synth

import (
	"reflect"
	"regexp"
	"testing"

	"kgforge/kg"
)

var (
	hexID     = regexp.MustCompile(`^[0-9a-f]{32}$`)
	snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	spanProp  = regexp.MustCompile(`^[0-9a-f]{32}:[0-9]+-[0-9]+$`)
)

func TestGraph_Shape(t *testing.T) {
	const nodes, rels = 5000, 15000
	g := Graph(nodes, rels, 1)
	if len(g.Nodes) != nodes || len(g.Edges) != rels {
		t.Fatalf("got %d nodes, %d edges; want %d, %d", len(g.Nodes), len(g.Edges), nodes, rels)
	}
	byID := map[string]kg.Node{}
	kinds := map[kg.NodeKind]int{}
	typesSeen := map[string]bool{}
	for _, n := range g.Nodes {
		if !hexID.MatchString(n.ID) {
			t.Fatalf("node id %q is not 32 hex digits", n.ID)
		}
		if _, dup := byID[n.ID]; dup {
			t.Fatalf("duplicate node id %s", n.ID)
		}
		byID[n.ID] = n
		kinds[n.Kind]++
	}
	for _, n := range g.Nodes {
		if n.Kind != kg.NodeConcept {
			continue
		}
		typ := n.Properties["type"]
		typesSeen[typ] = true
		if !reflect.DeepEqual(n.Labels, []string{"Entity", typ}) {
			t.Errorf("node %s: labels %v, type %q", n.ID, n.Labels, typ)
		}
		if l := len(n.Description); l < 80 || l > 150 {
			t.Errorf("node %s: description of %d bytes: %q", n.ID, l, n.Description)
		}
		if len(n.Aliases) < 1 || len(n.Aliases) > 3 {
			t.Errorf("node %s: %d aliases", n.ID, len(n.Aliases))
		}
		if len(n.ChunkIDs) < 1 || len(n.ChunkIDs) > 4 {
			t.Errorf("node %s: %d chunk ids", n.ID, len(n.ChunkIDs))
		}
		for _, c := range n.ChunkIDs {
			if byID[c].Kind != kg.NodeChunk {
				t.Errorf("node %s cites %s, which is not a chunk node", n.ID, c)
			}
		}
	}
	if other := nodes - kinds[kg.NodeConcept]; other < nodes*4/100 || other > nodes*6/100 {
		t.Errorf("%d document and chunk nodes of %d, want about 5%%", other, nodes)
	}
	if len(typesSeen) != len(types) {
		t.Errorf("%d entity types used, want %d", len(typesSeen), len(types))
	}

	edgeIDs := map[string]bool{}
	predicatesSeen := map[string]bool{}
	for _, e := range g.Edges {
		if edgeIDs[e.ID] {
			t.Fatalf("duplicate edge id %s", e.ID)
		}
		edgeIDs[e.ID] = true
		if e.ID != kg.EdgeID(e.Src, e.Type, e.Dst) {
			t.Errorf("edge %s: id is not kg.EdgeID(src, type, dst)", e.ID)
		}
		if _, ok := byID[e.Src]; !ok {
			t.Errorf("edge %s: unknown src %s", e.ID, e.Src)
		}
		if _, ok := byID[e.Dst]; !ok {
			t.Errorf("edge %s: unknown dst %s", e.ID, e.Dst)
		}
		if e.Type == edgeHasChunk || e.Type == edgeMentions {
			continue
		}
		predicatesSeen[e.Type] = true
		if !snakeCase.MatchString(e.Type) || e.Src == e.Dst {
			t.Errorf("edge %s: type %q, src %s, dst %s", e.ID, e.Type, e.Src, e.Dst)
		}
		if l := len(e.Evidence); l < 80 || l > 130 {
			t.Errorf("edge %s: evidence of %d bytes", e.ID, l)
		}
		if e.Confidence != 1 && e.Confidence != 0.9 {
			t.Errorf("edge %s: confidence %v", e.ID, e.Confidence)
		}
		if !spanProp.MatchString(e.Properties["evidence_span"]) || len(e.ChunkIDs) == 0 {
			t.Errorf("edge %s: evidence_span %q, chunk ids %v", e.ID, e.Properties["evidence_span"], e.ChunkIDs)
		}
	}
	if len(predicatesSeen) != len(predicates) {
		t.Errorf("%d predicates used, want %d", len(predicatesSeen), len(predicates))
	}
}

func TestGraph_Deterministic(t *testing.T) {
	a, b := Graph(500, 1500, 7), Graph(500, 1500, 7)
	if !reflect.DeepEqual(a, b) {
		t.Error("two graphs from the same seed differ")
	}
	if c := Graph(500, 1500, 8); reflect.DeepEqual(a.Edges, c.Edges) {
		t.Error("graphs from different seeds are equal")
	}
}

func TestGraph_SmallGraphsEnd(t *testing.T) {
	cases := []struct {
		name       string
		nodes      int
		rels       int
		wantNodes  int
		wantAtMost int
	}{
		{"empty", 0, 10, 0, 0},
		{"one node", 1, 10, 1, 0},
		{"two nodes: 2 directions × 30 predicates", 2, 1000, 2, 60},
		{"three nodes, more edges than fit", 3, 1000, 3, 2},
		{"no edges", 100, 0, 100, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := Graph(tc.nodes, tc.rels, 1)
			if len(g.Nodes) != tc.wantNodes || len(g.Edges) > tc.wantAtMost {
				t.Errorf("got %d nodes, %d edges; want %d nodes, at most %d edges", len(g.Nodes), len(g.Edges), tc.wantNodes, tc.wantAtMost)
			}
		})
	}
}
