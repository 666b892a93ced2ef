package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"
)

type options struct {
	gold, bundle, pipeline, model, out, cache, json string
	noModel, both                                   bool
	top                                             int
	timeout                                         time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.gold, "gold", filepath.Join("bench", "linkq", "testdata", "bikeco.gold.yaml"), "the gold file")
	flag.StringVar(&o.bundle, "bundle", "", "score this bundle (a bundle directory, or an output directory with a latest link)")
	flag.StringVar(&o.pipeline, "pipeline", "", "build this pipeline first (e.g. pipelines/example.yaml), then score its bundle")
	flag.StringVar(&o.model, "model", "", "Ollama chat model of the build; empty: the pipeline's")
	flag.BoolVar(&o.noModel, "no-model", false, "build with extraction skipped (extract.skip): the name-only path")
	flag.BoolVar(&o.both, "both", false, "build twice, with the model and without, and print both side by side")
	flag.StringVar(&o.out, "out", "", "output directory of the builds (default: a new temporary one, kept)")
	flag.StringVar(&o.cache, "cache", "", "kgforge's cache directory (default: KGFORGE_CACHE_DIR, then the user cache's kgforge)")
	flag.StringVar(&o.json, "json", "", "also write the reports as JSON to this file")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "per model request of the build (a busy server queues requests; kgforge build's default is 5m)")
	flag.IntVar(&o.top, "top", 10, "an uncertain duplicate counts as found when its pair is within this many of the review order")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, o, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkq:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, w io.Writer) error {
	g, err := LoadGold(o.gold)
	if err != nil {
		return err
	}
	if (o.bundle == "") == (o.pipeline == "") {
		return errors.New("give one of -bundle DIR and -pipeline FILE")
	}
	type job struct {
		label   string
		noModel bool
	}
	var jobs []job
	switch {
	case o.bundle != "":
		jobs = []job{{label: o.bundle}}
	case o.both:
		jobs = []job{{label: "model"}, {label: "no model", noModel: true}}
	default:
		jobs = []job{{label: "model", noModel: o.noModel}}
		if o.noModel {
			jobs[0].label = "no model"
		}
	}
	var reports []*Report
	for _, j := range jobs {
		dir, label := o.bundle, j.label
		if dir == "" {
			var model string
			if dir, model, err = build(ctx, o, j.noModel); err != nil {
				return err
			}
			if !j.noModel {
				label = "model " + model
			}
		}
		d, err := ReadBundle(ctx, dir)
		if err != nil {
			return err
		}
		r := ScoreBundle(g, d, o.top)
		r.Label = label
		reports = append(reports, r)
	}
	if err := Print(w, reports); err != nil {
		return err
	}
	if o.json != "" {
		b, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(o.json, append(b, '\n'), 0o644)
	}
	return nil
}

// build runs the pipeline with kgforge's own runner (as kgforge build
// does, without Neo4j) and returns the new bundle's directory and the chat
// model it used.
func build(ctx context.Context, o options, noModel bool) (string, string, error) {
	p, err := pipelines.Load(o.pipeline)
	if err != nil {
		return "", "", err
	}
	if o.model != "" {
		p.LLM.ChatModel = o.model
	}
	p.Extract.Skip = p.Extract.Skip || noModel
	out := o.out
	if out == "" {
		if out, err = os.MkdirTemp("", "linkq-"); err != nil {
			return "", "", err
		}
	}
	if noModel {
		out = filepath.Join(out, "no-model")
	}
	client, err := llm.New(llm.Options{Timeout: o.timeout})
	if err != nil {
		return "", "", err
	}
	defer client.Close()
	rn := &stages.Runner{
		LLM: client, CacheDir: cacheDir(o.cache), OutDir: out,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	rep, err := rn.Run(ctx, p)
	if err != nil {
		return "", "", fmt.Errorf("build %s: %w", o.pipeline, err)
	}
	return rep.Bundle, p.LLM.ChatModel, nil
}

func cacheDir(flagged string) string {
	if flagged != "" {
		return flagged
	}
	return stages.DefaultCacheDir()
}
