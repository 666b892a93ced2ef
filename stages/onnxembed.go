package stages

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"kgforge/consolidate"
	"kgforge/onnxembed"
	"kgforge/pipelines"
)

// onnxModels holds the ONNX models opened in this process, by graph path:
// a session is loaded once and serves every build.
var onnxModels struct {
	sync.Mutex
	open map[string]*onnxembed.Model
}

// onnxBatch is the texts per ONNX Runtime run: small batches of similar
// length waste the least on padding and stay in cache (docs/benchmarks.md,
// "Embedding throughput").
const onnxBatch = 16

// onnxPerCall is the texts handed to the model at once: it sorts each
// call's texts by length before it cuts them into batches of onnxBatch, so
// the more it sees at once the less of a batch is padding.
const onnxPerCall = 4096

// ONNXModelEmbedder is a build's entity embedder on m (bench/million
// measures it).
func ONNXModelEmbedder(m *onnxembed.Model, cache consolidate.Cache) *consolidate.ModelEmbedder {
	send := func(ctx context.Context, model string, texts []string, _ int) ([][]float32, error) {
		return m.Embed(ctx, model, texts, onnxBatch)
	}
	return &consolidate.ModelEmbedder{Send: send, Model: onnxembed.ModelName, Digest: m.Digest(), Cache: cache, Batch: onnxPerCall}
}

// ollamaEmbedBatch is the texts per /api/embed request: Ollama's best on
// this machine's measurement, one request at a time (more slots did worse).
const ollamaEmbedBatch = 256

// embedsThroughOllama reports whether a build of p embeds entity names
// through the server, which is then asked for the model's digest: not when
// llm.embed_runtime is onnx, nor auto with the files of scripts/onnx.sh
// there and the one model they hold.
func embedsThroughOllama(p *pipelines.Pipeline) bool {
	rt := p.LLM.EmbedRuntime
	if rt == pipelines.EmbedOllama || p.LLM.EmbedModel != onnxembed.ModelName {
		return true
	}
	return rt != pipelines.EmbedONNX && !onnxembed.UserFiles().Present()
}

// onnxEmbedder returns the in-process embedder the pipeline's
// llm.embed_runtime asks for, or nil for Ollama (embedsThroughOllama): onnx
// requires the files of scripts/onnx.sh.
func onnxEmbedder(p *pipelines.Pipeline) (*onnxembed.Model, error) {
	if embedsThroughOllama(p) {
		return nil, nil
	}
	files := onnxembed.UserFiles()
	onnxModels.Lock()
	defer onnxModels.Unlock()
	if m := onnxModels.open[files.Graph]; m != nil {
		return m, nil
	}
	m, err := onnxembed.Open(files, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, fmt.Errorf("resolve entities: llm.embed_runtime %s: %w", p.LLM.EmbedRuntime, err)
	}
	if onnxModels.open == nil {
		onnxModels.open = map[string]*onnxembed.Model{}
	}
	onnxModels.open[files.Graph] = m
	return m, nil
}
