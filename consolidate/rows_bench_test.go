package consolidate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kgforge/consolidate/link"
	"kgforge/kg"
)

// BenchmarkBuild_RowAnchors resolves 1,000 extracted names (half of them
// a row's name, half of them no row's) against a table of
// link.DefaultMaxRowEntities row entities, by the name keys (no embedder).
func BenchmarkBuild_RowAnchors(b *testing.B) {
	var csv strings.Builder
	csv.WriteString("supplier_id,name,country\n")
	for i := range link.DefaultMaxRowEntities {
		fmt.Fprintf(&csv, "S%05d,Supplier %s Ltd,Country %d\n", i, word(i), i%50)
	}
	db, tables := loadCSVs(b, map[string]string{"suppliers.csv": csv.String()})
	in := Input{Sources: []kg.Source{{ID: "s1", URI: "a.md", Kind: kg.KindMarkdown}}, Chunks: []kg.Chunk{{ID: "c1", SourceID: "s1"}}, Tables: tables, Data: db}
	for i := range 1000 {
		name := "Supplier " + word(i*5)
		if i%2 == 1 {
			name = "Company " + word(i)
		}
		in.Entities = append(in.Entities, kg.Mention{ChunkID: "c1", Surface: name, Type: "Supplier"})
	}
	b.ResetTimer()
	for b.Loop() {
		out, err := Build(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(out.Graph.Merges); n != link.DefaultMaxRowEntities+1000 {
			b.Fatalf("%d members in the merge log", n)
		}
	}
}

// word spells i in letters, so that names differ in more than a number
// (which the number guard would keep apart).
func word(i int) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return string(b)
		}
	}
}
