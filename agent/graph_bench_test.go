package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"

	"kgforge/bench/synth"
	"kgforge/internal/duck"
)

// The graph operators on a synthetic graph (bench/synth: documents, chunks
// and concepts shaped like kgforge's) of KGFORGE_BENCH_RELS edges (default
// 1M) over KGFORGE_BENCH_NODES nodes (default 300k), written as a bundle
// and loaded by the first graph call, as the agent does:
//
//	go test -run '^$' -bench BenchmarkGraphOperators -benchtime 1x -timeout 30m ./agent/
//
// Each sub-benchmark reports its wall and CPU time per call (cpu-ms: the
// process's, GC included; on a shared machine wall time mostly says how
// busy the others were); load also reports the heap the loaded graph holds
// (MB-held), load-full-rows the same read through every column, and
// gonum-copy what a copy into gonum's own simple.DirectedGraph would hold
// on top.
func BenchmarkGraphOperators(b *testing.B) {
	nodes, rels := benchEnv("KGFORGE_BENCH_NODES", 300_000), benchEnv("KGFORGE_BENCH_RELS", 1_000_000)
	bun := graphBundle(b, synth.Graph(nodes, rels, 1)) // the generated graph is garbage once written
	var tb *Toolbox
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			var err error
			if tb, err = NewToolbox(context.Background(), bun, duck.SandboxLimits{}); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = tb.Close() })
			before, cpu := heapInUse(), cpuTime()
			if _, err := tb.graphOf(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e6, "cpu-ms")
			b.ReportMetric(float64(heapInUse()-before)/1e6, "MB-held")
		}
		g := tb.graph
		b.Logf("%d nodes, %d edges, %d edge types, %d labels, %d dated edges", len(g.ids), len(g.eID), len(g.typeNames), len(g.labelNames), g.dated)
	})
	b.Run("load-full-rows", func(b *testing.B) { // every column, as bundle.Nodes and Edges read them
		for b.Loop() {
			before, cpu := heapInUse(), cpuTime()
			full, err := loadGraph(context.Background(), bun.Nodes, bun.Edges)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e6, "cpu-ms")
			b.ReportMetric(float64(heapInUse()-before)/1e6, "MB-held")
			runtime.KeepAlive(full)
		}
	})
	g := tb.graph
	b.Run("gonum-copy", func(b *testing.B) {
		for b.Loop() {
			before, cpu := heapInUse(), cpuTime()
			d := gonumCopy(g)
			b.ReportMetric(float64(cpuTime()-cpu)/1e6, "cpu-ms")
			b.ReportMetric(float64(heapInUse()-before)/1e6, "MB-held")
			runtime.KeepAlive(d)
		}
	})
	hub, a, z := benchNodes(g)
	for _, c := range benchCalls(g, hub, a, z) {
		b.Run(c.name, func(b *testing.B) {
			var out string
			cpu := cpuTime()
			for b.Loop() {
				var err error
				if out, err = tb.Call(context.Background(), c.tool, json.RawMessage(c.args)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
			b.Logf("%s %s:\n%s", c.tool, c.args, firstLines(out, 4))
		})
	}
}

type benchCall struct{ name, tool, args string }

func benchCalls(g *graphState, hub, a, z int32) []benchCall {
	id := func(i int32) string { return strconv.Quote(g.ids[i]) }
	return []benchCall{
		{"neighbours-hub", ToolNeighbours, `{"node":` + id(hub) + `}`},
		{"path", ToolPath, `{"from":` + id(a) + `,"to":` + id(z) + `}`},
		{"path-typed-out", ToolPath, `{"from":` + id(a) + `,"to":` + id(z) + `,"direction":"out","types":["supplies","manufactures","part_of","uses"]}`},
		{"subgraph-k2", ToolSubgraph, `{"node":` + id(a) + `,"k":2}`},
		{"subgraph-k3-hub", ToolSubgraph, `{"node":` + id(hub) + `,"k":3}`},
		{"degree-node", ToolDegree, `{"node":` + id(hub) + `}`},
		{"degree-top-label", ToolDegree, `{"label":"Company","types":["supplies"],"direction":"out"}`},
		{"complement", ToolComplement, `{"label":"Company","types":["supplies"],"direction":"out","target_label":"Part"}`},
		{"valid-at", ToolValidAt, `{"date":"2022-06-01"}`},
		{"pagerank", ToolPageRank, `{"k":10}`},
		{"pagerank-label-typed", ToolPageRank, `{"k":10,"label":"Company","types":["supplies","buys_from"]}`},
		{"betweenness-64-pivots", ToolBetweenness, `{"k":10}`},
		{"betweenness-256-pivots", ToolBetweenness, `{"k":10,"pivots":256}`},
		{"components", ToolComponents, `{"node":` + id(a) + `}`},
		{"components-typed", ToolComponents, `{"types":["supplies"]}`},
		{"removal-hub", ToolRemoval, `{"node":` + id(hub) + `}`},
		{"removal-target", ToolRemoval, `{"node":` + id(hub) + `,"target":` + id(z) + `}`},
	}
}

// benchNodes picks the node of most edges and two concepts far apart in
// the node order.
func benchNodes(g *graphState) (hub, a, z int32) {
	best := -1
	for i := range int32(len(g.ids)) {
		if d := len(g.outE.row(i)) + len(g.inE.row(i)); d > best {
			hub, best = i, d
		}
	}
	entity := slices.Index(g.labelNames, "Entity")
	m := g.labelMembers[entity]
	return hub, m[len(m)/10], m[len(m)*9/10]
}

// BenchmarkBetweennessExactAgainstSampled measures gonum's exact
// betweenness on growing synthetic graphs beside the sampled estimate, and
// how many of the exact top 10 the estimate finds:
//
//	go test -run '^$' -bench BenchmarkBetweennessExactAgainstSampled -benchtime 1x -timeout 30m ./agent/
func BenchmarkBetweennessExactAgainstSampled(b *testing.B) {
	for _, rels := range []int{1_000, 3_000, 10_000, 30_000} {
		sg := synth.Graph(rels*3/10, rels, 1)
		g, err := loadGraph(context.Background(), sliceStream(sg.Nodes), sliceStream(sg.Edges))
		if err != nil {
			b.Fatal(err)
		}
		view := g.undirectedView(nil, -1)
		var exact map[int64]float64
		b.Run(fmt.Sprintf("exact-%d-edges", rels), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				exact = network.Betweenness(view)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
		for _, p := range []int{64, 256} {
			b.Run(fmt.Sprintf("sampled-%d-pivots-%d-edges", p, rels), func(b *testing.B) {
				var est map[int64]float64
				cpu := cpuTime()
				for b.Loop() {
					est, _ = sampledBetweenness(context.Background(), view.from, pivotsOf(len(g.ids), p))
				}
				b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(topOverlap(exact, est, 10)), "top10-found")
			})
		}
	}
}

// topOverlap counts the nodes of x's top k that are in y's top k.
func topOverlap(x, y map[int64]float64, k int) int {
	top := func(m map[int64]float64) []int64 {
		ids := make([]int64, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b int64) int {
			if m[a] != m[b] {
				if m[a] > m[b] {
					return -1
				}
				return 1
			}
			return int(a - b)
		})
		return ids[:min(k, len(ids))]
	}
	ty, n := top(y), 0
	for _, id := range top(x) {
		if slices.Contains(ty, id) {
			n++
		}
	}
	return n
}

// gonumCopy copies the graph into gonum's own directed graph, for its size.
func gonumCopy(g *graphState) *simple.DirectedGraph {
	d := simple.NewDirectedGraph()
	for i := range int64(len(g.ids)) {
		d.AddNode(simple.Node(i))
	}
	for e := range g.eSrc {
		u, v := int64(g.eSrc[e]), int64(g.eDst[e])
		if u != v && !d.HasEdgeFromTo(u, v) {
			d.SetEdge(simple.Edge{F: simple.Node(u), T: simple.Node(v)})
		}
	}
	return d
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func benchEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func firstLines(s string, n int) string {
	for i, c := 0, 0; i < len(s); i++ {
		if s[i] == '\n' {
			if c++; c == n {
				return s[:i]
			}
		}
	}
	return s
}
