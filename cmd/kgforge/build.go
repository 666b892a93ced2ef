package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"

	"github.com/spf13/cobra"
)

func buildCmd(g *globals) *cobra.Command {
	var (
		pipelinePath, outDir string
		jsonReport           bool
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
			client, err := llm.New(llm.Options{})
			if err != nil {
				return usageError(err)
			}
			defer client.Close()
			rn := &stages.Runner{LLM: client, CacheDir: cacheDir(), OutDir: outDir, Log: g.log}
			if bar := newProgressBar(); bar != nil {
				rn.Progress = bar
				defer bar.finish()
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
			rep, err := rn.Run(cmd.Context(), p)
			if errors.Is(err, stages.ErrOutputBusy) {
				return &exitError{code: exitBusy, err: err}
			}
			if err != nil {
				return err
			}
			if jsonReport {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				printSummary(rep)
			}
			if rep.Status == stages.StatusPartial {
				return &exitError{code: exitPartial, err: fmt.Errorf("build %s is partial: %d items rejected (see the run report)", rep.BuildID, len(rep.Rejected))}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&pipelinePath, "pipeline", "p", "", "pipeline file (YAML)")
	cmd.Flags().StringVarP(&outDir, "out", "o", "", "output directory for bundles (default: the pipeline's output)")
	cmd.Flags().BoolVar(&jsonReport, "json", false, "print the run report as JSON on stdout")
	return cmd
}

func printSummary(r *stages.Report) {
	fmt.Printf("build %s: %s\n", r.BuildID, r.Status)
	fmt.Printf("  bundle:    %s\n", r.Bundle)
	fmt.Printf("  sources:   %d (%d tables), %d chunks\n", r.Sources, r.Tables, r.Chunks)
	fmt.Printf("  llm:       %d calls, %d prompt + %d completion tokens, %.1f tokens/s, %d cache hits\n",
		r.LLM.Calls, r.LLM.PromptTokens, r.LLM.CompletionTokens, r.TokensPS, r.Extract.CacheHits)
	if r.Extract.Skipped > 0 {
		fmt.Printf("             %d chunks had no sentence to ask about (headings only)\n", r.Extract.Skipped)
	}
	fmt.Printf("  triplets:  %d kept, dropped %v\n", r.Triplets, r.Extract.Dropped)
	fmt.Printf("  graph:     %d nodes, %d edges, %d merges\n", r.Nodes, r.Edges, r.Merges)
	if r.Neo4j != nil {
		fmt.Printf("  neo4j:     %d nodes, %d relationships loaded, %d stale removed\n", r.Neo4j.Nodes, r.Neo4j.Relationships, r.Neo4j.StaleRemoved)
	} else {
		fmt.Printf("  neo4j:     not loaded (set NEO4J_URI)\n")
	}
	for _, rj := range r.Rejected {
		fmt.Printf("  rejected:  %s %s: %s\n", rj.Stage, rj.Item, rj.Reason)
	}
}
