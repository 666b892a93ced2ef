package consolidate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kgforge/consolidate/link"
	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// TestBuild_ChunkNamingARowEntityMentionsItWithoutTheModel builds the
// example's supplier table and one document with no extraction at all: the
// document's chunk still mentions the suppliers it names, through the
// dictionary, and a mention the model also found stays one edge.
func TestBuild_ChunkNamingARowEntityMentionsItWithoutTheModel(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(t.TempDir(), "data.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	path, err := filepath.Abs("../examples/bikeco/data/suppliers.csv")
	if err != nil {
		t.Fatal(err)
	}
	src := kg.Source{ID: "tsrc", URI: "data/suppliers.csv", Kind: kg.KindCSV}
	tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: src, Path: path, Base: "suppliers", Name: func(w string) string { return w }})
	if err != nil {
		t.Fatal(err)
	}
	if err := ingest.FindKeys(ctx, db, tables); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile("../examples/bikeco/docs/suppliers.txt")
	if err != nil {
		t.Fatal(err)
	}
	chunk := kg.Chunk{ID: "c1", SourceID: "dsrc", Text: string(text), Span: kg.Span{Start: 0, End: len(text)}}
	kestrel := link.RowID("suppliers", "S001")
	in := Input{
		Sources: []kg.Source{{ID: "dsrc", URI: "docs/suppliers.txt", Kind: kg.KindText}, src},
		Chunks:  []kg.Chunk{chunk}, Tables: tables, Data: db,
	}
	g := build(t, in)
	var dictEdges int
	for _, e := range g.Edges {
		if e.Type == EdgeMentions && e.Properties["source"] == link.SourceDictionary {
			dictEdges++
		}
	}
	if dictEdges < 5 {
		t.Errorf("%d dictionary MENTIONS edges from the suppliers document, want one per supplier it names", dictEdges)
	}
	eid := kg.EdgeID("c1", EdgeMentions, kestrel)
	var found *kg.Edge
	for i, e := range g.Edges {
		if e.ID == eid {
			if found != nil {
				t.Fatalf("two edges %s", eid)
			}
			found = &g.Edges[i]
		}
	}
	if found == nil || found.Evidence != "Kestrel Alloys" {
		t.Fatalf("no MENTIONS edge c1 → Kestrel Alloys's row entity: %+v", found)
	}
	for _, n := range g.Nodes {
		if n.ID == kestrel && (len(n.ChunkIDs) != 1 || n.ChunkIDs[0] != "c1") {
			t.Errorf("row entity Kestrel Alloys has chunks %v, want [c1]", n.ChunkIDs)
		}
	}
}
