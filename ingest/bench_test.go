package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
// MB/s of source text: sized by real cl100k_base token counts, and sized by
// the four-bytes-per-token estimate that splitters measuring characters use.
func BenchmarkChunk(b *testing.B) {
	text := benchCorpus(8 << 20)
	src := kg.Source{ID: "s", URI: "bench.md", Kind: kg.KindMarkdown}
	for _, bc := range []struct {
		name  string
		count func(string) int
	}{
		{"cl100k_tokens", nil},
		{"bytes_div_4", func(s string) int { return (len(s) + 3) / 4 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				doc, err := ReadDocument(context.Background(), src, []byte(text), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(Chunk(doc, ChunkOptions{Size: DefaultChunkSize, Overlap: DefaultChunkOverlap, Count: bc.count})) == 0 {
					b.Fatal("no chunks")
				}
			}
		})
	}
}
