// Command bm25 measures the two ways the agent's sems tool could rank by
// BM25 on a corpus of a realistic size: plain SQL over the postings table
// the bundle writer ships (what kgforge does), and a bleve v2 index with its
// BM25 scorer, built at bundle time. It is a module of its own so that
// bleve stays out of kgforge's dependencies.
//
//	go run . -chunks 20000 -queries 50 -redocred ../../../shared/benchmarks/redocred/dev_revised.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"kgforge/agent"
	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func main() {
	chunks := flag.Int("chunks", 20000, "chunks in the corpus")
	queries := flag.Int("queries", 50, "queries to time")
	corpus := flag.String("redocred", "../../../shared/benchmarks/redocred/dev_revised.json", "Re-DocRED file whose sentences make the chunks")
	flag.Parse()
	sents, err := sentences(*corpus)
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cs := makeChunks(sents, *chunks, rng)
	qs := makeQueries(sents, *queries, rng)
	var words int
	for _, c := range cs {
		words += len(strings.Fields(c.Text))
	}
	fmt.Printf("corpus: %d chunks, %d words, from %d Re-DocRED sentences; %d queries of 3 words\n", len(cs), words, len(sents), len(qs))
	if err := benchSQL(cs, qs); err != nil {
		log.Fatal(err)
	}
	if err := benchBleve(cs, qs); err != nil {
		log.Fatal(err)
	}
}

// sentences reads the sentences of the Re-DocRED documents.
func sentences(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var docs []struct{ Sents [][]string }
	if err := json.Unmarshal(raw, &docs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, d := range docs {
		for _, s := range d.Sents {
			out = append(out, strings.Join(s, " "))
		}
	}
	return out, nil
}

// makeChunks makes n chunks of 8 sentences drawn at random (about 200
// words, the size of the example's chunks).
func makeChunks(sents []string, n int, rng *rand.Rand) []kg.Chunk {
	out := make([]kg.Chunk, n)
	for i := range out {
		var b strings.Builder
		for range 8 {
			b.WriteString(sents[rng.IntN(len(sents))] + " ")
		}
		text := b.String()
		out[i] = kg.Chunk{ID: kg.ChunkID("s", fmt.Sprint(i)), SourceID: "s", Ordinal: i, Text: text, Span: kg.Span{End: len(text)}}
	}
	return out
}

// makeQueries takes three words of at least four letters from random
// sentences.
func makeQueries(sents []string, n int, rng *rand.Rand) []string {
	var out []string
	for len(out) < n {
		var words []string
		for _, w := range strings.Fields(sents[rng.IntN(len(sents))]) {
			if len(w) >= 4 {
				words = append(words, w)
			}
		}
		if len(words) >= 3 {
			i := rng.IntN(len(words) - 2)
			out = append(out, strings.Join(words[i:i+3], " "))
		}
	}
	return out
}

// benchSQL writes a bundle of the chunks (the writer builds the postings),
// opens the agent's toolbox over it and times sems (BM25 alone: the bundle
// has no vectors).
func benchSQL(cs []kg.Chunk, qs []string) error {
	ctx := context.Background()
	out, err := os.MkdirTemp("", "bm25-sql-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	start := time.Now()
	w, err := bundle.Create(out, "b")
	if err != nil {
		return err
	}
	dir, err := w.Commit(bundle.Contents{Sources: []kg.Source{{ID: "s", URI: "corpus.txt", Kind: kg.KindText}}, Chunks: cs}, bundle.Manifest{})
	if err != nil {
		return err
	}
	commit := time.Since(start)
	b, err := bundle.Open(dir)
	if err != nil {
		return err
	}
	defer b.Close()
	start = time.Now()
	tb, err := agent.NewToolbox(ctx, b, duck.SandboxLimits{Threads: 2})
	if err != nil {
		return err
	}
	defer tb.Close()
	open := time.Since(start)
	lat, err := timeQueries(qs, func(q string) error {
		args, _ := json.Marshal(map[string]string{"query": q})
		_, err := tb.Call(ctx, agent.ToolSems, args)
		return err
	})
	if err != nil {
		return err
	}
	other, err := timeOthers(ctx, tb, qs, cs)
	if err != nil {
		return err
	}
	mem, err := tb.Call(ctx, agent.ToolQuery, json.RawMessage(`{"sql":"SELECT round(sum(memory_usage_bytes) / 1048576) FROM duckdb_memory()"}`))
	if err != nil {
		return err
	}
	fmt.Printf("sql: postings %d rows, %s + %s on disk; bundle commit %s (all files); toolbox open %s; sems p50 %s p95 %s; sandbox memory %s MiB\n",
		b.Manifest.Counts["postings"], mib(b.Manifest.Files[bundle.PostingsFile].Bytes), mib(b.Manifest.Files[bundle.PostingDocsFile].Bytes),
		commit.Round(time.Millisecond), open.Round(time.Millisecond), lat[len(lat)/2], lat[len(lat)*95/100], strings.Fields(mem)[len(strings.Fields(mem))-1])
	fmt.Println("sql, the other tools on the same bundle: " + other)
	return nil
}

// timeOthers times grep (a word of each query), cat (a chunk) and ls on
// the same bundle, p50 / p95 each.
func timeOthers(ctx context.Context, tb *agent.Toolbox, qs []string, cs []kg.Chunk) (string, error) {
	var parts []string
	for _, t := range []struct {
		tool string
		args func(i int, q string) any
	}{
		{agent.ToolGrep, func(_ int, q string) any { return map[string]string{"pattern": strings.Fields(q)[0]} }},
		{agent.ToolCat, func(i int, _ string) any { return map[string]string{"id": cs[i*len(cs)/len(qs)].ID} }},
		{agent.ToolLs, func(int, string) any { return map[string]string{} }},
	} {
		i := 0
		lat, err := timeQueries(qs, func(q string) error {
			args, _ := json.Marshal(t.args(i, q))
			i++
			_, err := tb.Call(ctx, t.tool, args)
			return err
		})
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%s p50 %s p95 %s", t.tool, lat[len(lat)/2], lat[len(lat)*95/100]))
	}
	return strings.Join(parts, "; "), nil
}

// benchBleve builds a bleve index of the chunks on disk with the BM25
// scorer, reopens it and times a match query for the top 50.
func benchBleve(cs []kg.Chunk, qs []string) error {
	dir, err := os.MkdirTemp("", "bm25-bleve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "index.bleve")
	m := mapping.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	start := time.Now()
	ix, err := bleve.New(path, m)
	if err != nil {
		return err
	}
	batch := ix.NewBatch()
	for i, c := range cs {
		if err := batch.Index(c.ID, map[string]string{"text": c.Text}); err != nil {
			return err
		}
		if batch.Size() == 1000 || i == len(cs)-1 {
			if err := ix.Batch(batch); err != nil {
				return err
			}
			batch = ix.NewBatch()
		}
	}
	if err := ix.Close(); err != nil {
		return err
	}
	build := time.Since(start)
	size, files := dirSize(path)
	start = time.Now()
	ix, err = bleve.Open(path)
	if err != nil {
		return err
	}
	defer ix.Close()
	open := time.Since(start)
	lat, err := timeQueries(qs, func(q string) error {
		req := bleve.NewSearchRequestOptions(bleve.NewMatchQuery(q), 50, 0, false)
		_, err := ix.Search(req)
		return err
	})
	if err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("bleve: index %s in %d files (a directory: the bundle is flat, so it would ship packed); build %s; open %s; query p50 %s p95 %s; Go heap %s\n",
		mib(size), files, build.Round(time.Millisecond), open.Round(time.Millisecond), lat[len(lat)/2], lat[len(lat)*95/100], mib(int64(ms.HeapAlloc)))
	return nil
}

func timeQueries(qs []string, run func(string) error) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		start := time.Now()
		if err := run(q); err != nil {
			return nil, fmt.Errorf("query %q: %w", q, err)
		}
		lat = append(lat, time.Since(start).Round(100*time.Microsecond))
	}
	slices.Sort(lat)
	return lat, nil
}

func dirSize(dir string) (int64, int) {
	var n int64
	files := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
				files++
			}
		}
		return nil
	})
	return n, files
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
