package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// The example bundle: the real readers, chunker, table loader, key finder
// and consolidate step over part of examples/bikeco, with a handful of
// facts written by hand in place of the LLM's (each one grounded: its
// evidence is a sentence of the real text). It is built once per test
// binary; each test opens its own copy of the handle.
var (
	exampleOnce     sync.Once
	exampleDir      string
	errExampleBuild error

	vectorsOnce     sync.Once
	vectorsDir      string
	errVectorsBuild error
)

// exampleDocs and exampleTables are the example's sources the bundle holds.
var (
	exampleDocs   = []string{"docs/suppliers.txt", "docs/incident-2025-03-cracked-frames.md", "docs/operating-rules.md"}
	exampleTables = []string{"data/suppliers.csv", "data/parts.csv", "data/orders.csv"}
)

// exampleFacts are (subject, type, predicate, object, type, evidence).
var exampleFacts = [][6]string{
	{"Kestrel Alloys", "Supplier", "based_in", "Sheffield", "City", "Kestrel Alloys is based in Sheffield, United Kingdom."},
	{"Kestrel Alloys", "Supplier", "supplies", "Aluminium frame TR5", "Part", "Kestrel Alloys Ltd. supplies the Aluminium frame TR5 to the Porto plant."},
	{"Tagus Composites", "Supplier", "supplies", "Carbon frame GV7", "Part", "Tagus Composites supplies the Carbon frame GV7 to the Porto plant."},
	{"Batch KA-2503-17", "Batch", "failed", "fatigue test", "Test", "Batch KA-2503-17 failed the fatigue test on 12 March 2025."},
	{"Ana Ferreira", "Person", "quarantined", "Batch KA-2503-17", "Batch", "Ana Ferreira quarantined batch KA-2503-17 on 12 March 2025."},
}

const exampleRoot = "../examples/bikeco"

// exampleBundle opens the example bundle.
func exampleBundle(t testing.TB) *bundle.Bundle {
	t.Helper()
	exampleOnce.Do(func() { exampleDir, errExampleBuild = buildExample(nil) })
	return openExample(t, exampleDir, errExampleBuild)
}

// exampleBundleWithVectors opens the example bundle with the vectors of
// its entity nodes made by emb's model, as a build makes them.
func exampleBundleWithVectors(t testing.TB, emb Embedder, model string) *bundle.Bundle {
	t.Helper()
	vectorsOnce.Do(func() {
		vectorsDir, errVectorsBuild = buildExample(func(ctx context.Context, nodes []kg.Node) (bundle.VectorSet, error) {
			vs := bundle.VectorSet{Name: "entities", Model: model}
			var names []string
			for _, n := range nodes {
				if n.Kind == kg.NodeConcept {
					vs.IDs, names = append(vs.IDs, n.ID), append(names, n.Name)
				}
			}
			vecs, err := emb.Embed(ctx, model, names, 64)
			if err != nil || len(vecs) == 0 {
				return vs, errors.Join(err, errors.New("no vectors"))
			}
			vs.Dim = len(vecs[0])
			for _, v := range vecs {
				vs.Data = append(vs.Data, v...)
			}
			return vs, nil
		})
	})
	return openExample(t, vectorsDir, errVectorsBuild)
}

func openExample(t testing.TB, dir string, err error) *bundle.Bundle {
	t.Helper()
	if err != nil {
		t.Fatalf("build the example bundle: %v", err)
	}
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{exampleDir, vectorsDir} {
		if dir != "" {
			_ = os.RemoveAll(filepath.Dir(dir))
		}
	}
	os.Exit(code)
}

// buildExample writes the example bundle; vectors, when set, makes its
// vector set from the graph's nodes.
func buildExample(vectors func(context.Context, []kg.Node) (bundle.VectorSet, error)) (string, error) {
	ctx := context.Background()
	out, err := os.MkdirTemp("", "kgforge-agent-example-")
	if err != nil {
		return "", err
	}
	w, err := bundle.Create(out, "example")
	if err != nil {
		return "", err
	}
	db, err := w.Data(ctx, duck.Settings{Threads: 1})
	if err != nil {
		return "", err
	}
	var in consolidate.Input
	for _, rel := range exampleDocs {
		src, chunks, err := readExampleDoc(ctx, rel)
		if err != nil {
			return "", err
		}
		in.Sources, in.Chunks = append(in.Sources, src), append(in.Chunks, chunks...)
	}
	taken := map[string]bool{}
	for _, rel := range exampleTables {
		src := exampleSource(rel, kg.KindCSV, nil)
		tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{
			Source: src, Path: filepath.Join(exampleRoot, rel), Base: rel,
			Name: func(want string) string { return ingest.UniqueName(taken, ingest.TableName(want)) },
		})
		if err != nil {
			return "", err
		}
		in.Sources, in.Tables = append(in.Sources, src), append(in.Tables, tables...)
	}
	if err := ingest.FindKeys(ctx, db, in.Tables); err != nil {
		return "", err
	}
	for _, f := range exampleFacts {
		tr, ok := groundFact(in.Chunks, f)
		if !ok {
			return "", os.ErrNotExist
		}
		in.Triplets = append(in.Triplets, tr)
	}
	in.Data = db
	cons, err := consolidate.Build(ctx, in)
	if err != nil {
		return "", err
	}
	c := bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Triplets: in.Triplets, Tables: in.Tables, Graph: cons.Graph}
	if vectors != nil {
		vs, err := vectors(ctx, cons.Graph.Nodes)
		if err != nil {
			return "", err
		}
		c.Vectors = []bundle.VectorSet{vs}
	}
	return w.Commit(c, bundle.Manifest{Pipeline: "agent-test"})
}

func exampleSource(rel string, kind kg.SourceKind, data []byte) kg.Source {
	sum := sha256.Sum256(data)
	return kg.Source{ID: kg.ID("source", rel), URI: rel, Kind: kind, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(data)) + 1}
}

func readExampleDoc(ctx context.Context, rel string) (kg.Source, []kg.Chunk, error) {
	data, err := os.ReadFile(filepath.Join(exampleRoot, rel))
	if err != nil {
		return kg.Source{}, nil, err
	}
	kind := kg.KindText
	if strings.HasSuffix(rel, ".md") {
		kind = kg.KindMarkdown
	}
	src := exampleSource(rel, kind, data)
	doc, err := ingest.ReadDocument(ctx, src, data, ingest.Options{})
	if err != nil {
		return kg.Source{}, nil, err
	}
	return src, ingest.Chunk(doc, ingest.ChunkOptions{Size: 300, Overlap: 40}), nil
}

// groundFact places a hand-written fact in the chunk whose text holds its
// evidence, with the spans the extractor would give it.
func groundFact(chunks []kg.Chunk, f [6]string) (kg.Triplet, bool) {
	for _, c := range chunks {
		at := strings.Index(c.Text, f[5])
		if at < 0 {
			continue
		}
		ev := kg.Span{Start: c.Span.Start + at, End: c.Span.Start + at + len(f[5])}
		mention := func(surface, typ string) kg.Mention {
			i := strings.Index(strings.ToLower(f[5]), strings.ToLower(surface))
			return kg.Mention{
				ID: kg.ID("mention", c.ID, surface), ChunkID: c.ID, Surface: surface, Type: typ,
				Span: kg.Span{Start: ev.Start + i, End: ev.Start + i + len(surface)},
			}
		}
		return kg.Triplet{
			ID: kg.ID("triplet", c.ID, f[0], f[2], f[3]), ChunkID: c.ID,
			Subject: mention(f[0], f[1]), Predicate: f[2], Object: mention(f[3], f[4]),
			Evidence: f[5], EvidenceSpan: ev, Confidence: 1, Model: "hand", PromptVersion: "test",
		}, true
	}
	return kg.Triplet{}, false
}
