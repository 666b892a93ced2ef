package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"kgforge/agent"
	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/onnxembed"
)

// onnxBundle writes a bundle of three concepts whose vectors the ONNX
// model made, its manifest saying so (as a build with embed_runtime onnx
// writes it), and opens it.
func onnxBundle(t *testing.T, m *onnxembed.Model) *bundle.Bundle {
	t.Helper()
	names := []string{"Kestrel Alloys", "Velora Cycles", "carbon bicycle frame"}
	vecs, err := m.Embed(context.Background(), "", names, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := kg.Graph{}
	vs := bundle.VectorSet{Name: "entities", Model: onnxembed.ModelName, Dim: len(vecs[0])}
	for i, n := range names {
		id := "n" + string(rune('0'+i))
		g.Nodes = append(g.Nodes, kg.Node{ID: id, Name: n, Kind: kg.NodeConcept, Labels: []string{"Entity"}})
		vs.IDs, vs.Data = append(vs.IDs, id), append(vs.Data, vecs[i]...)
	}
	out := t.TempDir()
	w, err := bundle.Create(out, "onnx")
	if err != nil {
		t.Fatal(err)
	}
	man := bundle.Manifest{Models: map[string]bundle.Model{"embed": {Name: onnxembed.ModelName, Digest: m.Digest()}}}
	src := kg.Source{ID: "s1", URI: "notes.txt", Kind: kg.KindText}
	chunk := kg.Chunk{ID: "c1", SourceID: "s1", Text: "Velora Cycles buys frames.", Span: kg.Span{Start: 0, End: 26}}
	if _, err := w.Commit(bundle.Contents{Graph: g, Sources: []kg.Source{src}, Chunks: []kg.Chunk{chunk}, Vectors: []bundle.VectorSet{vs}}, man); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// TestQueryEmbedderFollowsTheBundlesONNXVectors: sems over a bundle whose
// vectors ONNX Runtime made embeds its query in process through the same
// graph, with no Ollama server at all, and ranks by the vectors; ask, eval
// and mcp build their embedder this way.
func TestQueryEmbedderFollowsTheBundlesONNXVectors(t *testing.T) {
	m, err := queryONNX()
	if err != nil {
		t.Skipf("no ONNX model (run scripts/onnx.sh up; make test does): %v", err)
	}
	b := onnxBundle(t, m)
	c, err := llm.New(llm.Options{Host: "http://127.0.0.1:1", MaxRetries: -1}) // no server
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tb, err := agent.NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	tb.SetEmbedder(withQueryEmbedder(c, b))
	out, err := tb.Call(context.Background(), agent.ToolSems, json.RawMessage(`{"query":"bike frame made of carbon"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "note:") || !strings.Contains(out, "\tvector 1: carbon bicycle frame") {
		t.Errorf("sems did not rank by the bundle's ONNX vectors:\n%s", out)
	}
	// With the Ollama client alone, sems does not compare the query with
	// the ONNX vectors (here it cannot even ask the server) and says so.
	tb.SetEmbedder(c)
	out, err = tb.Call(context.Background(), agent.ToolSems, json.RawMessage(`{"query":"bike frame made of carbon"}`))
	if err != nil || !strings.Contains(out, "BM25 alone") {
		t.Errorf("sems with Ollama against ONNX vectors: %v\n%s", err, out)
	}
}

// TestQueryEmbedderKeepsOllamaForOllamaVectors: a bundle embedded through
// Ollama gets the Ollama client's embedder, not ONNX Runtime's.
func TestQueryEmbedderKeepsOllamaForOllamaVectors(t *testing.T) {
	c, err := llm.New(llm.Options{Host: "http://127.0.0.1:1", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	b := &bundle.Bundle{Manifest: bundle.Manifest{Models: map[string]bundle.Model{"embed": {Name: onnxembed.ModelName, Digest: "sha256:1b226e2802db"}}}}
	if q := withQueryEmbedder(c, b); q.onnx != nil {
		t.Error("a bundle of Ollama vectors got the ONNX embedder")
	}
}
