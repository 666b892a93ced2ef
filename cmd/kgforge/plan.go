package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"kgforge/pipelines"
	"kgforge/stages"
)

// planOutput is what build --plan --json prints: the forecast, and the
// budget it was checked against.
type planOutput struct {
	*stages.Forecast
	Budget *planBudget `json:"budget,omitempty"`
}

// planBudget says whether a build would stop at its budget before
// extracting.
type planBudget struct {
	Limit    int64 `json:"limit"`
	Estimate int64 `json:"estimate"`
	Over     bool  `json:"over"`
}

// printPlan prints what a build would run, as text or JSON. A plan over
// the build's token budget exits 5, as the build would.
func printPlan(ctx context.Context, rn *stages.Runner, p *pipelines.Pipeline, asJSON bool) error {
	f, err := rn.Forecast(ctx, p)
	if err != nil {
		return err
	}
	out := planOutput{Forecast: f}
	limit := rn.MaxTokens
	if limit == 0 {
		limit = p.Limits.MaxBuildTokens
	}
	if limit > 0 && !p.Extract.Skip {
		est := f.Estimate.PromptTokens + f.Estimate.CompletionTokens
		out.Budget = &planBudget{Limit: limit, Estimate: est, Over: est > limit}
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Print(planText(out))
	}
	if b := out.Budget; b != nil && b.Over {
		return &exitError{code: exitBudget, err: &stages.BudgetError{
			Limit: b.Limit, Before: true, Estimate: b.Estimate, Misses: f.Chunks.Misses, Measured: f.Estimate.Rate != nil,
		}}
	}
	return nil
}

// planText renders a plan for a person, escaped for a terminal (termText):
// it names files and quotes why one was rejected.
func planText(out planOutput) string {
	f := out.Forecast
	var w strings.Builder
	fmt.Fprintf(&w, "plan of pipeline %s into %s (nothing was run; the model was not called)\n", f.Pipeline, f.Output)
	fmt.Fprintf(&w, "  sources:   %d added, %d changed, %d unchanged, %d removed; %d to read\n",
		len(f.Added), len(f.Changed), len(f.Unchanged), len(f.Removed), f.SourcesToRead)
	fmt.Fprintf(&w, "  units:     %s (to run/reused)\n", unitSummary(f.Units))
	c := f.Chunks
	fmt.Fprintf(&w, "  chunks:    %d in extract units to run: %d miss the LLM cache, %d cached, %d without a sentence, %d too long; %d reused\n",
		c.ToExtract, c.Misses, c.CacheHits, c.NoSentence, c.TooLong, c.Reused)
	fmt.Fprintf(&w, "  estimate:  %s\n", estimateText(f.Estimate, c.Misses))
	if b := out.Budget; b != nil {
		verdict := "within it"
		if b.Over {
			verdict = "OVER it: a build stops before extracting (exit 5)"
		}
		fmt.Fprintf(&w, "  budget:    %d tokens; the estimate, %d, is %s\n", b.Limit, b.Estimate, verdict)
	}
	for _, d := range f.Documents {
		fmt.Fprintf(&w, "  document:  %s: %d extract units to run, %d chunks, %d miss the cache\n", d.URI, d.ExtractUnits, d.Chunks, len(d.Misses))
	}
	for _, uri := range f.Removed {
		fmt.Fprintf(&w, "  removed:   %s\n", uri)
	}
	for _, rj := range f.Rejected {
		fmt.Fprintf(&w, "  rejected:  %s %s: %s\n", rj.Stage, rj.Item, rj.Reason)
	}
	return termText(w.String())
}

// estimateText renders what the misses would cost.
func estimateText(e stages.Estimate, misses int) string {
	if misses == 0 {
		return "nothing to send to the model"
	}
	r := e.Rate
	if r == nil {
		return fmt.Sprintf("no rate measured yet: about %d prompt tokens (from the prompts' %d bytes), at most %d completion tokens; time unknown until a build has asked the model",
			e.PromptTokens, e.PromptBytes, e.CompletionBound)
	}
	return fmt.Sprintf("%d prompt + %d completion tokens, about %s, at the rate measured by build %s on %s (%s on %s: %.2f s a chunk at concurrency %d, %.1f completion tokens/s)",
		e.PromptTokens, e.CompletionTokens, roundDuration(time.Duration(e.Seconds*float64(time.Second))),
		r.BuildID, r.Measured.Format(time.DateOnly), r.Model, r.Host, r.SecondsPerChunk, r.Concurrency, r.TokensPerSecond)
}
