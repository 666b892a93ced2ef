package stages

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

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

// ollamaEmbedBatch is the texts per /api/embed request: Ollama's best on
// this machine's measurement, one request at a time (more slots did worse).
const ollamaEmbedBatch = 256

// onnxEmbedder returns the in-process embedder the pipeline's
// llm.embed_runtime asks for, or nil for Ollama: onnx requires the files
// of scripts/onnx.sh; auto uses them when they are there and the model is
// the one they hold.
func onnxEmbedder(p *pipelines.Pipeline) (*onnxembed.Model, error) {
	rt := p.LLM.EmbedRuntime
	if rt == pipelines.EmbedOllama || p.LLM.EmbedModel != onnxembed.ModelName {
		return nil, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	files := onnxembed.DefaultFiles(filepath.Join(base, "kgforge"))
	if rt != pipelines.EmbedONNX && !files.Present() {
		return nil, nil
	}
	onnxModels.Lock()
	defer onnxModels.Unlock()
	if m := onnxModels.open[files.Graph]; m != nil {
		return m, nil
	}
	m, err := onnxembed.Open(files, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, fmt.Errorf("resolve entities: llm.embed_runtime %s: %w", rt, err)
	}
	if onnxModels.open == nil {
		onnxModels.open = map[string]*onnxembed.Model{}
	}
	onnxModels.open[files.Graph] = m
	return m, nil
}
