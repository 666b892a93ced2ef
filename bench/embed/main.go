package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"kgforge/llm"
)

type options struct {
	data, host, model, out, vectors string
	batches                         []int
	concurrency, n, numThread       int
	runnerPID, threads              int
	runtime                         string
	seed                            uint64
	label                           string
}

// result is one measured configuration.
type result struct {
	Runtime     string  `json:"runtime"`
	Label       string  `json:"label,omitempty"`
	Names       int     `json:"names"`
	Batch       int     `json:"batch"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	NamesPerSec float64 `json:"names_per_s"`
	// CPUSeconds is the CPU time the server's model runner spent (user +
	// system), with -runner-pid: against a loaded machine's wall time it
	// says what the work costs on an idle core.
	CPUSeconds   float64 `json:"cpu_s,omitempty"`
	NamesPerCPUs float64 `json:"names_per_cpu_s,omitempty"`
	LoadBefore   string  `json:"load_before"`
	LoadAfter    string  `json:"load_after"`
}

func main() {
	var o options
	var batches string
	flag.StringVar(&o.data, "data", "../shared/benchmarks/entity-resolution", "the entity-resolution benchmark folder")
	flag.StringVar(&o.host, "host", "http://127.0.0.1:11438", "Ollama server (a private one: the bench keeps it busy)")
	flag.StringVar(&o.model, "model", llm.EmbedModelForTests, "embedding model")
	flag.StringVar(&batches, "batches", "1,16,64,256,1024", "inputs per /api/embed call, comma-separated")
	flag.IntVar(&o.concurrency, "c", 1, "concurrent requests (match the server's OLLAMA_NUM_PARALLEL)")
	flag.IntVar(&o.n, "n", 2000, "names in the sample; 0: all distinct names")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the sample's order")
	flag.IntVar(&o.numThread, "num-thread", 0, "Ollama's num_thread option; 0: the server's default")
	flag.IntVar(&o.runnerPID, "runner-pid", 0, "pid of the server (its model runner is found among its children) whose CPU time to record")
	flag.StringVar(&o.runtime, "runtime", "ollama", "ollama (the server at -host) or onnx (onnxembed in process, the pipeline's path; files of scripts/onnx.sh)")
	flag.IntVar(&o.threads, "threads", 1, "ONNX Runtime intra-op threads (-runtime onnx)")
	flag.StringVar(&o.label, "label", "", "free text kept with each result (server settings)")
	flag.StringVar(&o.out, "out", "", "append one JSON line per result to this file")
	flag.StringVar(&o.vectors, "vectors", "", "write the sample's names (NAME.txt) and vectors of the last batch size (NAME.f32) here")
	flag.Parse()
	for _, s := range strings.Split(batches, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b <= 0 {
			fmt.Fprintf(os.Stderr, "embed: -batches: %q is not a positive number\n", s)
			os.Exit(2)
		}
		o.batches = append(o.batches, b)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	names, err := loadNames(o.data, o.n, o.seed)
	if err != nil {
		return err
	}
	if o.runtime == "onnx" {
		return runONNX(ctx, o, names)
	}
	c := &server{url: strings.TrimRight(o.host, "/") + "/api/embed", model: o.model, options: map[string]any{}}
	if o.numThread > 0 {
		c.options["num_thread"] = o.numThread
	}
	if _, err := c.embed(ctx, names[:1]); err != nil { // load the model with these options
		return err
	}
	var vecs [][]float32
	for _, b := range o.batches {
		r := result{Runtime: "ollama", Label: o.label, Names: len(names), Batch: b, Concurrency: o.concurrency, LoadBefore: loadavg()}
		cpu0 := runnerCPU(o.runnerPID)
		start := time.Now()
		vecs, err = embedConcurrently(ctx, c, names, b, o.concurrency)
		if err != nil {
			return err
		}
		r.Seconds = time.Since(start).Seconds()
		r.NamesPerSec = float64(len(names)) / r.Seconds
		if o.runnerPID > 0 {
			r.CPUSeconds = runnerCPU(o.runnerPID) - cpu0
			r.NamesPerCPUs = float64(len(names)) / r.CPUSeconds
		}
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

// embedConcurrently embeds names in batches of b, conc requests at a time,
// and returns the vectors in order.
func embedConcurrently(ctx context.Context, c *server, names []string, b, conc int) ([][]float32, error) {
	out := make([][]float32, len(names))
	starts := make(chan int)
	errs := make(chan error, conc)
	var wg sync.WaitGroup
	for range max(conc, 1) {
		wg.Go(func() {
			for s := range starts {
				part := names[s:min(s+b, len(names))]
				v, err := c.embed(ctx, part)
				if err != nil {
					errs <- err
					return
				}
				copy(out[s:], v)
			}
		})
	}
	for s := 0; s < len(names); s += b {
		if len(errs) > 0 {
			break
		}
		starts <- s
	}
	close(starts)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
		return out, nil
	}
}

func report(path string, r result) error {
	line, _ := json.Marshal(r)
	fmt.Println(string(line))
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	_, err = fmt.Fprintln(f, string(line))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeVectors writes the names one a line and the vectors as little-endian
// float32 rows, for comparing another runtime's vectors with these.
func writeVectors(prefix string, names []string, vecs [][]float32) error {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(prefix+".txt", []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	b := make([]byte, 0, len(vecs)*len(vecs[0])*4)
	for _, v := range vecs {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	return os.WriteFile(prefix+".f32", b, 0o644)
}

// loadavg returns the 1, 5 and 15 minute load averages.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
