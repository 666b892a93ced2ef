package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"kgforge/onnxembed"
)

// runONNX measures onnxembed, the pipeline's in-process path, on names at
// every batch size, with this process's CPU time beside the wall time.
func runONNX(ctx context.Context, o options, names []string) error {
	base, err := os.UserCacheDir()
	if err != nil {
		return err
	}
	m, err := onnxembed.Open(onnxembed.DefaultFiles(filepath.Join(base, "kgforge")), o.threads)
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	if _, err := m.Embed(ctx, "", names[:min(64, len(names))], 64); err != nil { // warm up
		return err
	}
	var vecs [][]float32
	for _, b := range o.batches {
		r := result{
			Runtime: "onnxembed (Go, ONNX Runtime " + onnxembed.LibraryVersion + ")", Label: o.label, Names: len(names),
			Batch: b, Concurrency: o.threads, LoadBefore: loadavg(),
		}
		cpu0, start := processCPU(), time.Now()
		if vecs, err = m.Embed(ctx, "", names, b); err != nil {
			return err
		}
		r.Seconds = time.Since(start).Seconds()
		r.CPUSeconds = processCPU() - cpu0
		r.NamesPerSec, r.NamesPerCPUs = float64(len(names))/r.Seconds, float64(len(names))/r.CPUSeconds
		r.LoadAfter = loadavg()
		if err := report(o.out, r); err != nil {
			return err
		}
	}
	if o.vectors != "" {
		return writeVectors(o.vectors, names, vecs)
	}
	return nil
}

// processCPU returns the CPU seconds (user + system) this process has used.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "embed: getrusage:", err)
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
