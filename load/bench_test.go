package load

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/bench/synth"
	"kgforge/bundle"
	"kgforge/kg"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The Neo4j load benchmarks run against the server of scripts/neo4j.sh
// (bench/neo4j.sh runs them and prints the table of docs/benchmarks.md):
//
//	KGFORGE_INTEGRATION=1 go test ./load -run '^$' -bench Neo4j -benchtime 1x -timeout 2h
//
// KGFORGE_BENCH_NODES and KGFORGE_BENCH_RELS size the synthetic graph
// (default 100,000 and 300,000); KGFORGE_BENCH_NAIVE is the number of
// triplets the naive loader gets (default 10,000: it is measured as a rate);
// KGFORGE_BENCH_LOADERS picks batch sizes and workers, e.g. 5000x2,1000x1.

func benchSize(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchBundle writes the synthetic graph as a bundle once per process.
func benchBundle(b *testing.B, id string) (*bundle.Bundle, kg.Graph) {
	b.Helper()
	g := synth.Graph(benchSize("KGFORGE_BENCH_NODES", 100_000), benchSize("KGFORGE_BENCH_RELS", 300_000), 1)
	out := b.TempDir()
	w, err := bundle.Create(out, id)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(bundle.Contents{Graph: g}, bundle.Manifest{Pipeline: "bench"}); err != nil {
		b.Fatal(err)
	}
	bu, err := bundle.Open(out)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bu.Close() })
	return bu, g
}

// benchGraph is the graph the benchmarks load, dropped when they end.
const benchGraph = "kgforge-bench"

func benchLoader(b *testing.B, batch, workers int) *Loader {
	b.Helper()
	if os.Getenv("KGFORGE_INTEGRATION") == "" || os.Getenv("NEO4J_URI") == "" {
		b.Skip("needs KGFORGE_INTEGRATION=1 and NEO4J_URI (make services)")
	}
	l, err := New(context.Background(), Config{
		URI: os.Getenv("NEO4J_URI"), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
		BatchSize: batch, Workers: workers, Graph: benchGraph,
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// heapPeak samples the Go heap in use until stop is called and returns the
// peak above the heap at the start.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); return peak.Load() }
}

// BenchmarkNeo4jLoad loads the synthetic graph as a new build (staged beside
// the previous one, switched, the previous removed), once per batch size,
// then reloads the same bundle.
func BenchmarkNeo4jLoad(b *testing.B) {
	configs := []struct{ batch, workers int }{{1000, 1}, {5000, 1}, {1000, 2}, {5000, 2}, {5000, 4}}
	if v := os.Getenv("KGFORGE_BENCH_LOADERS"); v != "" { // e.g. 5000x2,1000x1
		configs = configs[:0]
		for _, f := range strings.Split(v, ",") {
			var c struct{ batch, workers int }
			if _, err := fmt.Sscanf(f, "%dx%d", &c.batch, &c.workers); err != nil {
				b.Fatalf("KGFORGE_BENCH_LOADERS: %q is not BATCHxWORKERS", f)
			}
			configs = append(configs, c)
		}
	}
	admin := benchLoader(b, 1000, 1)
	b.Cleanup(func() {
		if _, err := admin.Drop(context.Background(), benchGraph); err != nil {
			b.Error(err)
		}
	})
	for _, c := range configs {
		batch := c.batch
		b.Run(fmt.Sprintf("batch=%d/workers=%d", c.batch, c.workers), func(b *testing.B) {
			l := benchLoader(b, c.batch, c.workers)
			bu, _ := benchBundle(b, fmt.Sprintf("bench-%d-%d", batch, time.Now().UnixNano()))
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				stop := heapPeak()
				st, err := l.Load(ctx, bu)
				peak := stop()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(st.Nodes)/st.NodesTime.Seconds(), "nodes/s")
				b.ReportMetric(float64(st.Relationships)/st.RelsTime.Seconds(), "rels/s")
				b.ReportMetric(st.Duration.Seconds(), "s/load")
				b.ReportMetric(float64(peak)/(1<<20), "MiB-heap-peak")
				b.ReportMetric(float64(st.StaleRemoved), "stale-nodes")
				start := time.Now()
				st, err = l.Load(ctx, bu)
				if err != nil || !st.AlreadyLoaded {
					b.Fatalf("reload: %+v, %v", st, err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "s/reload")
			}
		})
	}
}

// BenchmarkNeo4jNaive loads triplets the way most LLM graph builders do: one
// auto-commit statement per triplet that MERGEs both ends by name and the
// relationship between them (with an index on the name, which is the best
// case for it). It runs on the first KGFORGE_BENCH_NAIVE facts of the same
// graph and reports the rate, to compare with rels/s of BenchmarkNeo4jLoad.
func BenchmarkNeo4jNaive(b *testing.B) {
	l := benchLoader(b, 1000, 1)
	g := synth.Graph(benchSize("KGFORGE_BENCH_NODES", 100_000), benchSize("KGFORGE_BENCH_RELS", 300_000), 1)
	names := map[string]kg.Node{}
	for _, n := range g.Nodes {
		names[n.ID] = n
	}
	limit := benchSize("KGFORGE_BENCH_NAIVE", 10_000)
	ctx := context.Background()
	if err := l.write(ctx, "CREATE INDEX naive_name IF NOT EXISTS FOR (n:NaiveEntity) ON (n.name)", nil); err != nil {
		b.Fatal(err)
	}
	clean := func() {
		for {
			n, err := l.writeCount(ctx, "MATCH (n:NaiveEntity) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n", nil)
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	clean()
	b.Cleanup(clean)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		done := 0
		for _, e := range g.Edges {
			if done == limit {
				break
			}
			s, o := names[e.Src], names[e.Dst]
			_, err := neo4j.ExecuteQuery(ctx, l.driver,
				"MERGE (a:NaiveEntity {name: $s}) SET a.description = $sd "+
					"MERGE (b:NaiveEntity {name: $o}) SET b.description = $od "+
					"MERGE (a)-[r:RELATED {type: $p}]->(b) SET r.evidence = $ev, r.confidence = $c",
				map[string]any{"s": s.Name, "sd": s.Description, "o": o.Name, "od": o.Description, "p": e.Type, "ev": e.Evidence, "c": e.Confidence},
				neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(l.cfg.Database))
			if err != nil {
				b.Fatal(err)
			}
			done++
		}
		b.ReportMetric(float64(done)/time.Since(start).Seconds(), "rels/s")
		b.ReportMetric(float64(done), "triplets")
	}
}

// changePercent returns g with about pct % of its nodes and of its
// relationships changed: of the nodes, 2/5 get a new description, 1/5 are
// removed (with their relationships) and 1/5 added, 1/5 change their type
// (labels); of the relationships, 2/5 get new evidence, 1/5 are removed and
// 2/5 added between existing nodes. Concept nodes only; the same for the
// same arguments.
func changePercent(g kg.Graph, pct float64, seed uint64) kg.Graph {
	r := rand.New(rand.NewPCG(seed, 1)) //nolint:gosec // benchmark data
	nodes := int(float64(len(g.Nodes)) * pct / 100)
	rels := int(float64(len(g.Edges)) * pct / 100)
	out := kg.Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
	var concepts []int
	for i, n := range out.Nodes {
		if n.Kind == kg.NodeConcept {
			concepts = append(concepts, i)
		}
	}
	r.Shuffle(len(concepts), func(i, j int) { concepts[i], concepts[j] = concepts[j], concepts[i] })
	gone := map[string]bool{}
	for k, i := range concepts[:nodes*4/5] {
		n := &out.Nodes[i]
		switch {
		case k < nodes*2/5:
			n.Description += " (revised)"
		case k < nodes*3/5:
			n.Labels = []string{"Entity", "Revised"}
			n.Properties = map[string]string{"type": "Revised"}
		default:
			gone[n.ID] = true
		}
	}
	out.Nodes = slices.DeleteFunc(out.Nodes, func(n kg.Node) bool { return gone[n.ID] })
	out.Edges = slices.DeleteFunc(out.Edges, func(e kg.Edge) bool { return gone[e.Src] || gone[e.Dst] })
	for i := range nodes / 5 {
		id := kg.ID("entity", "bench added", fmt.Sprint(seed, i))
		out.Nodes = append(out.Nodes, kg.Node{
			ID: id, Name: fmt.Sprint("added entity ", i), Kind: kg.NodeConcept,
			Labels: []string{"Entity", "Company"}, Description: "added", Properties: map[string]string{"type": "Company"},
		})
	}
	for k := range rels * 3 / 5 {
		i := r.IntN(len(out.Edges))
		if k < rels*2/5 {
			out.Edges[i].Evidence += " (revised)"
		} else {
			out.Edges = slices.Delete(out.Edges, i, i+1)
		}
	}
	for i := range rels * 2 / 5 {
		src, dst := out.Nodes[r.IntN(len(out.Nodes))].ID, out.Nodes[r.IntN(len(out.Nodes))].ID
		out.Edges = append(out.Edges, kg.Edge{ID: kg.EdgeID(src, "bench_added", dst) + fmt.Sprint(i), Src: src, Dst: dst, Type: "bench_added", Confidence: 0.5, Evidence: "added"})
	}
	return out
}

// BenchmarkNeo4jIncremental loads the synthetic graph in full, then the same
// graph with 1 % of its nodes and relationships changed (KGFORGE_BENCH_PCT)
// incrementally, then that bundle again in full (a new staged build, as
// with --full), and reports the time of each.
func BenchmarkNeo4jIncremental(b *testing.B) {
	l := benchLoader(b, DefaultBatchSize, DefaultWorkers)
	ctx := context.Background()
	b.Cleanup(func() {
		if _, err := l.Drop(context.Background(), benchGraph); err != nil {
			b.Error(err)
		}
	})
	pct := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("KGFORGE_BENCH_PCT"), 64); err == nil && v > 0 {
		pct = v
	}
	g := synth.Graph(benchSize("KGFORGE_BENCH_NODES", 100_000), benchSize("KGFORGE_BENCH_RELS", 300_000), 1)
	for range b.N {
		stamp := time.Now().UnixNano()
		bA := graphBundle(b, fmt.Sprintf("bench-a-%d", stamp), g)
		gB := changePercent(g, pct, uint64(stamp))
		bB := graphBundle(b, fmt.Sprintf("bench-b-%d", stamp), gB)
		l.cfg.Full = true
		stA, err := l.Load(ctx, bA)
		if err != nil {
			b.Fatal(err)
		}
		l.cfg.Full = false
		last, lastStep := time.Now(), "start" // the test double Loader.fault only times the steps here
		l.fault = func(step string) error {
			if step != lastStep {
				b.Logf("step %s after %s took %s", step, lastStep, time.Since(last).Round(time.Millisecond))
				last, lastStep = time.Now(), step
			}
			return nil
		}
		stop := heapPeak()
		st, err := l.Load(ctx, bB)
		peak := stop()
		if err != nil || st.Mode != ModeIncremental {
			b.Fatalf("incremental load: %+v, %v", st, err)
		}
		c := st.Changes
		b.Logf("incremental: nodes %+v, relationships %+v; compare %s, apply %s", c.Nodes, c.Relationships, st.DiffTime.Round(time.Millisecond), st.ApplyTime.Round(time.Millisecond))
		l.fault = nil
		l.cfg.Full = true
		stF, err := l.Load(ctx, graphBundle(b, fmt.Sprintf("bench-b2-%d", stamp), gB)) // B's graph as a new build

		if err != nil || stF.Mode != ModeFull {
			b.Fatalf("full reload: %+v, %v", stF, err)
		}
		b.ReportMetric(stA.Duration.Seconds(), "s/full-A")
		b.ReportMetric(st.Duration.Seconds(), "s/incremental")
		b.ReportMetric(st.DiffTime.Seconds(), "s/compare")
		b.ReportMetric(st.ApplyTime.Seconds(), "s/apply")
		b.ReportMetric(stF.Duration.Seconds(), "s/full-B")
		b.ReportMetric(float64(c.Nodes.Added+c.Nodes.Removed+c.Nodes.Changed), "nodes-changed")
		b.ReportMetric(float64(c.Relationships.Added+c.Relationships.Removed+c.Relationships.Changed), "rels-changed")
		b.ReportMetric(float64(peak)/(1<<20), "MiB-heap-peak")
	}
}

// graphBundle writes g as a bundle of the pipeline "bench".
func graphBundle(b *testing.B, id string, g kg.Graph) *bundle.Bundle {
	b.Helper()
	out := b.TempDir()
	w, err := bundle.Create(out, id)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(bundle.Contents{Graph: g}, bundle.Manifest{Pipeline: "bench"}); err != nil {
		b.Fatal(err)
	}
	bu, err := bundle.Open(out)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bu.Close() })
	return bu
}
