package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"kgforge/llm"
)

type options struct {
	ns                []int
	slots, perSlot    int
	promptPerTok      time.Duration // simulated time per prompt token
	completionPerTok  time.Duration // simulated time per completion token
	promptLo, promptH int
	complLo, complHi  int
	seed              uint64
	slowHalf          bool
}

// result is one row: N endpoints.
type result struct {
	Endpoints   int     `json:"endpoints"`
	Slots       int     `json:"slots_each"`
	Requests    int     `json:"requests"`
	IdealS      float64 `json:"ideal_s"`
	GreedyS     float64 `json:"greedy_s"` // the same requests on the same slots, each to the first free one, no overhead
	WallS       float64 `json:"wall_s"`
	Efficiency  float64 `json:"efficiency"`
	RequestsPS  float64 `json:"requests_per_s"`
	MinCalls    int64   `json:"min_calls"`
	MaxCalls    int64   `json:"max_calls"`
	MinBusy     float64 `json:"min_busy_share"`
	MaxBusy     float64 `json:"max_busy_share"`
	LoadBefore  string  `json:"load_before"`
	LoadAfter   string  `json:"load_after"`
	Simulation  bool    `json:"simulation"`
	SlowHalfRun bool    `json:"slow_half,omitempty"`
}

func main() {
	var o options
	var ns, out string
	flag.StringVar(&ns, "n", "1,2,4,8,16", "comma-separated endpoint counts")
	flag.IntVar(&o.slots, "slots", 4, "slots of each fake endpoint")
	flag.IntVar(&o.perSlot, "per-slot", 20, "requests per slot (requests = N × slots × per-slot)")
	flag.DurationVar(&o.promptPerTok, "prompt-per-token", 400*time.Microsecond, "simulated time per prompt token")
	flag.DurationVar(&o.completionPerTok, "completion-per-token", 8*time.Millisecond, "simulated time per completion token")
	flag.IntVar(&o.promptLo, "prompt-min", 300, "fewest prompt tokens of a request")
	flag.IntVar(&o.promptH, "prompt-max", 900, "most prompt tokens of a request")
	flag.IntVar(&o.complLo, "completion-min", 20, "fewest completion tokens of a request")
	flag.IntVar(&o.complHi, "completion-max", 180, "most completion tokens of a request")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the request sizes")
	flag.BoolVar(&o.slowHalf, "slow-half", false, "also run with half the endpoints twice as slow")
	flag.StringVar(&out, "json", "", "also write the rows as JSON to this file")
	flag.Parse()
	for _, s := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "dispatch: -n %q: want positive integers\n", ns)
			os.Exit(2)
		}
		o.ns = append(o.ns, n)
	}
	var rows []result
	fmt.Println("SIMULATION: fake endpoints answering after a delay proportional to the tokens; the client and its dispatch are real")
	fmt.Println("| endpoints | slots each | requests | ideal s | greedy s | wall s | efficiency (ideal / wall) | greedy / wall | requests/s | calls per endpoint (min–max) | busy share (min–max) | load before / after |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	runs := []bool{false}
	if o.slowHalf {
		runs = append(runs, true)
	}
	for _, slow := range runs {
		for _, n := range o.ns {
			r, err := run(context.Background(), o, n, slow)
			if err != nil {
				fmt.Fprintln(os.Stderr, "dispatch:", err)
				os.Exit(1)
			}
			rows = append(rows, r)
			name := strconv.Itoa(n)
			if slow {
				name += " (half 2× slower)"
			}
			fmt.Printf("| %s | %d | %d | %.2f | %.2f | %.2f | %.1f %% | %.1f %% | %.0f | %d–%d | %.2f–%.2f | %s / %s |\n", name, r.Slots, r.Requests,
				r.IdealS, r.GreedyS, r.WallS, 100*r.Efficiency, 100*r.GreedyS/r.WallS, r.RequestsPS, r.MinCalls, r.MaxCalls, r.MinBusy, r.MaxBusy, r.LoadBefore, r.LoadAfter)
		}
	}
	if out != "" {
		raw, _ := json.MarshalIndent(rows, "", "  ")
		if err := os.WriteFile(out, append(raw, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "dispatch:", err)
			os.Exit(1)
		}
	}
}

// job is one simulated request: its tokens.
type job struct{ prompt, completion int }

// jobs draws the request sizes, the same for a given seed and count.
func jobs(o options, count int) []job {
	rng := rand.New(rand.NewPCG(o.seed, uint64(count)))
	out := make([]job, count)
	for i := range out {
		out[i] = job{o.promptLo + rng.IntN(o.promptH-o.promptLo+1), o.complLo + rng.IntN(o.complHi-o.complLo+1)}
	}
	return out
}

// run sends N × slots × per-slot requests over N fake endpoints from
// N × slots workers and compares the wall time with the ideal.
func run(ctx context.Context, o options, n int, slowHalf bool) (result, error) {
	var eps []llm.Endpoint
	speed := make([]float64, n) // each endpoint's time factor
	for i := range n {
		speed[i] = 1
		if slowHalf && i%2 == 1 {
			speed[i] = 2
		}
		srv := httptest.NewServer(fakeServer(o, o.slots, speed[i]))
		defer srv.Close()
		eps = append(eps, llm.Endpoint{URL: srv.URL, Slots: o.slots})
	}
	c, err := llm.New(llm.Options{Endpoints: eps, MaxRetries: -1})
	if err != nil {
		return result{}, err
	}
	defer c.Close()
	workers := n * o.slots
	js := jobs(o, workers*o.perSlot)
	// The ideal: the work spread over the slots at their speeds.
	var work time.Duration
	for _, j := range js {
		work += o.delay(j)
	}
	capacity := 0.0 // slot-equivalents at speed 1
	for _, s := range speed {
		capacity += float64(o.slots) / s
	}
	ideal := work.Seconds() / capacity
	greedy := greedySchedule(o, js, speed)
	load0 := loadavg()
	feed := make(chan job)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for j := range feed {
				_, err := c.Generate(ctx, llm.GenerateRequest{Model: "sim", Raw: true, Prompt: fmt.Sprintf("%d %d", j.prompt, j.completion)})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for _, j := range js {
		feed <- j
	}
	close(feed)
	wg.Wait()
	wall := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return result{}, err
	}
	r := result{
		Endpoints: n, Slots: o.slots, Requests: len(js), IdealS: ideal, GreedyS: greedy, WallS: wall.Seconds(),
		Efficiency: ideal / wall.Seconds(), RequestsPS: float64(len(js)) / wall.Seconds(),
		LoadBefore: load0, LoadAfter: loadavg(), Simulation: true, SlowHalfRun: slowHalf, MinCalls: -1,
	}
	for _, u := range c.Endpoints() {
		busy := u.ServerDuration.Seconds() / (wall.Seconds() * float64(u.Slots))
		if r.MinCalls < 0 {
			r.MinCalls, r.MinBusy = u.Calls, busy
		}
		r.MinCalls, r.MaxCalls = min(r.MinCalls, u.Calls), max(r.MaxCalls, u.Calls)
		r.MinBusy, r.MaxBusy = min(r.MinBusy, busy), max(r.MaxBusy, busy)
	}
	return r, nil
}

// greedySchedule is when the last request would end if each went, in
// order, to the slot that frees first, with no overhead: the ideal less
// what the end of the run must leave idle (the last requests do not fill
// every slot to the same instant).
func greedySchedule(o options, js []job, speed []float64) float64 {
	var free []float64 // when each slot frees, in seconds
	var factor []float64
	for _, sp := range speed {
		for range o.slots {
			free, factor = append(free, 0), append(factor, sp)
		}
	}
	end := 0.0
	for _, j := range js {
		// the slot that frees first; among equal ones the first
		k := 0
		for i := range free {
			if free[i] < free[k] {
				k = i
			}
		}
		free[k] += o.delay(j).Seconds() * factor[k]
		end = max(end, free[k])
	}
	return end
}

// delay is the simulated time of one request at speed 1.
func (o options) delay(j job) time.Duration {
	return time.Duration(j.prompt)*o.promptPerTok + time.Duration(j.completion)*o.completionPerTok
}

// fakeServer answers /api/generate like Ollama after the simulated delay
// (times speed), working on at most slots requests at once; the others wait
// in its queue, as Ollama's do.
func fakeServer(o options, slots int, speed float64) http.Handler {
	sem := make(chan struct{}, slots)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Prompt string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var j job
		if _, err := fmt.Sscanf(req.Prompt, "%d %d", &j.prompt, &j.completion); err != nil {
			http.Error(w, "prompt: want two token counts", http.StatusBadRequest)
			return
		}
		sem <- struct{}{}
		start := time.Now()
		time.Sleep(time.Duration(float64(o.delay(j)) * speed))
		took := time.Since(start)
		<-sem
		_, _ = io.WriteString(w, fmt.Sprintf(`{"model":"sim","response":"ok","done":true,"done_reason":"stop","prompt_eval_count":%d,"eval_count":%d,"total_duration":%d}`+"\n",
			j.prompt, j.completion, took.Nanoseconds()))
	})
}

// loadavg is the 1-minute load average, as uptime shows it.
func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}
