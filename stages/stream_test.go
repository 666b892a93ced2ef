package stages

import (
	"context"
	"slices"
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
	ctx := context.Background()
	b, a := assembledSixDocs(t)
	if len(a.chunks) != 6 {
		t.Fatalf("%d chunks assembled, want 6", len(a.chunks))
	}
	for _, ch := range a.chunks {
		if ch.Text != "" || ch.ID == "" || ch.SourceID == "" {
			t.Errorf("assembled chunk %s holds %d bytes of text (source %q)", ch.ID, len(ch.Text), ch.SourceID)
		}
	}
	cons, err := b.consolidate(ctx, &a)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.commit(a, &cons); err != nil {
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

// TestConsolidate_DropsWhatOnlyItReadsAndTheBundleStillHoldsIt runs a
// build step by step: once consolidate made the graph, the build holds no
// chunk, triplet or mention any more, and once commit wrote the nodes and
// edges, no edge or chunk node (the rest of the bundle is written without
// them: together they were most of a 100,000-chunk build's peak); the
// committed bundle still has every triplet, and the report every count.
func TestConsolidate_DropsWhatOnlyItReadsAndTheBundleStillHoldsIt(t *testing.T) {
	ctx := context.Background()
	b, a := assembledSixDocs(t)
	triplets := len(a.triplets)
	if triplets == 0 {
		t.Fatal("the fake model gave no triplet: nothing to drop")
	}
	cons, err := b.consolidate(ctx, &a)
	if err != nil {
		t.Fatal(err)
	}
	if a.chunks != nil || a.triplets != nil || a.entities != nil {
		t.Errorf("after consolidate the build still holds %d chunks, %d triplets, %d mentions", len(a.chunks), len(a.triplets), len(a.entities))
	}
	if err := b.commit(a, &cons); err != nil {
		t.Fatal(err)
	}
	rep, err := b.finish(a, cons)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 6 || rep.Triplets != triplets {
		t.Errorf("report: %d chunks, %d triplets; want 6, %d", rep.Chunks, rep.Triplets, triplets)
	}
	bd, err := bundle.Open(b.rep.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bd.Close() }() // read only
	n := 0
	if err := bd.Triplets(ctx, func(kg.Triplet) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != triplets || bd.Manifest.Counts["triplets"] != int64(triplets) {
		t.Errorf("bundle: %d triplets read, counts %v; want %d", n, bd.Manifest.Counts, triplets)
	}
	if cons.out.Graph.Edges != nil || slices.ContainsFunc(cons.out.Graph.Nodes, func(n kg.Node) bool { return n.Kind == kg.NodeChunk }) {
		t.Errorf("after commit the build still holds %d edges and its chunk nodes", len(cons.out.Graph.Edges))
	}
	if int64(rep.Nodes) != bd.Manifest.Counts["nodes"] || int64(rep.Edges) != bd.Manifest.Counts["edges"] || rep.Nodes <= 6 {
		t.Errorf("report: %d nodes, %d edges; the bundle's counts %v", rep.Nodes, rep.Edges, bd.Manifest.Counts)
	}
}

// assembledSixDocs runs a build of sixDocs against the fake model up to
// assemble and returns the build (closed when the test ends) and what
// assemble holds for the global steps.
func assembledSixDocs(t *testing.T) (*build, assembled) {
	t.Helper()
	c, _ := fakeOllama(t, false)
	p, _ := sixDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	ctx := context.Background()
	b := rn.newBuild(p)
	t.Cleanup(func() {
		if err := b.close(); err != nil {
			t.Error(err)
		}
	})
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
	return b, a
}
