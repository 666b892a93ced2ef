package link

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"kgforge/kg"
)

// The synthetic corpus of the dictionary benchmarks: benchNames distinct
// names of one to three invented words ("Kavelro Tanmi"), and benchChunks
// chunks of about 600 bytes of English-like text with three of those names
// in each, in the case they were written with or in capitals.
const (
	benchNames  = 1_000_000
	benchChunks = 100_000
)

var benchCorpus = sync.OnceValues(func() ([]Entry, []kg.Chunk) {
	r := rand.New(rand.NewPCG(7, 11))
	syl := strings.Fields("ka ro vel tan mi stra dor len qui po zen bar lo nik sa ther gol ve rin mo")
	word := func() string {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		w := b.String()
		return strings.ToUpper(w[:1]) + w[1:]
	}
	seen := map[string]bool{}
	var entries []Entry
	for len(entries) < benchNames {
		ws := make([]string, 1+r.IntN(3))
		for i := range ws {
			ws[i] = word()
		}
		name := strings.Join(ws, " ")
		if k := Key(name); !seen[k] {
			seen[k] = true
			entries = append(entries, Entry{Name: name, NodeID: kg.ID("row", name)})
		}
	}
	filler := strings.Fields("the of and to in is was for on that with by as at from supplier plant order part " +
		"lead time delivered late quality frame steel batch report week month customer shipped production line")
	chunks := make([]kg.Chunk, benchChunks)
	for i := range chunks {
		var b strings.Builder
		for b.Len() < 600 {
			if r.IntN(30) == 0 {
				name := entries[r.IntN(len(entries))].Name
				if r.IntN(4) == 0 {
					name = strings.ToUpper(name)
				}
				b.WriteString(name)
			} else {
				b.WriteString(filler[r.IntN(len(filler))])
			}
			b.WriteString(" ")
		}
		chunks[i] = kg.Chunk{ID: kg.ID("chunk", b.String()), SourceID: "s", Text: b.String()}
	}
	return entries, chunks
})

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkDictionaryBuild builds the dictionary of 1M names.
func BenchmarkDictionaryBuild(b *testing.B) {
	entries, _ := benchCorpus()
	for b.Loop() {
		before := heapInUse()
		d := NewDictionary(entries, DictConfig{})
		b.ReportMetric(float64(heapInUse()-before)/(1<<20), "heap_MB")
		runtime.KeepAlive(d)
	}
}

var benchDict = sync.OnceValue(func() *Dictionary {
	entries, _ := benchCorpus()
	return NewDictionary(entries, DictConfig{})
})

// BenchmarkDictionaryFind searches all 100k chunks for all 1M names, one
// pass per chunk; one op is the whole corpus.
func BenchmarkDictionaryFind(b *testing.B) {
	_, chunks := benchCorpus()
	d := benchDict()
	var bytes int64
	for _, c := range chunks {
		bytes += int64(len(c.Text))
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for b.Loop() {
		hits, _ := d.findChunks(chunks, DictConfig{}.withDefaults())
		n := 0
		for _, h := range hits {
			n += len(h)
		}
		b.ReportMetric(float64(n), "hits")
	}
}

// BenchmarkNaiveFind is the loop the dictionary replaces: strings.Index of
// every lower-cased name in every lower-cased chunk (no word boundaries, no
// accents, so less work than the dictionary does), on naiveNames names and
// naiveChunks chunks; its cost grows with names × bytes, so the full corpus
// costs (benchNames/naiveNames) × (benchChunks/naiveChunks) times one op.
func BenchmarkNaiveFind(b *testing.B) {
	const naiveNames, naiveChunks = 1000, 1000
	entries, chunks := benchCorpus()
	names := make([]string, naiveNames)
	for i := range names {
		names[i] = strings.ToLower(entries[i*(len(entries)/naiveNames)].Name)
	}
	texts := make([]string, naiveChunks)
	for i := range texts {
		texts[i] = strings.ToLower(chunks[i].Text)
	}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, t := range texts {
			for _, name := range names {
				for at := 0; ; {
					i := strings.Index(t[at:], name)
					if i < 0 {
						break
					}
					n++
					at += i + len(name)
				}
			}
		}
		b.ReportMetric(float64(n), "hits")
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)*(benchNames/naiveNames)*(benchChunks/naiveChunks), "extrapolated_s")
}
