package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"

	"github.com/spf13/cobra"
)

func buildCmd(g *globals) *cobra.Command {
	var (
		pipelinePath, outDir string
		jsonReport           bool
		keep                 int
		metricsFile          string
		progressInterval     time.Duration
		shard                string
		reduce               bool
		plan                 bool
		maxTokens            int64
		engine               string
		shards               int
	)
	cmd := &cobra.Command{
		Use:   "build --pipeline FILE",
		Short: "Run a pipeline: ingest, extract, consolidate, write the bundle, load Neo4j",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pipelinePath == "" {
				return usageError(errors.New("--pipeline is required"))
			}
			p, err := pipelines.Load(pipelinePath)
			if err != nil {
				return usageError(err)
			}
			client, err := llm.New(llmOptions(p))
			if err != nil {
				return usageError(err)
			}
			defer client.Close()
			if keep < 0 {
				return usageError(fmt.Errorf("--keep %d: keep at least one bundle, or 0 for all", keep))
			}
			if maxTokens < 0 {
				return usageError(fmt.Errorf("--max-tokens %d: must not be negative (0: the pipeline's limits.max_build_tokens)", maxTokens))
			}
			if metricsFile != "" {
				if err := stages.CheckMetricsPath(metricsFile); err != nil {
					return usageError(fmt.Errorf("--metrics: %w", err))
				}
			}
			if shard != "" && reduce {
				return usageError(errors.New("--shard and --reduce: a run is one shard or the reduce, not both"))
			}
			rn := &stages.Runner{LLM: client, CacheDir: cacheDir(), OutDir: outDir, Log: g.log, Keep: keep, Reduce: reduce, MaxTokens: maxTokens}
			if shard != "" {
				if rn.Shard, err = stages.ParseShard(shard, os.Getenv); err != nil {
					return usageError(err)
				}
			}
			if plan {
				if shard != "" || reduce {
					return usageError(errors.New("--plan plans the whole build: drop --shard and --reduce"))
				}
				return printPlan(cmd.Context(), rn, p, jsonReport)
			}
			run, err := engineRun(engine, rn, shards, g)
			if err != nil {
				return usageError(err)
			}
			pr := newProgress(g.log, progressInterval, stderrIsTerminal())
			if engine != "local" {
				pr = nil // a temporal build's client logs the workflow's progress
			}
			if pr != nil {
				rn.Progress = pr
				if bar, ok := pr.(*progressBar); ok {
					g.logOut.set(bar)
				}
			}
			switch p.Neo4j.Mode {
			case pipelines.Neo4jAuto:
				rn.Neo4j = neo4jFromEnv(p.Neo4j.BatchSize)
			case pipelines.Neo4jAlways:
				if rn.Neo4j = neo4jFromEnv(p.Neo4j.BatchSize); rn.Neo4j == nil {
					return usageError(fmt.Errorf("pipeline %s: neo4j.mode is always but NEO4J_URI is not set", pipelinePath))
				}
			case pipelines.Neo4jNever:
			}
			rep, err := run(cmd.Context(), p)
			if pr != nil { // the display ends before the summary is printed
				pr.finish()
				g.logOut.set(os.Stderr)
			}
			if metricsFile != "" && rep != nil {
				if merr := rep.WriteMetricsFile(metricsFile); merr != nil {
					g.log.Error("metrics not written", "path", metricsFile, "err", merr)
				}
			}
			if errors.Is(err, stages.ErrOutputBusy) {
				return &exitError{code: exitBusy, err: err}
			}
			if errors.Is(err, stages.ErrBudget) {
				return &exitError{code: exitBudget, err: err}
			}
			if err != nil && !errors.Is(err, stages.ErrGateFailed) {
				return err
			}
			gateErr := err // the bundle is written, not latest: report it, then exit 1
			if jsonReport {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				fmt.Print(summary(rep))
			}
			if gateErr != nil {
				return gateErr
			}
			if rep.Status == stages.StatusPartial && rep.Shard == nil { // a shard's rejections are the reduce's to report
				return &exitError{code: exitPartial, err: fmt.Errorf("build %s is partial: %d items rejected (see the run report)", rep.BuildID, len(rep.Rejected))}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&pipelinePath, "pipeline", "p", "", "pipeline file (YAML)")
	cmd.Flags().StringVarP(&outDir, "out", "o", "", "output directory for bundles (default: the pipeline's output)")
	cmd.Flags().BoolVar(&jsonReport, "json", false, "print the run report as JSON on stdout")
	cmd.Flags().DurationVar(&progressInterval, "progress-interval", 30*time.Second, "when stderr is not a terminal, log a progress line for extraction this often (0: never)")
	cmd.Flags().StringVar(&metricsFile, "metrics", "", "write OpenMetrics text of the run to FILE at its end, atomically (for node_exporter's textfile collector or a Pushgateway)")
	cmd.Flags().BoolVar(&plan, "plan", false, "say what a build would run (sources to read, units to run, chunks that miss the LLM cache, estimated tokens and time at the rate measured before) without running it: no model call, no bundle; with --json as JSON")
	cmd.Flags().Int64Var(&maxTokens, "max-tokens", 0, "token budget of the build's extraction, prompt and completion together: stop before extracting when the plan's estimate is over it, or when the counted tokens reach it; exit 5 (0: the pipeline's limits.max_build_tokens)")
	cmd.Flags().IntVar(&keep, "keep", 0, "keep the newest N bundles, removing older ones and the state no kept bundle needs (0: keep all)")
	cmd.Flags().StringVar(&shard, "shard", "", "run shard I/N of a scaled-out build: only the extract units whose chunks hash to I, no bundle (auto/N: I from $"+stages.ShardIndexEnv+"; docs/scale.md)")
	cmd.Flags().BoolVar(&reduce, "reduce", false, "finish a scaled-out build: extract nothing, fail naming any extract unit no shard stored, then resolve, link, bundle and load")
	cmd.Flags().StringVar(&engine, "engine", "local", "local: run the build in this process; temporal: run it as a workflow on `kgforge worker` processes (docs/temporal.md)")
	cmd.Flags().IntVar(&shards, "shards", 4, "with --engine temporal: the shard activities the extract units are split into")
	cmd.MarkFlagsMutuallyExclusive("engine", "shard")
	cmd.MarkFlagsMutuallyExclusive("engine", "reduce")
	return cmd
}

// summary renders the build's summary for a person, escaped for a
// terminal (termText).
func summary(r *stages.Report) string {
	var w strings.Builder
	fmt.Fprintf(&w, "build %s: %s\n", r.BuildID, r.Status)
	if r.Shard != nil {
		fmt.Fprintf(&w, "  bundle:    none (shard %s; the reduce makes it)\n", r.Shard)
	} else {
		fmt.Fprintf(&w, "  bundle:    %s\n", r.Bundle)
	}
	fmt.Fprintf(&w, "  stages:    %s\n", stageSummary(r.Stages))
	fmt.Fprintf(&w, "  sources:   %d (%d tables), %d chunks\n", r.Sources, r.Tables, r.Chunks)
	if pl := r.Plan; pl != nil {
		fmt.Fprintf(&w, "  plan:      %d added, %d changed, %d unchanged, %d removed; %d sources read; units run/reused: %s\n",
			len(pl.Added), len(pl.Changed), len(pl.Unchanged), len(pl.Removed), pl.SourcesRead, unitSummary(pl.Units))
	}
	fmt.Fprintf(&w, "  llm:       %d calls, %d prompt + %d completion tokens, %.1f tokens/s, %d cache hits\n",
		r.LLM.Calls, r.LLM.PromptTokens, r.LLM.CompletionTokens, r.TokensPS, r.Extract.CacheHits)
	w.WriteString(endpointSummary(r))
	if r.Plan != nil && r.Plan.ChunksReused > 0 {
		fmt.Fprintf(&w, "             %d chunks reused from earlier builds' extract units (their drops are not counted again)\n", r.Plan.ChunksReused)
	}
	if r.Extract.Skipped > 0 {
		fmt.Fprintf(&w, "             %d chunks had no sentence to ask about (headings only)\n", r.Extract.Skipped)
	}
	fmt.Fprintf(&w, "  triplets:  %s, dropped %s\n", keptSummary(r, r.Triplets, r.Extract.Kept), countSummary(r.Extract.Dropped))
	fmt.Fprintf(&w, "  entities:  %s, dropped %s\n", keptSummary(r, max(r.Entities, r.Extract.EntitiesKept), r.Extract.EntitiesKept), countSummary(r.Extract.EntitiesDropped))
	fmt.Fprintf(&w, "  graph:     %d nodes, %d edges, %d merges\n", r.Nodes, r.Edges, r.Merges)
	if r.Neo4j != nil {
		fmt.Fprintf(&w, "  neo4j:     %s\n", neo4jSummary(*r.Neo4j))
	} else {
		fmt.Fprintf(&w, "  neo4j:     not loaded (set NEO4J_URI)\n")
	}
	for _, gt := range r.Gates {
		verdict := "passed"
		if !gt.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(&w, "  gate:      %s %s: %s\n", gt.Name, verdict, gt.Detail)
	}
	for _, rj := range r.Rejected {
		fmt.Fprintf(&w, "  rejected:  %s %s: %s\n", rj.Stage, rj.Item, rj.Reason)
	}
	return termText(w.String()) // a rejection names a file and quotes what was wrong with it
}

// keptSummary renders how many triplets or entities the build holds: all
// of them, and when extract units were reused, how many this build
// extracted and how many came from earlier builds' units ("120 kept (8
// extracted now, 112 reused)"); drops are this build's only.
func keptSummary(r *stages.Report, all, now int) string {
	if r.Plan == nil || r.Plan.ChunksReused == 0 || all < now {
		return fmt.Sprintf("%d kept", all)
	}
	return fmt.Sprintf("%d kept (%d extracted now, %d reused)", all, now, all-now)
}

// unitSummary renders the units run and reused by kind: "source 2/3, extract 4/10".
func unitSummary(units map[string]*stages.UnitCounts) string {
	parts := make([]string, 0, len(units))
	for _, kind := range slices.Sorted(maps.Keys(units)) {
		parts = append(parts, fmt.Sprintf("%s %d/%d", kind, units[kind].Run, units[kind].Reused))
	}
	return strings.Join(parts, ", ")
}

// stageOrder is the order the stages run in, and what each one counts (one,
// many).
var stageOrder = []struct{ name, one, many string }{
	{"ingest", "source", "sources"},
	{"extract", "chunk", "chunks"},
	{"assemble", "source", "sources"},
	{"consolidate", "node", "nodes"},
	{"bundle", "node or edge", "nodes and edges"},
	{"neo4j", "node or relationship", "nodes and relationships"},
}

// stageSummary renders what each stage took, in the order they run:
// "ingest 1.2s (12 sources), extract 4m3s (40 chunks), …". A stage this
// list does not know comes last, by name.
func stageSummary(st map[string]stages.StageReport) string {
	stage := func(name string, r stages.StageReport, one, many string) string {
		unit := many
		if r.Items == 1 {
			unit = one
		}
		return fmt.Sprintf("%s %s (%d %s)", name, roundDuration(r.Duration), r.Items, unit)
	}
	var parts []string
	known := map[string]bool{}
	for _, s := range stageOrder {
		known[s.name] = true
		if r, ok := st[s.name]; ok {
			parts = append(parts, stage(s.name, r, s.one, s.many))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(st)) {
		if !known[name] {
			parts = append(parts, stage(name, st[name], "item", "items"))
		}
	}
	if len(parts) == 0 {
		return "none ran"
	}
	return strings.Join(parts, ", ")
}

// roundDuration keeps two or three significant figures: 840ms, 1.2s, 4m3s.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(time.Millisecond)
	}
}

// countSummary renders counts by reason, largest first:
// "3 (evidence_not_found 2, duplicate_in_chunk 1)", or "none".
func countSummary(counts map[string]int) string {
	keys := slices.Collect(maps.Keys(counts))
	total := 0
	for _, k := range keys {
		total += counts[k]
	}
	if total == 0 {
		return "none"
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(counts[b]-counts[a], strings.Compare(a, b)) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
