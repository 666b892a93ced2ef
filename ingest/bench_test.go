package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// benchCorpus returns about n bytes of Markdown prose with headings and
// paragraphs, the shape of a company's documents.
func benchCorpus(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Section %d\n\n", i)
		for p := range 4 {
			for s := range 6 {
				fmt.Fprintf(&b, "Velora Cycles buys part %d-%d-%d from Kestrel Alloys at the Porto plant. ", i, p, s)
			}
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// BenchmarkChunk measures the Markdown reader and the chunker together, in
// MB/s of source text.
func BenchmarkChunk(b *testing.B) {
	text := benchCorpus(8 << 20)
	src := kg.Source{ID: "s", URI: "bench.md", Kind: kg.KindMarkdown}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		doc, err := ReadDocument(context.Background(), src, []byte(text), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(Chunk(doc, ChunkOptions{Size: DefaultChunkSize, Overlap: DefaultChunkOverlap})) == 0 {
			b.Fatal("no chunks")
		}
	}
}

// BenchmarkLoadTable loads a 1M-row CSV the way a build does (DuckDB's own
// reader, then the profile) beside DuckDB's read_csv alone, the ceiling.
func BenchmarkLoadTable(b *testing.B) {
	dir := b.TempDir()
	csv := filepath.Join(dir, "orders.csv")
	const rows = 1_000_000
	var sb strings.Builder
	sb.WriteString("order_id,customer,product,quantity,order_date,plant,status\n")
	for i := range rows {
		fmt.Fprintf(&sb, "O-%d,Customer %d,Trail %d,%d,2025-%02d-%02d,Porto,shipped\n", i, i%500, i%4, i%20+1, i%12+1, i%28+1)
	}
	if err := os.WriteFile(csv, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(csv)
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(dir, "bench.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	b.Run("read_csv", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if _, err := duck.LoadCSV(ctx, db, "ceiling", csv); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("load_and_profile", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if _, err := LoadTables(ctx, db, TableInput{Source: kg.Source{URI: "orders.csv", Kind: kg.KindCSV, Bytes: info.Size()}, Path: csv, Base: "orders"}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
