package onnxembed

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/llm"
)

func cacheDir(t *testing.T) string {
	t.Helper()
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "kgforge")
}

// openReal opens the model scripts/onnx.sh provisions; integration tests
// only (make test runs the script first).
func openReal(t *testing.T) *Model {
	t.Helper()
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set (needs scripts/onnx.sh up)")
	}
	m, err := Open(DefaultFiles(cacheDir(t)), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

var sample = []string{
	"AKZO NOBEL", "Akzo Nobel N.V.", "Sony Turntable - PSLX350H", "Bose Acoustimass 5 Series III Speaker System - AM53BK",
	"Societe Generale", "Ltd. & Co.", "Linksys EtherFast 8-Port 10/100 Switch (New/Workgroup)", "VLDB",
	"Estimation of Query-Result Distribution and its Application in Parallel-Join Load Balancing", "x",
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestEmbedAgreesWithOllamaOnTheSameModel: the graph scripts/onnx.sh writes
// computes what Ollama's all-minilm:l6-v2 computes (Ollama keeps the weights
// in 16 bits, hence not bit for bit).
func TestEmbedAgreesWithOllamaOnTheSameModel(t *testing.T) {
	m := openReal(t)
	got, err := m.Embed(context.Background(), "", sample, 4)
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want, err := c.Embed(context.Background(), llm.EmbedModelForTests, sample, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sample {
		if len(got[i]) != 384 {
			t.Fatalf("%q: %d dimensions, want 384", sample[i], len(got[i]))
		}
		if cs := cosine(got[i], want[i]); cs < 0.9999 {
			t.Errorf("%q: cosine with Ollama's vector %.6f, want ≥ 0.9999", sample[i], cs)
		}
	}
}

// TestEmbedStripsAccentsAsTheModelsTokenizerSays: tokenizer.json lower-cases
// and strips accents, so "Société Générale" is "societe generale" to the
// model. (Ollama 0.17.4 keeps the accents: its vector of "Société Générale"
// has a cosine of 0.14 with its own vector of "societe generale".)
func TestEmbedStripsAccentsAsTheModelsTokenizerSays(t *testing.T) {
	m := openReal(t)
	v, err := m.Embed(context.Background(), "", []string{"Société Générale", "societe generale", "ÅNGSTRÖM", "angstrom"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(v); i += 2 {
		if cs := cosine(v[i], v[i+1]); cs < 0.999999 {
			t.Errorf("vector %d and %d: cosine %.6f, want the same vector", i, i+1, cs)
		}
	}
}

// TestEmbedReturnsVectorsInInputOrder: texts are batched by length, and the
// vectors must still come back in the caller's order, each the same as the
// text embedded alone (padding changes nothing).
func TestEmbedReturnsVectorsInInputOrder(t *testing.T) {
	m := openReal(t)
	batched, err := m.Embed(context.Background(), "", sample, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sample {
		alone, err := m.Embed(context.Background(), "", []string{s}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if cs := cosine(batched[i], alone[0]); cs < 0.99999 {
			t.Errorf("%q: batched vector differs from the one embedded alone (cosine %.6f)", s, cs)
		}
	}
	if !strings.HasPrefix(m.Digest(), "onnx-sha256:") {
		t.Errorf("Digest() = %q, want onnx-sha256:...", m.Digest())
	}
}

func TestOpenNamesTheMissingFileAndTheScript(t *testing.T) {
	f := DefaultFiles(t.TempDir())
	_, err := Open(f, 1)
	if err == nil || !strings.Contains(err.Error(), f.Library) || !strings.Contains(err.Error(), "scripts/onnx.sh") {
		t.Fatalf("Open without the files: %v; want an error naming %s and scripts/onnx.sh", err, f.Library)
	}
}
