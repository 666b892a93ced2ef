package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"kgforge/consolidate"
	"kgforge/stages"
)

type options struct {
	n, sweep, ollama int
	dup              float64
	seed             uint64
	configs, out     string
	cache, host      string
	resolve          bool
	memprofile       string
}

// record is one measured phase or configuration, written as a JSON line.
type record struct {
	Phase       string  `json:"phase"`
	Config      string  `json:"config,omitempty"`
	Names       int     `json:"names"`
	Seconds     float64 `json:"seconds"`
	NamesPerSec float64 `json:"names_per_s,omitempty"`
	CPUSeconds  float64 `json:"cpu_s,omitempty"`
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
	Load        string  `json:"load"`
	Note        string  `json:"note,omitempty"`
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 1_000_000, "distinct names to generate, embed and resolve")
	flag.Float64Var(&o.dup, "dup", 0.1, "share of the names that are planted variants of another")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the names")
	flag.IntVar(&o.sweep, "sweep", 0, "first compare the -configs on this many of the names (0: no sweep)")
	flag.StringVar(&o.configs, "configs", "pipeline,16/2/1/16,16/2/1/4096,32/2/1/4096,16/1/2/4096", "onnxembed settings to sweep: pipeline (what a build does) or BATCH/THREADS/SESSIONS/PER-CALL, comma-separated")
	flag.StringVar(&o.cache, "cache", "", "keep the vectors in a disk cache here, as a build does (empty: none)")
	flag.BoolVar(&o.resolve, "resolve", true, "resolve the names after embedding them")
	flag.IntVar(&o.ollama, "ollama", 0, "also embed this many of the names through Ollama (0: not)")
	flag.StringVar(&o.host, "host", "", "Ollama server for -ollama (empty: OLLAMA_HOST)")
	flag.BoolVar(&withDigest, "digest", false, "add the SHA-256 of the whole result's JSON to the resolve note (to show two builds resolve alike; the JSON is held in memory, so not for a peak measured at a million)")
	flag.IntVar(&samples, "samples", 0, "print this many clusters that join two bases (stderr)")
	flag.StringVar(&o.out, "out", "", "append one JSON line per record to this file")
	flag.StringVar(&o.memprofile, "memprofile", "", "write the heap profile at the largest heap in use seen (checked every 0.5 s) to this file: what the peak is made of")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "million:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	emit(o.out, record{Phase: "start", Note: uptime()})
	if o.memprofile != "" {
		stop, err := peakProfile(o.memprofile, 500*time.Millisecond)
		if err != nil {
			return err
		}
		defer stop()
	}
	start := time.Now()
	ents := generate(o.n, o.dup, o.seed)
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	emit(o.out, phase("generate", "", len(names), start, 0))
	if o.sweep > 0 {
		for _, spec := range strings.Split(o.configs, ",") {
			if err := sweepOne(ctx, o, spec, names[:min(o.sweep, len(names))]); err != nil {
				return err
			}
		}
	}
	if o.ollama > 0 {
		if err := embedOllama(ctx, o, names[:min(o.ollama, len(names))]); err != nil {
			return err
		}
	}
	if !o.resolve {
		return nil
	}
	t0 := time.Now()
	emb, done, err := pipelineEmbedder(o.cache)
	if err != nil {
		return err
	}
	cpu0 := processCPU()
	vecs, err := emb.Embed(ctx, names)
	// The encoder is done with once the names are embedded, as a build's
	// is before it resolves: its session's memory is not resolution's.
	done()
	if err != nil {
		return err
	}
	emit(o.out, phase("embed", "pipeline", len(names), t0, processCPU()-cpu0))
	t1 := time.Now()
	note, err := resolveAll(ctx, ents, vecs)
	if err != nil {
		return err
	}
	r := phase("resolve", "pipeline defaults", len(names), t1, 0)
	r.Note = note
	emit(o.out, r)
	total := phase("total", "embed + resolve", len(names), t0, 0)
	total.Note = uptime()
	emit(o.out, total)
	return nil
}

// sweepOne embeds names with one onnxembed setting.
func sweepOne(ctx context.Context, o options, spec string, names []string) error {
	var emb *consolidate.ModelEmbedder
	var done func()
	var err error
	if spec == "pipeline" {
		emb, done, err = pipelineEmbedder("")
	} else {
		var c embedConfig
		if c, err = parseConfig(spec); err == nil {
			emb, done, err = configEmbedder(c)
		}
	}
	if err != nil {
		return err
	}
	defer done()
	if _, err := emb.Embed(ctx, names[:min(64, len(names))]); err != nil { // warm up
		return err
	}
	start, cpu0 := time.Now(), processCPU()
	if _, err := emb.Embed(ctx, names); err != nil {
		return err
	}
	emit(o.out, phase("sweep", spec, len(names), start, processCPU()-cpu0))
	return nil
}

func phase(name, config string, n int, start time.Time, cpu float64) record {
	s := time.Since(start).Seconds()
	r := record{Phase: name, Config: config, Names: n, Seconds: s, CPUSeconds: cpu, PeakRSSMiB: peakRSS(), Load: loadavg()}
	if name == "embed" || name == "sweep" || name == "ollama" {
		r.NamesPerSec = float64(n) / s
	}
	return r
}

func emit(path string, r record) {
	line, _ := json.Marshal(r)
	fmt.Println(string(line))
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "million: write results:", err)
		return
	}
	defer func() { _ = f.Close() }()
	_, _ = fmt.Fprintln(f, string(line))
}

// peakRSS returns the process's peak resident set (VmHWM) in MiB.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func uptime() string {
	out, _ := exec.Command("uptime").Output()
	return strings.TrimSpace(string(out))
}

// openCache opens the disk cache a build keeps vectors in, or none.
func openCache(dir string) (consolidate.Cache, error) {
	if dir == "" {
		return nil, nil
	}
	return stages.OpenDiskCache(dir)
}

// peakProfile writes the heap profile to path each time the heap in use
// reaches a new maximum, checked every interval, until stop: the file then
// holds what the largest heap was made of (as of the garbage collection
// before it, as heap profiles are).
func peakProfile(path string, interval time.Duration) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-memprofile: %w", err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var peak uint64
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse <= peak {
				continue
			}
			peak = m.HeapInuse
			if _, err := f.Seek(0, 0); err == nil && f.Truncate(0) == nil {
				_ = pprof.WriteHeapProfile(f) // a dev tool: a failed write leaves the previous profile
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		_ = f.Close()
	}, nil
}
