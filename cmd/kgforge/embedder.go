package main

import (
	"context"
	"strings"
	"sync"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/onnxembed"
)

// queryClient is the LLM client of ask, eval and mcp with the embedder the
// agent's sems tool embeds its query with: the runtime that made the
// bundle's vectors. When the manifest's embed digest is ONNX Runtime's
// ("onnx-sha256:…") and the files of scripts/onnx.sh are there, the query
// is embedded in process through that graph; otherwise through Ollama, and
// sems, which compares the embedder's digest with the manifest's, falls
// back to BM25 and says why when they differ (agent.Toolbox.sameVectors).
type queryClient struct {
	*llm.Client
	onnx *onnxembed.Model // nil: Ollama embeds
}

// withQueryEmbedder returns c with the query embedder for bundle b.
func withQueryEmbedder(c *llm.Client, b *bundle.Bundle) queryClient {
	q := queryClient{Client: c}
	if e := b.Manifest.Models["embed"]; e.Name == onnxembed.ModelName && strings.HasPrefix(e.Digest, onnxembed.DigestPrefix) {
		q.onnx, _ = queryONNX() // without it sems says what is missing
	}
	return q
}

// Embed embeds with ONNX Runtime the one model it runs, when the bundle's
// vectors came from it, and with Ollama otherwise.
func (q queryClient) Embed(ctx context.Context, model string, inputs []string, batch int) ([][]float32, error) {
	if q.onnx != nil && model == onnxembed.ModelName {
		return q.onnx.Embed(ctx, model, inputs, batch)
	}
	return q.Client.Embed(ctx, model, inputs, batch)
}

// ModelDigests names the vectors Embed makes: the ONNX graph's digest for
// its model, Ollama's for the others.
func (q queryClient) ModelDigests(ctx context.Context, names ...string) (map[string]string, error) {
	if q.onnx == nil {
		return q.Client.ModelDigests(ctx, names...)
	}
	out := map[string]string{}
	var rest []string
	for _, n := range names {
		if n == onnxembed.ModelName {
			out[n] = q.onnx.Digest()
		} else {
			rest = append(rest, n)
		}
	}
	if len(rest) > 0 {
		ds, err := q.Client.ModelDigests(ctx, rest...)
		if err != nil {
			return nil, err
		}
		for n, d := range ds {
			out[n] = d
		}
	}
	return out, nil
}

// queryONNX opens the ONNX model once per process (one thread: a query is
// one text), where a build looks for its files.
var queryONNX = sync.OnceValues(func() (*onnxembed.Model, error) {
	return onnxembed.Open(onnxembed.UserFiles(), 1)
})
