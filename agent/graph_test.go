package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/network"

	"kgforge/bench/synth"
	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// supplyGraph is a small graph whose answers are worked out by hand in
// the tests: three suppliers, two contracts (dated), three parts (one
// alone, named like another) and a plant. Undirected, its edges form a
// tree over every node but the lone part:
//
//	c1 - s1 - p1 - s2 - c2
//	          |
//	          pl - p2 - s3
func supplyGraph() kg.Graph {
	node := func(id, name, label string) kg.Node {
		return kg.Node{ID: id, Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity", label}}
	}
	edge := func(src, typ, dst, from, to string) kg.Edge {
		return kg.Edge{ID: kg.EdgeID(src, typ, dst), Src: src, Dst: dst, Type: typ, Confidence: 1, ValidFrom: from, ValidTo: to}
	}
	return kg.Graph{
		Nodes: []kg.Node{
			node("s1", "Kestrel Alloys", "Supplier"), node("s2", "Orbit Metals", "Supplier"), node("s3", "Nimbus Parts", "Supplier"),
			node("c1", "Contract A", "Contract"), node("c2", "Contract B", "Contract"),
			node("p1", "Frame", "Part"), node("p2", "Fork", "Part"), node("lone", "Fork", "Part"),
			node("pl", "Brno Plant", "Plant"),
		},
		Edges: []kg.Edge{
			edge("s1", "HAS_CONTRACT", "c1", "2021-01-01", "2023-12-31"),
			edge("s2", "HAS_CONTRACT", "c2", "2024-03", ""),
			edge("s1", "SUPPLIES", "p1", "", ""),
			edge("s2", "SUPPLIES", "p1", "", ""),
			edge("s3", "SUPPLIES", "p2", "", ""),
			edge("p1", "USED_AT", "pl", "", ""),
			edge("p2", "USED_AT", "pl", "", ""),
		},
	}
}

// graphBundle writes g as a bundle with the bundle writer and opens it.
func graphBundle(t testing.TB, g kg.Graph) *bundle.Bundle {
	t.Helper()
	out := t.TempDir()
	w, err := bundle.Create(out, "b1")
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

func graphToolbox(t testing.TB, g kg.Graph) *Toolbox {
	t.Helper()
	tb, err := NewToolbox(context.Background(), graphBundle(t, g), duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	return tb
}

type graphCase struct {
	name, tool, args string
	want             []string // in this order
	not              []string
}

func runGraphCases(t *testing.T, tb *Toolbox, cases []graphCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := tb.Call(context.Background(), c.tool, json.RawMessage(c.args))
			if err != nil {
				t.Fatalf("%s %s: %v", c.tool, c.args, err)
			}
			rest := out
			for _, w := range c.want {
				k := strings.Index(rest, w)
				if k < 0 {
					t.Fatalf("%s %s returned\n%s\nwant %q (in the order given)", c.tool, c.args, out, w)
				}
				rest = rest[k+len(w):]
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("%s %s returned\n%s\nwhich should not hold %q", c.tool, c.args, out, n)
				}
			}
		})
	}
}

func TestGraphLocalOperatorsAnswerTheSupplyGraph(t *testing.T) {
	tb := graphToolbox(t, supplyGraph())
	if tb.graph != nil {
		t.Fatal("the graph was loaded before the first graph call")
	}
	runGraphCases(t, tb, []graphCase{
		{"neighbours in", ToolNeighbours, `{"node":"p1","direction":"in"}`, []string{`p1 "Frame" (Entity, Part): 2 edges (SUPPLIES out 0 in 2)`, `<-[SUPPLIES]- s1 "Kestrel Alloys"`, `<-[SUPPLIES]- s2`}, []string{"USED_AT", "shown"}},
		{"neighbours by name and type", ToolNeighbours, `{"node":"brno plant","types":["used_at"]}`, []string{"2 edges", `<-[USED_AT]- p2 "Fork"`, `<-[USED_AT]- p1 "Frame"`}, nil},
		{"neighbours capped", ToolNeighbours, `{"node":"p1","limit":1}`, []string{"3 edges", "SUPPLIES out 0 in 2; USED_AT out 1 in 0", `<-[SUPPLIES]- s1`, "(1 of 3 shown;"}, []string{"s2"}},
		{"path both ways", ToolPath, `{"from":"s3","to":"c1"}`, []string{"a shortest path of 5 edges:\ns3", "-[SUPPLIES]-> p2", "-[USED_AT]-> pl", "<-[USED_AT]- p1", "<-[SUPPLIES]- s1", "-[HAS_CONTRACT]-> c1"}, nil},
		{"path forward only", ToolPath, `{"from":"s3","to":"c1","direction":"out"}`, []string{"no path from s3", "direction out"}, nil},
		{"path by types", ToolPath, `{"from":"s1","to":"s2","types":["HAS_CONTRACT"]}`, []string{"no path"}, nil},
		{"path forward", ToolPath, `{"from":"s1","to":"pl","direction":"out"}`, []string{"2 edges", "-[SUPPLIES]-> p1", "-[USED_AT]-> pl"}, nil},
		{"subgraph k=1", ToolSubgraph, `{"node":"s1"}`, []string{"3 nodes within 1 edges", "[0] s1", "0 away", "[1] c1", "1 away", "[2] p1", "2 edges among them", "[0] -[HAS_CONTRACT]-> [1]", "[0] -[SUPPLIES]-> [2]"}, []string{"s2", "more lie"}},
		{"subgraph k=2", ToolSubgraph, `{"node":"s1","k":2}`, []string{"5 nodes within 2 edges", "s2", "2 away", "pl", "2 away", "4 edges among them"}, []string{"c2", "p2"}},
		{"subgraph capped", ToolSubgraph, `{"node":"s1","k":3,"limit":2}`, []string{"2 nodes within 3 edges (the first 2; more lie within 3"}, nil},
		{"subgraph forward", ToolSubgraph, `{"node":"s1","k":3,"direction":"out"}`, []string{"4 nodes within 3 edges", "pl", "2 away"}, []string{"s2"}},
		{"degree of a node", ToolDegree, `{"node":"p1"}`, []string{"degree 3", "SUPPLIES out 0 in 2; USED_AT out 1 in 0"}, nil},
		{"top degree of a label", ToolDegree, `{"label":"part"}`, []string{"top 3 of 3 nodes by degree (direction both)", "1. 3 p1", "2. 2 p2", "3. 0 lone"}, nil},
		{"top degree by type", ToolDegree, `{"types":["SUPPLIES"],"direction":"out","k":2}`, []string{"top 2 of 9 nodes", "1. 1 s1", "2. 1 s2"}, []string{"s3"}},
		{"complement of a label", ToolComplement, `{"label":"Supplier","types":["HAS_CONTRACT"],"direction":"out","target_label":"Contract"}`, []string{"1 of 3 nodes labelled Supplier have no HAS_CONTRACT edge (direction out) to any node labelled Contract", `s3 "Nimbus Parts"`}, []string{"s1 ", "s2 "}},
		{"complement of a node", ToolComplement, `{"label":"Supplier","types":["HAS_CONTRACT"],"target":"c1"}`, []string{"2 of 3", "to c1", `s3 "Nimbus Parts"`, `s2 "Orbit Metals"`}, []string{"s1 "}},
		{"complement wrong direction", ToolComplement, `{"label":"Supplier","types":["HAS_CONTRACT"],"direction":"in"}`, []string{"3 of 3"}, nil},
		{"complement any edge", ToolComplement, `{"label":"Part"}`, []string{"1 of 3 nodes labelled Part have no (any type) edge (direction both) to any node", "lone"}, nil},
		{"valid in 2022", ToolValidAt, `{"date":"2022-06-01"}`, []string{"1 edges valid at 2022-06-01 (of 2 dated edges", "s1 \"Kestrel Alloys\" -[HAS_CONTRACT]-> c1", "from 2021-01-01 to 2023-12-31"}, []string{"c2"}},
		{"valid in May 2024", ToolValidAt, `{"date":"2024-05"}`, []string{"1 edges", "-[HAS_CONTRACT]-> c2", "from 2024-03-01 to open"}, nil},
		{"valid from March 2024 by its month", ToolValidAt, `{"date":"2024-03-01","node":"s2"}`, []string{"1 edges"}, nil},
		{"valid in 2020", ToolValidAt, `{"date":"2020"}`, []string{"0 edges valid at 2020"}, nil},
		{"valid over a year", ToolValidAt, `{"date":"2023"}`, []string{"1 edges", "c1"}, nil},
	})
	if tb.graph == nil {
		t.Error("the graph was not kept after the first call")
	}
}

func TestGraphGlobalOperatorsAnswerTheSupplyGraph(t *testing.T) {
	tb := graphToolbox(t, supplyGraph())
	runGraphCases(t, tb, []graphCase{
		// A tree: a node's betweenness is the number of ordered pairs it
		// separates. p1 splits {s1,c1}, {s2,c2}, {pl,p2,s3}: 2(4+6+6) = 32;
		// pl splits 5 from 2: 20; s1 and s2 and p2 split 1 from 6: 12.
		{"betweenness exact", ToolBetweenness, `{"k":3}`, []string{"betweenness (exact)", "1. 32 p1", "2. 20 pl", "3. 12"}, nil},
		{"betweenness from every source", ToolBetweenness, `{"k":2,"pivots":9}`, []string{"estimated from 9 sampled sources of 9", "1. 32 p1", "2. 20 pl"}, nil},
		{"betweenness of a label", ToolBetweenness, `{"label":"Contract"}`, []string{"top 2 of 2", "1. 0 c1", "2. 0 c2"}, nil},
		{"pagerank", ToolPageRank, `{"k":1}`, []string{"top 1 of 9 nodes by PageRank", "1. ", " pl "}, nil},
		{"pagerank of a label", ToolPageRank, `{"label":"Supplier"}`, []string{"top 3 of 3"}, []string{"p1"}},
		{"components", ToolComponents, `{"node":"lone"}`, []string{"2 connected components over 9 nodes", "largest sizes: 8, 1; 1 nodes stand alone", "lone \"Fork\" (Entity, Part) is in component 2 of 1 nodes:\nlone"}, nil},
		{"components by type", ToolComponents, `{"types":["HAS_CONTRACT"],"node":"c2","limit":1}`, []string{"7 connected components", "largest sizes: 2, 2, 1, 1, 1, 1, 1; 5 nodes stand alone", "of 2 nodes:", "c2", "(1 of 2 shown"}, nil},
		{"removal splits", ToolRemoval, `{"node":"pl"}`, []string{"joins 7 other nodes", "fall into 2 parts of sizes 5, 2; 2 nodes lose touch with the largest part:", "p2 \"Fork\"", "s3 \"Nimbus Parts\""}, []string{"s1 "}},
		{"removal of a leaf", ToolRemoval, `{"node":"c1"}`, []string{"joins 7 other nodes", "into 1 parts: removing it cuts nobody off"}, nil},
		{"removal to a target", ToolRemoval, `{"node":"p1","target":"c1"}`, []string{"7 nodes connect to c1", "5 of them no longer do", "Brno Plant", "Contract B", "Fork", "Nimbus Parts", "Orbit Metals"}, []string{"Kestrel"}},
		{"removal to a target forward", ToolRemoval, `{"node":"p2","target":"pl","direction":"out"}`, []string{"5 nodes reach pl", "1 of them no longer do", "s3"}, []string{"s1 "}},
		{"removal off the path", ToolRemoval, `{"node":"c2","target":"pl","direction":"out"}`, []string{"0 of them no longer do", "c2 is not on any such path"}, nil},
	})
}

func TestGraphOperatorsSayHowToCallRight(t *testing.T) {
	tb := graphToolbox(t, supplyGraph())
	cases := []struct{ tool, args, kind, says string }{
		{ToolNeighbours, `{"node":"nope"}`, FailNotFound, "use grep to find a node's id"},
		{ToolNeighbours, `{}`, FailMalformed, "no node given"},
		{ToolNeighbours, `{"node":"Fork"}`, FailNotFound, "2 nodes are named \"Fork\" (pass one id: p2"},
		{ToolNeighbours, `{"node":"p1","direction":"up"}`, FailMalformed, `"enum":["out","in","both"]`},
		{ToolNeighbours, `{"node":"p1","types":["OWNS"]}`, FailNotFound, "the edge types are SUPPLIES (3), HAS_CONTRACT (2), USED_AT (2)"},
		{ToolNeighbours, `{"id":"p1"}`, FailMalformed, `unknown field "id"`},
		{ToolNeighbours, `{"node":"p1","limit":500}`, FailMalformed, "from 1 to 200"},
		{ToolPath, `{"from":"p1"}`, FailMalformed, "no node given"},
		{ToolPath, `{"from":"p1","to":"pl","direction":"in"}`, FailMalformed, "direction in is not one this tool takes"},
		{ToolSubgraph, `{"node":"p1","k":4}`, FailMalformed, "k is 4; it must be from 1 to 3"},
		{ToolDegree, `{"node":"p1","label":"Part"}`, FailMalformed, "not both"},
		{ToolDegree, `{"label":"Widget"}`, FailNotFound, "the labels are Entity (9), Part (3), Supplier (3)"},
		{ToolComplement, `{"types":["SUPPLIES"]}`, FailMalformed, "no label given"},
		{ToolComplement, `{"label":"Part","target":"p1","target_label":"Part"}`, FailMalformed, "not both"},
		{ToolValidAt, `{"date":"June 2024"}`, FailMalformed, "is not YYYY, YYYY-MM or YYYY-MM-DD"},
		{ToolValidAt, `{"date":"2024-13-01"}`, FailMalformed, "YYYY-MM-DD"},
		{ToolBetweenness, `{"pivots":5000}`, FailMalformed, "from 1 to 1024"},
		{ToolPageRank, `{"k":0.5}`, FailMalformed, "arguments do not fit"},
		{ToolRemoval, `{"node":"p1","target":"p1"}`, FailMalformed, "the same node"},
		{ToolRemoval, `{"node":"p1","direction":"out"}`, FailMalformed, "needs a target"},
		{ToolRemoval, `{"node":"p1","target":"ghost"}`, FailNotFound, "grep"},
	}
	for _, c := range cases {
		_, err := tb.Call(context.Background(), c.tool, json.RawMessage(c.args))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != c.kind || !strings.Contains(ce.Error(), c.says) {
			t.Errorf("%s %s: err = %v, want a %s call error saying %q", c.tool, c.args, err, c.kind, c.says)
		}
	}
}

func TestValidAtSaysWhenTheBundleHasNoDatedEdges(t *testing.T) {
	g := supplyGraph()
	for i := range g.Edges {
		g.Edges[i].ValidFrom, g.Edges[i].ValidTo = "", ""
	}
	tb := graphToolbox(t, g)
	out, err := tb.Call(context.Background(), ToolValidAt, json.RawMessage(`{"date":"2022"}`))
	if err != nil || out != "the bundle has no dated edges: none of its 7 edges has a valid_from or valid_to" {
		t.Errorf("valid_at = %q, %v", out, err)
	}
}

func TestParseDateReadsPartialDatesAsTheirFirstOrLastDay(t *testing.T) {
	cases := []struct {
		in   string
		end  bool
		want int32
		ok   bool
	}{
		{"", false, 0, true},
		{"2024", false, 20240101, true},
		{"2024", true, 20241231, true},
		{"2024-02", true, 20240229, true},
		{"2023-02", true, 20230228, true},
		{"2024-02-10", true, 20240210, true},
		{"2024-02-10T08:00:00Z", false, 20240210, true},
		{"24-02-10", false, 0, false},
		{"2024-2", false, 0, false},
		{"2024-00", false, 0, false},
		{"soon", false, 0, false},
	}
	for _, c := range cases {
		if got, ok := parseDate(c.in, c.end); got != c.want || ok != c.ok {
			t.Errorf("parseDate(%q, %v) = %d, %v; want %d, %v", c.in, c.end, got, ok, c.want, c.ok)
		}
	}
}

func TestSampledBetweennessFromEverySourceEqualsGonums(t *testing.T) {
	sg := synth.Graph(300, 900, 3)
	g, err := loadGraph(context.Background(), sliceStream(sg.Nodes), sliceStream(sg.Edges))
	if err != nil {
		t.Fatal(err)
	}
	view := g.undirectedView(nil, -1)
	want := network.Betweenness(view)
	got, err := sampledBetweenness(context.Background(), view.from, pivotsOf(len(g.ids), len(g.ids)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d nodes with a betweenness, gonum has %d", len(got), len(want))
	}
	for id, w := range want {
		if math.Abs(got[id]-w) > 1e-9*max(1, w) {
			t.Errorf("node %d: betweenness %g, gonum %g", id, got[id], w)
		}
	}
}

func sliceStream[T any](items []T) func(context.Context, func(T) error) error {
	return func(_ context.Context, fn func(T) error) error {
		for _, x := range items {
			if err := fn(x); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestGraphOperatorsOnTheExampleBundle(t *testing.T) {
	tb, err := NewToolbox(context.Background(), exampleBundle(t), duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	runGraphCases(t, tb, []graphCase{
		{"path along the facts", ToolPath, `{"from":"Ana Ferreira","to":"fatigue test","direction":"out"}`, []string{"a shortest path of 2 edges:", `"Ana Ferreira" (Entity, Person)`, `-[quarantined]-> `, `"Batch KA-2503-17" (Entity, Batch)`, `-[failed]-> `, `"fatigue test" (Entity, Test)`}, nil},
		{"neighbours of a fact's node", ToolNeighbours, `{"node":"Batch KA-2503-17","types":["failed","quarantined"]}`, []string{"2 edges (failed out 1 in 0; quarantined out 0 in 1)", `-[failed]-> `, `"fatigue test"`, `<-[quarantined]- `, `"Ana Ferreira"`}, []string{"MENTIONS"}},
		// suppliers.csv lists 8 suppliers; the facts say two of them supply a part.
		{"suppliers that supply nothing", ToolComplement, `{"label":"Supplier","types":["supplies"],"direction":"out"}`, []string{"6 of 8 nodes labelled Supplier", "Atlas Saddles", "Carpathia Tyres", "Danubia Wheelworks", "Lumen Cell Systems", "Nordhavn Drivetrain", "Serra Brakes"}, []string{"Kestrel", "Tagus"}},
		{"the only path to a test", ToolRemoval, `{"node":"Batch KA-2503-17","target":"fatigue test","direction":"out"}`, []string{"1 of them no longer do", `"Ana Ferreira"`}, nil},
		{"no dates", ToolValidAt, `{"date":"2025-03-12"}`, []string{"the bundle has no dated edges"}, nil},
		{"components", ToolComponents, `{"node":"Sheffield","limit":1}`, []string{"connected components over", "is in component 1 of"}, nil},
	})
}

func TestGraphDegreeOfEveryExampleNodeEqualsItsEdgeRowsInSQL(t *testing.T) {
	tb, err := NewToolbox(context.Background(), exampleBundle(t), duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	g, err := tb.graphOf(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := tb.rows(context.Background(), "SELECT n.id, count(e.id) FROM nodes n LEFT JOIN edges e ON e.src = n.id OR e.dst = n.id GROUP BY n.id", 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(g.ids) || len(rows) < 50 {
		t.Fatalf("SQL has %d nodes, the graph %d", len(rows), len(g.ids))
	}
	for _, r := range rows {
		i, ok := g.index[r[0]]
		if !ok {
			t.Errorf("node %s is not in the graph", r[0])
			continue
		}
		if got := fmt.Sprint(g.degree(i, dirBoth, nil)); got != r[1] {
			t.Errorf("node %s: degree %s, SQL counts %s edges", r[0], got, r[1])
		}
	}
}

func TestNeighboursCountsOnlyTheMostCommonTypesOfAHub(t *testing.T) {
	g := kg.Graph{Nodes: []kg.Node{{ID: "hub", Name: "Hub", Kind: kg.NodeConcept, Labels: []string{"Entity"}}}}
	for k := range 14 {
		leaf, typ := fmt.Sprintf("leaf%02d", k), fmt.Sprintf("T%02d", k)
		g.Nodes = append(g.Nodes, kg.Node{ID: leaf, Name: leaf, Kind: kg.NodeConcept, Labels: []string{"Entity"}})
		for j := 0; j <= k%3; j++ { // T02, T05, ... have three edges, T01, T04, ... two
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID("hub", typ, leaf) + fmt.Sprint(j), Src: "hub", Dst: leaf, Type: typ, Confidence: 1})
		}
	}
	out, err := graphToolbox(t, g).Call(context.Background(), ToolDegree, json.RawMessage(`{"node":"hub"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "degree 27 (T02 out 3 in 0; T05 out 3 in 0; T08 out 3 in 0; T11 out 3 in 0; T01 out 2 in 0; T04 out 2 in 0; T07 out 2 in 0; T10 out 2 in 0; T13 out 2 in 0; T00 out 1 in 0; T03 out 1 in 0; T06 out 1 in 0; and 2 more types)"
	if !strings.HasSuffix(out, want) {
		t.Errorf("degree = %q, want it to end %q", out, want)
	}
}

func TestGraphToolSchemasAreObjectsWithARequiredArray(t *testing.T) {
	tb := graphToolbox(t, supplyGraph())
	for _, tool := range tb.graphTools() {
		var s struct {
			Type       string                     `json:"type"`
			Required   json.RawMessage            `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.Params, &s); err != nil {
			t.Errorf("%s: schema is not JSON: %v", tool.Name, err)
			continue
		}
		var required []string
		if s.Type != "object" || !strings.HasPrefix(string(s.Required), "[") || json.Unmarshal(s.Required, &required) != nil {
			t.Errorf("%s: schema %s is not an object with a required array", tool.Name, tool.Params)
		}
		for _, r := range required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name, r)
			}
		}
		for name, p := range s.Properties {
			var ps struct{ Type string }
			if json.Unmarshal(p, &ps) != nil || ps.Type == "" {
				t.Errorf("%s: property %s has no type: %s", tool.Name, name, p)
			}
		}
	}
}

func TestPageRankListsTheSameRanksEveryCall(t *testing.T) {
	// gonum starts each PageRank from a random vector: the scores differ
	// in their last digits from call to call, and nodes of equal rank
	// must still come in one order.
	example, err := NewToolbox(context.Background(), exampleBundle(t), duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = example.Close() })
	for name, tb := range map[string]*Toolbox{"example": example, "synthetic": graphToolbox(t, synth.Graph(3_000, 9_000, 2))} {
		first, err := tb.Call(context.Background(), ToolPageRank, json.RawMessage(`{"k":50}`))
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			if out, _ := tb.Call(context.Background(), ToolPageRank, json.RawMessage(`{"k":50}`)); out != first {
				t.Fatalf("%s: pagerank changed between calls:\n%s\n----\n%s", name, first, out)
			}
		}
	}
}
