package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"kgforge/agent"
	"kgforge/llm"

	"github.com/spf13/cobra"
)

func askCmd(g *globals) *cobra.Command {
	var (
		dir, model, transcript string
		opts                   agent.Options
		asJSON                 bool
	)
	cmd := &cobra.Command{
		Use:   `ask --bundle DIR "question"`,
		Short: "Answer a question over a bundle with the agent's generic tools, citing what the answer rests on",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := checkAskFlags(opts); err != nil {
				return usageError(err)
			}
			b, err := openBundle(dir)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			client, err := llm.New(llm.Options{})
			if err != nil {
				return usageError(err)
			}
			defer client.Close()
			if opts.Model = model; model == "" {
				opts.Model = b.Manifest.Models["chat"].Name
			}
			if _, err := client.ModelDigests(cmd.Context(), opts.Model); err != nil {
				return err
			}
			if transcript != "" {
				f, err := os.OpenFile(transcript, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
				if err != nil {
					return usageError(fmt.Errorf("--transcript: %w", err))
				}
				defer func() { err = errors.Join(err, f.Close()) }()
				opts.Transcript = f
			}
			p := &askProgress{w: g.logOut}
			if g.logFormat == "json" {
				p.log = g.log // a scheduler's log stays one JSON object a line
			}
			opts.Progress = p.report
			a, err := agent.New(cmd.Context(), withQueryEmbedder(client, b), b, opts)
			if err != nil {
				return askError(err)
			}
			defer func() { err = errors.Join(err, a.Close()) }()
			ans, err := a.Ask(cmd.Context(), strings.Join(args, " "))
			if err != nil {
				return errors.Join(err, p.err)
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				err = enc.Encode(ans)
			} else {
				err = printAnswer(os.Stdout, ans)
			}
			return errors.Join(err, p.err, noAnswer(ans))
		},
	}
	f := cmd.Flags()
	f.StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	f.StringVar(&model, "model", "", "Ollama model (default: the bundle's chat model)")
	f.IntVar(&opts.Budget, "budget", agent.DefaultBudget, "most tool calls per question (a warning at 80%)")
	f.IntVar(&opts.Budget, "max-steps", agent.DefaultBudget, "most tool calls per question")
	_ = f.MarkDeprecated("max-steps", "use --budget")
	f.IntVar(&opts.Samples, "samples", 0, "more typed queries the action model draws for the first turn, the one whose rows the most return taken (0: its own query alone)")
	f.StringVar(&opts.Format, "format", "", "action format: native (tool calling), json (one JSON action per turn) or completion (few-shot, base models); default: chosen from the model")
	f.StringVar(&opts.IDs, "ids", "", "what an id argument may name in the json and completion formats: seen (only ids the results have shown, and cat's tables and files, enforced by the grammar) or free; default: seen for completion, free otherwise")
	f.StringVar(&transcript, "transcript", "", "append the run to FILE as JSON lines (question, model turns with tokens, tool calls, answer)")
	f.BoolVar(&asJSON, "json", false, "print the answer, citations, tool calls and tokens as JSON")
	sandboxFlags(cmd, &opts.Limits)
	return cmd
}

func checkAskFlags(opts agent.Options) error {
	if opts.Samples < 0 || opts.Samples > agent.MaxSamples {
		return fmt.Errorf("--samples %d: give 0 to %d", opts.Samples, agent.MaxSamples)
	}
	if opts.Format != "" && !slices.Contains(agent.Formats, opts.Format) {
		return fmt.Errorf("--format %q: give one of %s", opts.Format, strings.Join(agent.Formats, ", "))
	}
	if opts.IDs != "" && opts.IDs != agent.IDsSeen && opts.IDs != agent.IDsFree {
		return fmt.Errorf("--ids %q: give %s or %s", opts.IDs, agent.IDsSeen, agent.IDsFree)
	}
	if opts.Budget < 1 {
		return fmt.Errorf("--budget %d: give at least 1 tool call", opts.Budget)
	}
	return nil
}

// noAnswer is the error of a question that ended without an answer
// (exit 6), with what to do about it; nil for an answer.
func noAnswer(ans agent.Answer) error {
	switch {
	case ans.Answered:
		return nil
	case ans.Stuck:
		return &exitError{code: exitNoAnswer, err: fmt.Errorf("ask: %s (ask again naming what to look for, or with a larger --model)", ans.Text)}
	}
	return &exitError{code: exitNoAnswer, err: fmt.Errorf("ask: %s (raise --budget, or ask with a larger --model)", ans.Text)}
}

// askProgress shows each tool call on stderr as it ends, one line each
// (stdout stays the answer): "[3/30] cat {"id":"c17"}: not_found (36.2s)",
// or a log record with --log-format json.
type askProgress struct {
	w   io.Writer
	log *slog.Logger // with --log-format json; nil writes lines to w
	err error        // the first write error; later lines are dropped
}

// maxProgressArgs bounds the arguments shown on a progress line, in bytes.
const maxProgressArgs = 80

func (p *askProgress) report(pr agent.Progress) {
	result := "ok"
	if pr.Step.ErrorKind != "" {
		result = pr.Step.ErrorKind
	}
	if pr.Step.By != "" {
		result += ", written by " + pr.Step.By // the answer kgforge writes from the action model's query result
	}
	args := progressArgs(pr.Step.Args)
	elapsed := pr.Elapsed.Round(100 * time.Millisecond)
	if p.log != nil {
		p.log.Info("ask call", "call", pr.Call, "budget", pr.Budget, "tool", pr.Step.Tool, "args", args, "result", result, "by", pr.Step.By, "elapsed_ms", pr.Elapsed.Milliseconds())
		return
	}
	if p.err == nil {
		_, p.err = io.WriteString(p.w, termText(fmt.Sprintf("[%d/%d] %s %s: %s (%s)\n", pr.Call, pr.Budget, pr.Step.Tool, args, result, elapsed)))
	}
}

// progressArgs is a call's arguments on one line, cut at maxProgressArgs
// bytes on a rune boundary.
func progressArgs(raw json.RawMessage) string {
	var b bytes.Buffer
	s := string(raw)
	if json.Compact(&b, raw) == nil {
		s = b.String()
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxProgressArgs {
		return s
	}
	i := maxProgressArgs
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// askError maps a bad --format or model to a usage error and sandbox
// failures to their hints.
func askError(err error) error {
	if errors.Is(err, agent.ErrExtractionModel) { // the example's chat model, kgforge-extract
		return usageError(fmt.Errorf("ask: %w, e.g. --model %s (kgforge's first action model, still weak: docs/models.md) or a stronger model on your Ollama", err, agent.ActionModel))
	}
	if errors.Is(err, agent.ErrFormat) {
		return usageError(err)
	}
	return sandboxError(err)
}

// printAnswer prints the tool calls, one line each with the first lines of
// their results, then the answer and its citations, escaped for a
// terminal (termText): all of it comes from the bundle or the model.
func printAnswer(w io.Writer, ans agent.Answer) error {
	var b strings.Builder
	for i, s := range ans.Steps {
		if s.Tool == agent.ToolAnswer && s.ErrorKind == "" {
			continue
		}
		fmt.Fprintf(&b, "[%d] %s %s\n", i+1, s.Tool, s.Args)
		out := s.Result
		if s.ErrorKind != "" {
			out = "error (" + s.ErrorKind + "): " + s.Error
		}
		lines := strings.Split(out, "\n")
		if len(lines) > 8 {
			lines = append(lines[:8], fmt.Sprintf("… (%d more lines; --json shows all)", len(lines)-8))
		}
		for _, line := range lines {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	fmt.Fprintf(&b, "answer: %s\n", ans.Text)
	for _, c := range ans.Citations {
		fmt.Fprintf(&b, "  cites %s\n", citation(c))
	}
	fmt.Fprintf(&b, "%d tool calls (%d failed) of %d, format %s, confidence %.2f, %d unique input tokens\n",
		len(ans.Steps), ans.FailedCalls(), ans.Budget, ans.Format, ans.Confidence, ans.Tokens.UniqueInput)
	_, err := io.WriteString(w, termText(b.String()))
	return err
}

func citation(c agent.Citation) string {
	s := c.Kind + " " + c.ID
	if c.Table != "" {
		s += " in " + c.Table
	}
	if c.Source != "" {
		s += " from " + c.Source
	}
	if c.Span != nil {
		s += fmt.Sprintf(" [%d:%d]", c.Span.Start, c.Span.End)
	}
	return s
}
