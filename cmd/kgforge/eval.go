package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"kgforge/agent"
	"kgforge/agent/eval"
	"kgforge/llm"

	"github.com/spf13/cobra"
)

// evalFlags are the flags of `kgforge eval agent`.
type evalFlags struct {
	dir, questions, model, out, transcript string
	agents                                 []string
	sample                                 int
	seed                                   uint64
	opts                                   agent.Options
}

func evalCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "eval", Short: "Measure kgforge: eval agent scores the query agent against baselines"}
	cmd.AddCommand(evalAgentCmd(g))
	return cmd
}

func evalAgentCmd(g *globals) *cobra.Command {
	f := &evalFlags{}
	cmd := &cobra.Command{
		Use:   "agent --bundle DIR --questions FILE",
		Short: "Ask a question set of the kgforge agent and the baselines, on the same model, and score the answers",
		Long: `Ask every question of a question file (YAML: name, questions with id, question, kind, answer,
tolerance, sql) of each agent, score the answers against the gold ones deterministically, and print
accuracy with 95 % bootstrap intervals, paired differences between agents, tool calls, failed calls
by tool and kind, and unique input tokens per question. The agents run on the same loop, model and
format: kgforge (every tool), full-context (schema and graph summary before the question, the query
tool, 4 calls) and sql-only (the query tool).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(cmd.Context(), g, f) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	fs.StringVarP(&f.questions, "questions", "q", "", "question file (YAML)")
	fs.StringVar(&f.model, "model", "", "Ollama model of every agent (default: the bundle's chat model)")
	fs.IntVar(&f.opts.Budget, "budget", agent.DefaultBudget, "most tool calls per question of the kgforge and sql-only agents")
	fs.IntVar(&f.opts.Samples, "samples", 0, "more typed queries the action model draws for a question's first turn, voted on by their rows (kgforge ask --samples)")
	fs.StringVar(&f.opts.Format, "format", "", "action format of every agent: native, json or completion; default: chosen from the model")
	fs.StringVar(&f.opts.IDs, "ids", "", "id arguments of every agent in the json and completion formats: seen or free; default: seen for completion, free otherwise")
	fs.StringVarP(&f.out, "out", "o", "", "write the report with every answer as JSON to this file")
	fs.StringVar(&f.transcript, "transcript", "", "append every agent's runs to FILE as JSON lines")
	fs.StringSliceVar(&f.agents, "agents", eval.AgentNames, "agents to run, comma-separated: "+strings.Join(eval.AgentNames, ", "))
	fs.IntVar(&f.sample, "sample", 0, "ask only this many questions of the set, drawn with --seed (0: all)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the sample and the bootstrap resamples")
	sandboxFlags(cmd, &f.opts.Limits)
	return cmd
}

func runEval(ctx context.Context, g *globals, f *evalFlags) (err error) {
	if f.questions == "" {
		return usageError(errors.New("--questions is required"))
	}
	for _, a := range f.agents {
		if !slices.Contains(eval.AgentNames, a) {
			return usageError(fmt.Errorf("--agents: %q: the agents are %s", a, strings.Join(eval.AgentNames, ", ")))
		}
	}
	if err := checkAskFlags(f.opts); err != nil {
		return usageError(err)
	}
	set, err := eval.LoadQuestions(f.questions)
	if err != nil {
		return usageError(err)
	}
	if f.sample < 0 {
		return usageError(fmt.Errorf("--sample %d: give 0 (all) or more", f.sample))
	}
	set = set.Sample(f.sample, f.seed)
	b, err := openBundle(f.dir)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	if f.opts.Model = f.model; f.model == "" {
		f.opts.Model = b.Manifest.Models["chat"].Name
	}
	client, err := llm.New(llm.Options{})
	if err != nil {
		return usageError(err)
	}
	defer client.Close()
	if _, err := client.ModelDigests(ctx, f.opts.Model); err != nil {
		return err
	}
	if f.transcript != "" {
		tf, err := os.OpenFile(f.transcript, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return usageError(fmt.Errorf("--transcript: %w", err))
		}
		defer func() { err = errors.Join(err, tf.Close()) }()
		f.opts.Transcript = tf
	}
	agents, closeAll, err := eval.NewAgents(ctx, withQueryEmbedder(client, b), b, f.opts, f.agents)
	defer func() { err = errors.Join(err, closeAll()) }()
	if err != nil {
		return askError(err)
	}
	results, runErr := eval.Run(ctx, set, agents, g.log)
	rep := eval.Summarize(results, f.seed)
	rep.Set, rep.Model, rep.Bundle, rep.Date = set.Name, f.opts.Model, b.Dir, time.Now().UTC().Format(time.DateOnly)
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		return err
	}
	if _, err := io.WriteString(os.Stdout, termText(table.String())); err != nil {
		return err
	}
	if f.out != "" {
		if err := writeJSON(f.out, rep); err != nil {
			return err
		}
	}
	return runErr
}

// writeJSON writes v as indented JSON to path.
func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
