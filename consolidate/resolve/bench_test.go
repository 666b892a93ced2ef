package resolve

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The synthetic data of the benchmarks: names in gaussian blobs of 384
// dimensions (one blob per topic, members at cosine about 0.4 to each
// other), a fifth of them planted duplicates of another name at cosine
// about 0.85 to 0.98, with variant spellings.
const benchDim = 384

var (
	syllables = strings.Fields("ka ro mi tel an sor vex lu din pra qua zen bo rit hal mon fer gra jus pel nor tri vos lem cas dun")
	variants  = []func(string) string{
		func(s string) string { return s + " Inc." },
		strings.ToUpper,
		func(s string) string { return s + "s" },
		func(s string) string { return "The " + s },
		func(s string) string { return s + " GmbH" },
		func(s string) string { return strings.ReplaceAll(s, " ", "-") },
	}
)

// synthetic returns n entities and, for each planted duplicate, the key of
// the entity it duplicates.
func synthetic(n, dim int, seed uint64) ([]Entity, map[string]string) {
	rng := rand.New(rand.NewPCG(seed, 0x6b67))
	blobs := max(1, n/100)
	centres := make([][]float32, blobs)
	for b := range centres {
		centres[b] = gaussian(rng, dim, 1, nil)
	}
	word := func() string {
		var sb strings.Builder
		for range 2 + rng.IntN(2) {
			sb.WriteString(syllables[rng.IntN(len(syllables))])
		}
		w := sb.String()
		return strings.ToUpper(w[:1]) + w[1:]
	}
	types := []string{"Organization", "Organization", "Person", "Product", ""}
	ents := make([]Entity, n)
	dupOf := map[string]string{}
	bases := n - n/5
	spread := 1.2 / math.Sqrt(float64(dim))
	for k := range ents {
		e := &ents[k]
		e.Key = fmt.Sprintf("e%08d", k)
		e.Mentions = 1 + rng.IntN(20)
		e.Evidence = rng.IntN(10)
		if k < bases {
			e.Name = word() + " " + word()
			e.Type = types[rng.IntN(len(types))]
			e.Vector = gaussian(rng, dim, spread, centres[rng.IntN(blobs)])
			continue
		}
		b := &ents[rng.IntN(bases)]
		dupOf[e.Key] = b.Key
		e.Name = variants[rng.IntN(len(variants))](b.Name)
		e.Type = b.Type
		noise := (0.2 + 0.4*rng.Float64()) / math.Sqrt(float64(dim))
		e.Vector = gaussian(rng, dim, noise*length(b.Vector), b.Vector)
	}
	return ents, dupOf
}

// gaussian returns centre (or zero) plus gaussian noise of the given
// standard deviation per coordinate.
func gaussian(rng *rand.Rand, dim int, sd float64, centre []float32) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * sd)
		if centre != nil {
			v[i] += centre[i]
		} else {
			v[i] /= float32(math.Sqrt(float64(dim)))
		}
	}
	return v
}

func length(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// peakHeap samples the heap every 20 ms until stop is called and returns
// the largest HeapAlloc seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

func benchResolve(b *testing.B, n int, cfg Config) {
	ents, dupOf := synthetic(n, benchDim, 1)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	input := ms.HeapAlloc
	b.ResetTimer()
	for b.Loop() {
		stop := peakHeap()
		start := time.Now()
		res, err := Resolve(context.Background(), ents, cfg)
		took := time.Since(start)
		peak := stop()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(took.Seconds(), "s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(peak-min(peak, input))/(1<<20), "above-input-MiB")
		b.ReportMetric(float64(len(res.Clusters)), "clusters")
		b.ReportMetric(plantedFound(res, dupOf), "planted-found")
		b.Logf("%d entities: %s, stats %+v", n, took, res.Stats)
	}
}

// plantedFound is the share of planted duplicates that ended in the
// cluster of the entity they duplicate.
func plantedFound(res Result, dupOf map[string]string) float64 {
	of := map[string]int{}
	for k, c := range res.Clusters {
		for _, m := range c.Members {
			of[m] = k
		}
	}
	found := 0
	for d, b := range dupOf {
		if of[d] == of[b] {
			found++
		}
	}
	return float64(found) / float64(max(1, len(dupOf)))
}

// BenchmarkResolve resolves synthetic names with each index. The 1M runs
// need KGFORGE_BENCH_1M=1, and IndexHNSW from 100k on KGFORGE_BENCH_HNSW=1:
// they take many minutes on two cores.
func BenchmarkResolve(b *testing.B) {
	for _, index := range []IndexKind{IndexIVF, IndexHNSW} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/%d", index, n), func(b *testing.B) {
				if n >= 1_000_000 && os.Getenv("KGFORGE_BENCH_1M") != "1" {
					b.Skip("set KGFORGE_BENCH_1M=1 to run the 1M benchmarks")
				}
				if index == IndexHNSW && n >= 100_000 && os.Getenv("KGFORGE_BENCH_HNSW") != "1" {
					b.Skip("set KGFORGE_BENCH_HNSW=1 to run IndexHNSW from 100k names")
				}
				benchResolve(b, n, Config{Index: index})
			})
		}
	}
}

// TestRecall measures the share of the exact candidate pairs (every pair
// within each entity's K nearest compatible neighbours with cosine ≥ Low,
// found by comparing every pair) that an index finds. The exact side
// compares every pair, minutes for 100k names on two cores, so the test
// runs only with KGFORGE_RECALL=1. With KGFORGE_RECALL_SAMPLE=k only k
// evenly spaced names are compared with all (for 1M names): the recall is
// then that of their exact K nearest neighbours. KGFORGE_RECALL_N sets the number of
// names (default 100000); KGFORGE_RECALL_CONFIGS lists the indexes to
// measure, separated by ";": "ivf:PROBES,CELLS" (CELLS 0 for the
// default) or "hnsw:M,EF_CONSTRUCTION,EF_SEARCH"; default, both indexes
// with their default settings.
func TestRecall(t *testing.T) {
	if os.Getenv("KGFORGE_RECALL") != "1" {
		t.Skip("set KGFORGE_RECALL=1 to measure index recall against exact all-pairs")
	}
	n := 100_000
	if s := os.Getenv("KGFORGE_RECALL_N"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatal(err)
		}
	}
	configs := []Config{{Index: IndexIVF}, {Index: IndexHNSW}}
	for k := range configs {
		configs[k] = configs[k].withDefaults()
	}
	if s := os.Getenv("KGFORGE_RECALL_CONFIGS"); s != "" {
		configs = nil
		for _, spec := range strings.Split(s, ";") {
			cfg := Config{}.withDefaults()
			kind, params, _ := strings.Cut(strings.TrimSpace(spec), ":")
			cfg.Index = IndexKind(kind)
			var err error
			switch cfg.Index {
			case IndexIVF:
				_, err = fmt.Sscanf(params, "%d,%d", &cfg.IVF.Probes, &cfg.IVF.Cells)
			case IndexHNSW:
				_, err = fmt.Sscanf(params, "%d,%d,%d", &cfg.HNSW.M, &cfg.HNSW.EfConstruction, &cfg.HNSW.EfSearch)
			default:
				err = fmt.Errorf("unknown index %q", kind)
			}
			if err != nil {
				t.Fatalf("config %q: %v", spec, err)
			}
			configs = append(configs, cfg)
		}
	}
	ents, _ := synthetic(n, benchDim, 2)
	r, err := newResolver(ents, Config{}.withDefaults(), entityKeys)
	if err != nil {
		t.Fatal(err)
	}
	r.applyOverrides()
	r.indexTypes()
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	set := func(cs []cand) map[uint64]bool {
		m := map[uint64]bool{}
		for _, c := range cs {
			m[pairKey(int(c.i), int(c.j))] = true
		}
		return m
	}
	ctx := context.Background()
	start := time.Now()
	var want map[uint64]bool
	if s := os.Getenv("KGFORGE_RECALL_SAMPLE"); s != "" {
		var k int
		if _, err := fmt.Sscan(s, &k); err != nil {
			t.Fatal(err)
		}
		want = sampledExact(r, k)
		t.Logf("n=%d: exact neighbours of %d sampled names: %d pairs in %s", n, k, len(want), time.Since(start))
	} else {
		exact, err := r.exact(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		want = set(exact)
		t.Logf("n=%d: exact all-pairs: %d pairs in %s", n, len(want), time.Since(start))
	}
	for _, cfg := range configs {
		r.cfg = cfg
		start = time.Now()
		var (
			approx []cand
			err    error
		)
		if cfg.Index == IndexHNSW {
			approx, err = r.indexed(ctx, all)
		} else {
			approx, err = r.ivf(ctx, all)
		}
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		got := set(approx)
		hit := 0
		for k := range want {
			if got[k] {
				hit++
			}
		}
		recall := float64(hit) / float64(max(1, len(want)))
		t.Logf("n=%d %s ivf=%+v hnsw=%+v: %d pairs in %s, recall %.4f", n, cfg.Index, cfg.IVF, cfg.HNSW, len(got), took, recall)
		if recall < 0.99 {
			t.Errorf("%s recall %.4f, want ≥ 0.99", cfg.Index, recall)
		}
	}
}

// sampledExact returns, for k evenly spaced names, the pairs with their
// exact K nearest compatible neighbours with cosine ≥ Low.
func sampledExact(r *resolver, k int) map[uint64]bool {
	n := len(r.ents)
	found := make([][]cand, k)
	parallel(k, r.cfg.Workers, func(lo, hi int) {
		var ns []neighbour
		for q := lo; q < hi; q++ {
			i := q * n / k
			ns = ns[:0]
			for j := range n {
				if j != i && r.compatible(i, j) {
					if c := dot(r.vec(i), r.vec(j)); c >= float32(r.cfg.Low) {
						ns = append(ns, neighbour{j: int32(j), c: c})
					}
				}
			}
			found[q] = r.topK(nil, int32(i), ns)
		}
	})
	want := map[uint64]bool{}
	for _, cs := range found {
		for _, c := range cs {
			want[pairKey(int(c.i), int(c.j))] = true
		}
	}
	return want
}
