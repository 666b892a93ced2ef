package stages

import (
	"context"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
)

// TestAssemble_ChunkTextStreamsFromTheSegments runs a build of documents
// step by step: what assemble holds for the global steps has every chunk
// without its text (resolution does not read it), and the bundle the
// commit writes has every chunk with its text, streamed from the segments.
func TestAssemble_ChunkTextStreamsFromTheSegments(t *testing.T) {
	c, _ := fakeOllama(t, false)
	p, _ := sixDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	ctx := context.Background()
	b := rn.newBuild(p)
	defer func() {
		if err := b.close(); err != nil {
			t.Error(err)
		}
	}()
	if err := b.open(ctx); err != nil {
		t.Fatal(err)
	}
	units, err := b.produce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := b.assemble(ctx, units)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.chunks) != 6 {
		t.Fatalf("%d chunks assembled, want 6", len(a.chunks))
	}
	for _, ch := range a.chunks {
		if ch.Text != "" || ch.ID == "" || ch.SourceID == "" {
			t.Errorf("assembled chunk %s holds %d bytes of text (source %q)", ch.ID, len(ch.Text), ch.SourceID)
		}
	}
	cons, err := b.consolidate(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.commit(a, cons); err != nil {
		t.Fatal(err)
	}
	bd, err := bundle.Open(b.rep.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bd.Close() }() // read only
	n := 0
	if err := bd.Chunks(ctx, func(ch kg.Chunk) error {
		n++
		if !strings.Contains(ch.Text, "assembles the Trail bike") {
			t.Errorf("bundle chunk %s: text %q", ch.ID, ch.Text)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 6 || bd.Manifest.Counts["chunks"] != 6 {
		t.Errorf("bundle: %d chunks read, counts %v", n, bd.Manifest.Counts)
	}
}
