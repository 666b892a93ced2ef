package agent

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/llm"
)

func TestSems_BM25RanksTheChunkThatHoldsTheTermsAndSaysWhyNoVectors(t *testing.T) {
	tb := exampleTools(t)
	out := call(t, tb, ToolSems, `{"query":"heat treatment oven temperature"}`)
	wantAll(t, "sems", out, "note: the bundle has no vectors: BM25 alone", `for "heat treatment oven temperature"`,
		"1\tchunk\t", "\tbm25 1\tvector -: docs/incident-2025-03-cracked-frames.md bytes ", "A heat treatment oven at the Kestrel Alloys factory", "</document>")
	out = call(t, tb, ToolSems, `{"query":"Which suppliers are on probation?"}`)
	if first := strings.SplitN(out, "\n", 4)[2]; !strings.Contains(first, "chunk") {
		t.Errorf("probation: first hit is not the chunk that says it:\n%s", out)
	}
	ce := callErr(t, tb, ToolSems, `{"query":" ?! "}`, FailMalformed)
	wantAll(t, "empty query", ce.Error(), "no word to search for")
}

// TestBM25_SQLEqualsTheFormula computes BM25 from the bundle's postings in
// Go, term by term, and compares it with the scores of the SQL ranking.
func TestBM25_SQLEqualsTheFormula(t *testing.T) {
	tb := exampleTools(t)
	ctx := context.Background()
	terms := []string{"kestrel", "frames", "probation"}
	got, err := tb.bm25(ctx, terms, 1000)
	if err != nil || len(got) == 0 {
		t.Fatal(got, err)
	}
	lens, ids := map[int]int{}, map[int]string{}
	if err := tb.b.PostingDocs(ctx, func(d bundle.PostingDoc) error { lens[d.Doc], ids[d.Doc] = d.Len, d.ID; return nil }); err != nil {
		t.Fatal(err)
	}
	avg := 0.0
	for _, l := range lens {
		avg += float64(l)
	}
	avg /= float64(len(lens))
	tf, df := map[string]map[int]int{}, map[string]int{}
	if err := tb.b.Postings(ctx, func(p bundle.Posting) error {
		if tf[p.Term] == nil {
			tf[p.Term] = map[int]int{}
		}
		tf[p.Term][p.Doc] = p.TF
		df[p.Term]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	n := float64(len(lens))
	for _, term := range terms {
		idf := math.Log(1 + (n-float64(df[term])+0.5)/(float64(df[term])+0.5))
		for doc, f := range tf[term] {
			k := float64(f)
			want[ids[doc]] += idf * k * (bm25K1 + 1) / (k + bm25K1*(1-bm25B+bm25B*float64(lens[doc])/avg))
		}
	}
	if len(got) != len(want) {
		t.Errorf("SQL ranked %d documents, the formula scores %d", len(got), len(want))
	}
	for i, r := range got {
		if math.Abs(r.Score-want[r.ID]) > 1e-9 {
			t.Errorf("%s: SQL %g, formula %g", r.ID, r.Score, want[r.ID])
		}
		if i > 0 && r.Score > got[i-1].Score {
			t.Errorf("ranking not descending at %d", i)
		}
	}
}

func TestFuse_ReciprocalRankPrefersWhatBothListsFind(t *testing.T) {
	lexical := []ranked{{"a", 9}, {"b", 8}, {"c", 7}}
	dense := []ranked{{"c", 0.9}, {"d", 0.8}}
	got := fuse(lexical, dense, 3)
	if len(got) != 3 || got[0].ID != "c" || got[0].BM25 != 3 || got[0].DenseRank != 1 {
		t.Fatalf("fuse = %+v, want c first (in both lists)", got)
	}
	if want := 1/float64(rrfK+3) + 1/float64(rrfK+1); math.Abs(got[0].Score-want) > 1e-12 {
		t.Errorf("c scores %g, want %g", got[0].Score, want)
	}
	// a is first of one list (1/61); b and d are second of one (1/62 each):
	// the tie goes by id.
	if got[1].ID != "a" || got[2].ID != "b" {
		t.Errorf("fuse = %+v, want c, a, b", got)
	}
}

// TestSems_UnreachableEmbeddingServerFallsBackToBM25 points a real client
// at a port nobody listens on: sems still answers, by BM25, and says why.
func TestSems_UnreachableEmbeddingServerFallsBackToBM25(t *testing.T) {
	vs := bundle.VectorSet{Name: "entities", Model: llm.EmbedModelForTests, Dim: 2, IDs: []string{"hub", "s00"}, Data: []float32{1, 0, 0, 1}}
	tb := starToolsWith(t, 3, []bundle.VectorSet{vs}, bundle.Manifest{})
	c, err := llm.New(llm.Options{Host: "http://127.0.0.1:1", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	tb.SetEmbedder(c)
	out := call(t, tb, ToolSems, `{"query":"spoke 2"}`)
	wantAll(t, "sems without a server", out, "note: the embedding server could not embed the query with "+llm.EmbedModelForTests, "BM25 alone",
		"1\tconcept\ts02\tbm25 1\tvector -: spoke 2 (Entity)")
}

func TestSemsIntegration_FusesVectorsOfTheRealModelWithBM25(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	b := exampleBundleWithVectors(t, c, llm.EmbedModelForTests)
	tb, err := NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	tb.SetEmbedder(c)
	out := call(t, tb, ToolSems, `{"query":"carbon bicycle frame"}`)
	if strings.Contains(out, "note:") {
		t.Fatalf("sems with the real model fell back:\n%s", out)
	}
	both, dense := 0, 0
	for _, line := range strings.Split(out, "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) < 5 || !strings.HasPrefix(f[4], "vector ") {
			continue
		}
		if r, err := strconv.Atoi(strings.TrimSuffix(strings.Fields(f[4])[1], ":")); err == nil && r > 0 {
			dense++
			if f[3] != "bm25 -" {
				both++
			}
		}
	}
	if dense == 0 || both == 0 || !strings.Contains(out, "Carbon frame GV7") {
		t.Errorf("want hits ranked by the vectors, some by both lists, and the carbon frame:\n%s", out)
	}
	t.Log(out)
}

// runtimeEmbedder is a fault double: an embedder that names its vectors
// by digest, so a test can hand sems one of another runtime than the
// bundle's. Every query embeds to (0, 1), the vector of spoke s00.
type runtimeEmbedder struct {
	digest string
	calls  int
}

func (e *runtimeEmbedder) Embed(_ context.Context, _ string, in []string, _ int) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(in))
	for i := range out {
		out[i] = []float32{0, 1}
	}
	return out, nil
}

func (e *runtimeEmbedder) ModelDigests(_ context.Context, names ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range names {
		out[n] = e.digest
	}
	return out, nil
}

// embedDigestTools is the star bundle with one spoke and two vectors,
// its manifest saying that the build embedded them with digest.
func embedDigestTools(t *testing.T, digest string) *Toolbox {
	t.Helper()
	vs := bundle.VectorSet{Name: "entities", Model: llm.EmbedModelForTests, Dim: 2, IDs: []string{"hub", "s00"}, Data: []float32{1, 0, 0, 1}}
	m := bundle.Manifest{Models: map[string]bundle.Model{"embed": {Name: llm.EmbedModelForTests, Digest: digest}}}
	return starToolsWith(t, 1, []bundle.VectorSet{vs}, m)
}

// TestSems_NeverComparesTheQueryWithVectorsOfAnotherRuntime: a bundle
// whose vectors ONNX Runtime made, and an embedder that makes Ollama's:
// sems must not rank by the vectors (they are not the same vectors even
// for one model) and says why and what to do; with the bundle's runtime it
// ranks by them.
func TestSems_NeverComparesTheQueryWithVectorsOfAnotherRuntime(t *testing.T) {
	const onnx = "onnx-sha256:6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452"
	tb := embedDigestTools(t, onnx)
	ollama := &runtimeEmbedder{digest: "sha256:1b226e2802dbb772b5fc32a58f103ca1804ef7501331012de126ab22f67475ef"}
	tb.SetEmbedder(ollama)
	out := call(t, tb, ToolSems, `{"query":"spoke 0"}`)
	wantAll(t, "sems, Ollama's query against ONNX vectors", out,
		"note: the bundle's vectors of "+llm.EmbedModelForTests+" were made by ONNX Runtime (onnx-sha256:6fd5d72fe458) but this session embeds with Ollama (sha256:1b226e2802db)",
		"BM25 alone", "run scripts/onnx.sh up", "\tvector -: spoke 0")
	if ollama.calls != 0 {
		t.Errorf("the query was embedded %d times by the wrong runtime", ollama.calls)
	}
	same := &runtimeEmbedder{digest: onnx}
	tb.SetEmbedder(same)
	out = call(t, tb, ToolSems, `{"query":"spoke 0"}`)
	if strings.Contains(out, "note:") || !strings.Contains(out, "\tvector 1: spoke 0") || same.calls != 1 {
		t.Errorf("sems with the bundle's runtime did not rank by the vectors (%d embeddings):\n%s", same.calls, out)
	}
}
