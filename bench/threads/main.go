package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"kgforge/llm"
)

func main() {
	threads := flag.String("threads", "0,1,2", "num_thread settings to measure; 0 is the server's default")
	burners := flag.String("burners", "0,3", "CPU burners beside the server, one row each")
	runs := flag.Int("runs", 3, "timed calls per setting (median reported)")
	model := flag.String("model", llm.ChatModelForTests, "Ollama chat model")
	flag.Parse()
	ctx := context.Background()
	fmt.Printf("| burners | num_thread | wall s (median of %d) | prompt tokens/s | completion tokens/s |\n|---|---|---|---|---|\n", *runs)
	for _, b := range ints(*burners) {
		stop := burn(b)
		for _, nt := range ints(*threads) {
			row, err := measure(ctx, *model, nt, *runs)
			if err != nil {
				stop()
				log.Fatalf("threads: num_thread %d with %d burners: %v", nt, b, err)
			}
			fmt.Printf("| %d | %s | %.2f | %.0f | %.1f |\n", b, label(nt), row.wall, row.promptRate, row.genRate)
		}
		stop()
	}
}

type result struct{ wall, promptRate, genRate float64 }

// measure times runs completions at num_thread nt after one warm-up call
// that loads the runner with that setting; each prompt differs in its
// first line so that no call reuses the server's prompt cache.
func measure(ctx context.Context, model string, nt, runs int) (result, error) {
	opt := llm.Options{NumThread: nt}
	if nt == 0 {
		opt.NumThread = -1 // the server's default, whatever KGFORGE_NUM_THREAD says
	}
	c, err := llm.New(opt)
	if err != nil {
		return result{}, err
	}
	defer c.Close()
	var walls, prompts, gens []float64
	for i := -1; i < runs; i++ {
		start := time.Now()
		resp, err := c.Generate(ctx, llm.GenerateRequest{Model: model, Raw: true, Prompt: prompt(nt*1000 + i + 1), NumPredict: 40, Seed: 1})
		if err != nil {
			return result{}, err
		}
		if i < 0 {
			continue // the warm-up: loads the runner with this setting
		}
		walls = append(walls, time.Since(start).Seconds())
		prompts = append(prompts, rate(resp.PromptTokens, resp.PromptDuration))
		gens = append(gens, rate(resp.CompletionTokens, resp.EvalDuration))
	}
	return result{median(walls), median(prompts), median(gens)}, nil
}

func prompt(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Report %d.\n", n)
	for i := range 40 {
		fmt.Fprintf(&b, "Plant %d in Rotterdam supplies valves to Acme Corp under contract %d. ", i, n*100+i)
	}
	b.WriteString("\nFacts:\n")
	return b.String()
}

// burn starts n busy threads and returns what stops them.
func burn(n int) func() {
	var done atomic.Bool
	runtime.GOMAXPROCS(max(runtime.NumCPU(), n+1))
	for range n {
		go func() {
			runtime.LockOSThread()
			x := 0
			for !done.Load() {
				x++
			}
			_ = x
		}()
	}
	return func() { done.Store(true) }
}

func rate(tokens int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(tokens) / d.Seconds()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "threads: %q: want comma-separated counts\n", s)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func label(nt int) string {
	if nt == 0 {
		return "server default"
	}
	return strconv.Itoa(nt)
}
