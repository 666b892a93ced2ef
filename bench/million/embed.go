package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"kgforge/consolidate"
	"kgforge/llm"
	"kgforge/onnxembed"
	"kgforge/stages"
)

// embedConfig is one onnxembed setting: texts per ONNX Runtime run,
// intra-op threads of each session, sessions run side by side, and texts
// per call of the model (which sorts each call's texts by length).
type embedConfig struct{ batch, threads, sessions, perCall int }

func parseConfig(spec string) (embedConfig, error) {
	var v [4]int
	parts := strings.Split(spec, "/")
	if len(parts) != 4 {
		return embedConfig{}, fmt.Errorf("-configs: %q is not BATCH/THREADS/SESSIONS/PER-CALL", spec)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return embedConfig{}, fmt.Errorf("-configs: %q: %q is not a positive number", spec, p)
		}
		v[i] = n
	}
	return embedConfig{v[0], v[1], v[2], v[3]}, nil
}

// pipelineEmbedder is the entity embedder a build makes with
// llm.embed_runtime auto when the files of scripts/onnx.sh are there.
func pipelineEmbedder(cacheDir string) (*consolidate.ModelEmbedder, func(), error) {
	m, err := onnxembed.Open(onnxembed.UserFiles(), runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, nil, err
	}
	cache, err := openCache(cacheDir)
	if err != nil {
		return nil, nil, errors.Join(err, m.Close())
	}
	return stages.ONNXModelEmbedder(m, cache), func() { _ = m.Close() }, nil
}

// configEmbedder is a ModelEmbedder over c.sessions models that split each
// call's texts between them.
func configEmbedder(c embedConfig) (*consolidate.ModelEmbedder, func(), error) {
	var models []*onnxembed.Model
	done := func() {
		for _, m := range models {
			_ = m.Close()
		}
	}
	for range c.sessions {
		m, err := onnxembed.Open(onnxembed.UserFiles(), c.threads)
		if err != nil {
			done()
			return nil, nil, err
		}
		models = append(models, m)
	}
	send := func(ctx context.Context, model string, texts []string, _ int) ([][]float32, error) {
		out := make([][]float32, len(texts))
		errs := make([]error, len(models))
		var wg sync.WaitGroup
		per := (len(texts) + len(models) - 1) / len(models)
		for k, m := range models {
			lo, hi := min(k*per, len(texts)), min((k+1)*per, len(texts))
			wg.Go(func() {
				v, err := m.Embed(ctx, model, texts[lo:hi], c.batch)
				copy(out[lo:], v)
				errs[k] = err
			})
		}
		wg.Wait()
		return out, errors.Join(errs...)
	}
	return &consolidate.ModelEmbedder{Send: send, Model: onnxembed.ModelName, Digest: models[0].Digest(), Batch: c.perCall}, done, nil
}

// embedOllama embeds names through Ollama as a build with
// llm.embed_runtime ollama does (256 names a request), with
// KGFORGE_NUM_THREAD as the client sends it.
func embedOllama(ctx context.Context, o options, names []string) error {
	c, err := llm.New(llm.Options{Host: o.host})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Embed(ctx, onnxembed.ModelName, names[:1], 1); err != nil { // load the model
		return err
	}
	start := time.Now()
	for s := 0; s < len(names); s += 256 {
		if _, err := c.Embed(ctx, onnxembed.ModelName, names[s:min(s+256, len(names))], 256); err != nil {
			return err
		}
	}
	r := phase("ollama", "batch 256, num_thread "+cmpOr(osEnv("KGFORGE_NUM_THREAD"), "server default"), len(names), start, 0)
	emit(o.out, r)
	return nil
}

// processCPU returns the CPU seconds (user + system) this process has used.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
