package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"
)

// pipelineYAML is the pipeline of every bundle: the markdown documents and
// the CSV and SQLite tables of one directory (sources), names not
// embedded, Neo4j left alone, extraction skipped unless -extract.
const pipelineYAML = `name: agentq
root: .
output: out
sources:
%sllm:
  chat_model: %q
  embed_model: all-minilm:l6-v2
resolve:
  embeddings: false
neo4j:
  mode: never
extract:
  skip: %v
`

// buildBundle builds the bundle of one source directory with kgforge's
// own runner, once: a directory built before is opened as it is.
func buildBundle(ctx context.Context, o options, client *llm.Client, src string) (string, error) {
	out := filepath.Join(src, "out")
	if b, err := bundle.Open(out); err == nil {
		return b.Dir, b.Close()
	}
	var sources strings.Builder
	for _, pattern := range []string{"*.md", "*.csv", "*.sqlite"} {
		if m, _ := filepath.Glob(filepath.Join(src, pattern)); len(m) > 0 {
			fmt.Fprintf(&sources, "  - name: %s\n    paths: [%q]\n", strings.TrimPrefix(pattern, "*."), pattern)
		}
	}
	path := filepath.Join(src, "pipeline.yaml")
	if err := os.WriteFile(path, fmt.Appendf(nil, pipelineYAML, sources.String(), o.model, !o.extract), 0o644); err != nil {
		return "", err
	}
	p, err := pipelines.Load(path)
	if err != nil {
		return "", err
	}
	rn := &stages.Runner{LLM: client, CacheDir: cacheDir(), OutDir: out, Log: slog.New(slog.DiscardHandler)}
	rep, err := rn.Run(ctx, p)
	if err != nil {
		return "", fmt.Errorf("build %s: %w", src, err)
	}
	return rep.Bundle, nil
}

func cacheDir() string {
	if d := os.Getenv("KGFORGE_CACHE_DIR"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "kgforge")
}

func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// copyFile copies a benchmark file into a bundle's source directory
// (a temporary one, never the repository).
func copyFile(dst, src string) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, raw, 0o644)
}
