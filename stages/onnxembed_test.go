package stages

import (
	"context"
	"os"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/onnxembed"
	"kgforge/pipelines"
)

// TestEmbedderRuntimeONNXWithoutFilesFailsNamingTheScript: a pipeline that
// asks for embed_runtime onnx on a machine without the files fails, naming
// the missing file and the script that provisions it.
func TestEmbedderRuntimeONNXWithoutFilesFailsNamingTheScript(t *testing.T) {
	p, c := noServerPipeline(t, nil, "  - {name: docs, paths: [\"*.md\"]}\n")
	p.LLM.EmbedRuntime = pipelines.EmbedONNX
	t.Setenv("KGFORGE_ONNX_DIR", t.TempDir())
	rn := &Runner{LLM: c, CacheDir: t.TempDir()}
	_, err := rn.embedder(context.Background(), p, &modelDigests{client: c})
	if err == nil || !strings.Contains(err.Error(), "scripts/onnx.sh") || !strings.Contains(err.Error(), "embed_runtime onnx") {
		t.Fatalf("embedder: %v; want an error naming embed_runtime onnx and scripts/onnx.sh", err)
	}
}

// TestEmbedderAutoFallsBackToOllamaWithoutONNXFiles: auto without the files
// embeds through the server (here a closed one, which the error names).
func TestEmbedderAutoFallsBackToOllamaWithoutONNXFiles(t *testing.T) {
	p, c := noServerPipeline(t, nil, "  - {name: docs, paths: [\"*.md\"]}\n")
	if p.LLM.EmbedRuntime != pipelines.EmbedAuto {
		t.Fatalf("default embed_runtime %q, want auto", p.LLM.EmbedRuntime)
	}
	t.Setenv("KGFORGE_ONNX_DIR", t.TempDir())
	rn := &Runner{LLM: c, CacheDir: t.TempDir()}
	_, err := rn.embedder(context.Background(), p, &modelDigests{client: c})
	if err == nil || !strings.Contains(err.Error(), closedServer) {
		t.Fatalf("embedder: %v; want the server's error (auto falls back to Ollama)", err)
	}
}

// TestEmbedderAutoRunsONNXWhenProvisioned: with scripts/onnx.sh's files
// (make test provisions them) auto embeds in process, and the vectors are
// cached under the graph's digest, not the server's.
func TestEmbedderAutoRunsONNXWhenProvisioned(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set (needs scripts/onnx.sh up)")
	}
	p, c := noServerPipeline(t, nil, "  - {name: docs, paths: [\"*.md\"]}\n")
	rn := &Runner{LLM: c, CacheDir: t.TempDir()}
	e, err := rn.embedder(context.Background(), p, &modelDigests{client: c})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.Digest, "onnx-sha256:") {
		t.Fatalf("embedder digest %q; want the ONNX graph's (onnx-sha256:...)", e.Digest)
	}
	vecs, err := e.Embed(context.Background(), []string{"Kestrel Alloys", "Velora Cycles"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 384 {
		t.Fatalf("Embed: %d vectors, %v", len(vecs), err)
	}
	if _, err := e.Embed(context.Background(), []string{"Kestrel Alloys"}); err != nil || e.Hits != 1 {
		t.Errorf("second Embed of the same name: %d cache hits, %v; want 1", e.Hits, err)
	}
}

// TestEmbedderOllamaSendsBatchesOf256: through the server, names go 256 to a
// request (the fastest batch measured; the old default was 64), under the
// server's digest.
func TestEmbedderOllamaSendsBatchesOf256(t *testing.T) {
	p, c := noServerPipeline(t, nil, "  - {name: docs, paths: [\"*.md\"]}\n")
	p.LLM.EmbedRuntime = pipelines.EmbedOllama
	rn := &Runner{LLM: c, CacheDir: t.TempDir()}
	e, err := rn.embedder(context.Background(), p, &modelDigests{client: c, got: map[string]string{p.LLM.EmbedModel: "sha256:abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Batch != 256 || e.Digest != "sha256:abc" {
		t.Errorf("Ollama embedder: batch %d, digest %q; want 256 and the server's digest", e.Batch, e.Digest)
	}
}

// TestRunner_ONNXEmbedRuntimeNeverAsksTheServerForTheEmbedModel builds
// with llm.embed_runtime onnx, and with auto where the files are there,
// against a server that lacks the embedding model (a fault double: it
// serves the chat model alone). The build embeds in process, so it must
// not fail on the server's missing model, and the manifest names the ONNX
// graph's digest.
func TestRunner_ONNXEmbedRuntimeNeverAsksTheServerForTheEmbedModel(t *testing.T) {
	if !onnxembed.UserFiles().Present() {
		t.Skip("no files of scripts/onnx.sh (run scripts/onnx.sh up; make test does)")
	}
	for _, rt := range []pipelines.EmbedRuntime{pipelines.EmbedONNX, pipelines.EmbedAuto} {
		t.Run(string(rt), func(t *testing.T) {
			c, _ := fakeOllama(t, false)
			p, _ := sixDocs(t)
			on := true
			p.Resolution.Embeddings, p.LLM.EmbedRuntime = &on, rt
			out := t.TempDir()
			if _, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p); err != nil {
				t.Fatalf("build with embed_runtime %s: %v", rt, err)
			}
			b, err := bundle.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = b.Close() }()
			if e := b.Manifest.Models["embed"]; e.Name != p.LLM.EmbedModel || !strings.HasPrefix(e.Digest, "onnx-sha256:") {
				t.Errorf("manifest embed model %+v; want %s with the ONNX graph's digest", e, p.LLM.EmbedModel)
			}
		})
	}
}
