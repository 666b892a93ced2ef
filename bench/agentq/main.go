package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"kgforge/agent"
	"kgforge/agent/eval"
	"kgforge/bundle"
	"kgforge/llm"
)

type options struct {
	data, work, model, format, out, agents string
	sets, heldout                          string
	n, budget, perDoc, samples             int
	seed                                   uint64
	extract, dry, trained                  bool
}

func main() {
	var o options
	flag.StringVar(&o.data, "data", "../shared/benchmarks", "the benchmark dev data (its README.md names the sets)")
	flag.StringVar(&o.work, "work", "", "directory for the built bundles (default: a new temporary one)")
	flag.StringVar(&o.sets, "sets", "tatqa,spider,kaggle", "sets to run, comma-separated: tatqa, spider, kaggle")
	flag.IntVar(&o.n, "n", 20, "questions per set")
	flag.IntVar(&o.perDoc, "per-doc", 2, "TAT-QA: most questions per document")
	flag.StringVar(&o.model, "model", llm.ChatModelForTests, "Ollama model of every agent")
	flag.StringVar(&o.format, "format", "", "action format: native, json or completion (default: from the model)")
	flag.IntVar(&o.budget, "budget", 8, "tool calls per question of the kgforge and sql-only agents")
	flag.IntVar(&o.samples, "samples", 0, "more typed queries the action model draws for a question's first turn, voted on by their results (agent.Options.Samples)")
	flag.StringVar(&o.agents, "agents", strings.Join(eval.AgentNames, ","), "agents, comma-separated")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the samples and the bootstrap")
	flag.StringVar(&o.out, "out", "", "directory for one JSON report per set (default: none)")
	flag.BoolVar(&o.extract, "extract", false, "extract triplets with the model when building the bundles (slow)")
	flag.StringVar(&o.heldout, "heldout", "", "Spider and KaggleDBQA: only the databases this split holds out (training/agent_split.json: the ones kgforge-agent never trained on)")
	flag.BoolVar(&o.trained, "trained", false, "with -heldout: the other databases instead (those kgforge-agent trained on, where repairs are written before the held-out figures are measured)")
	flag.BoolVar(&o.dry, "dry", false, "build the bundles and print the sampled questions with their gold answers; ask nothing")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentq:", err)
		os.Exit(1)
	}
}

// item is one question of a set over one bundle (a directory to build).
type item struct {
	src string // the source directory of the bundle (built once per directory)
	q   eval.Question
}

// set is one benchmark's sample, and what sampling left out.
type set struct {
	name    string
	items   []item
	skipped map[string]int // reason -> questions left out
}

func run(ctx context.Context, o options) error {
	if o.trained && o.heldout == "" {
		// Without the split, -trained would sample every database, the
		// held-out ones among them.
		return errors.New("-trained needs -heldout (the split whose other databases it samples)")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if o.work == "" {
		dir, err := os.MkdirTemp("", "agentq-")
		if err != nil {
			return err
		}
		o.work = dir
	}
	client, err := llm.New(llm.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	if _, err := client.ModelDigests(ctx, o.model); err != nil {
		return err
	}
	for _, name := range strings.Split(o.sets, ",") {
		s, err := sample(ctx, o, client, strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
		rep, err := evaluate(ctx, o, client, s, log)
		if err != nil && len(rep.Results) == 0 {
			return fmt.Errorf("set %s: %w", name, err)
		}
		if err != nil { // stopped: the table of what was asked, then the error
			if rerr := report(o, s, rep); rerr != nil {
				return rerr
			}
			return fmt.Errorf("set %s: %w", name, err)
		}
		if o.dry {
			fmt.Printf("%s: %d questions, left out %v\n\n", s.name, len(s.items), s.skipped)
			continue
		}
		if err := report(o, s, rep); err != nil {
			return err
		}
	}
	return nil
}

func sample(ctx context.Context, o options, client *llm.Client, name string) (*set, error) {
	switch name {
	case "tatqa":
		return sampleTATQA(o)
	case "spider":
		return sampleSpider(ctx, o, client)
	case "kaggle":
		return sampleKaggle(ctx, o, client)
	}
	return nil, fmt.Errorf("unknown set %q: the sets are tatqa, spider, kaggle", name)
}

// evaluate builds each bundle of s (once) and runs the agents on its
// questions; the report spans every bundle of the set.
func evaluate(ctx context.Context, o options, client *llm.Client, s *set, log *slog.Logger) (eval.Report, error) {
	var results []eval.Result
	bySrc := map[string][]eval.Question{}
	var order []string
	for _, it := range s.items {
		if _, ok := bySrc[it.src]; !ok {
			order = append(order, it.src)
		}
		bySrc[it.src] = append(bySrc[it.src], it.q)
	}
	for _, src := range order {
		dir, err := buildBundle(ctx, o, client, src)
		if err != nil {
			return eval.Report{}, err
		}
		if o.dry {
			for _, q := range bySrc[src] {
				fmt.Printf("%s\t%s\t%s\t%v\t%s\n", q.ID, q.Kind, q.Question, q.Answer, dir)
			}
			continue
		}
		rs, err := askBundle(ctx, o, client, dir, &eval.Set{Name: s.name, Questions: bySrc[src]}, log)
		results = append(results, rs...)
		if err != nil {
			return summary(o, s, results), err
		}
	}
	return summary(o, s, results), nil
}

func summary(o options, s *set, results []eval.Result) eval.Report {
	rep := eval.Summarize(results, o.seed)
	rep.Set, rep.Model, rep.Date = s.name, o.model, time.Now().UTC().Format(time.DateOnly)
	return rep
}

func askBundle(ctx context.Context, o options, client *llm.Client, dir string, qs *eval.Set, log *slog.Logger) (_ []eval.Result, err error) {
	if err := qs.Prepare(); err != nil {
		return nil, err
	}
	b, err := bundle.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	opts := agent.Options{Model: o.model, Budget: o.budget, Format: o.format, Samples: o.samples}
	agents, closeAll, err := eval.NewAgents(ctx, client, b, opts, strings.Split(o.agents, ","))
	defer func() { err = errors.Join(err, closeAll()) }()
	if err != nil {
		return nil, err
	}
	return eval.Run(ctx, qs, agents, log)
}

func report(o options, s *set, rep eval.Report) error {
	if err := rep.WriteTable(os.Stdout); err != nil {
		return err
	}
	if len(s.skipped) > 0 {
		fmt.Printf("left out of the sample: %v\n", s.skipped)
	}
	fmt.Println()
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	return writeJSON(filepath.Join(o.out, s.name+".json"), rep)
}
