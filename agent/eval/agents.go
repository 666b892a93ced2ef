package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"kgforge/agent"
	"kgforge/bundle"
)

// Names of the agents NewAgents opens.
const (
	NameKgforge     = "kgforge"      // the query agent with every tool
	NameFullContext = "full-context" // schema and graph summary in the prompt, SQL only, a few calls
	NameSQLOnly     = "sql-only"     // the query tool only
)

// AgentNames lists the agents in the report's order.
var AgentNames = []string{NameKgforge, NameFullContext, NameSQLOnly}

// FullContextBudget is the full-context baseline's tool calls, its answer
// included: its schema is in the prompt, so a few queries should do.
const FullContextBudget = 4

// LoopAgent is an agent of the harness on kgforge's own loop (agent.Agent):
// the kgforge agent, or a baseline that differs from it only in the tools
// it is offered and what its prompt is told, so that a difference in the
// table is the tools' (and the context's), not a loop's or a format's.
type LoopAgent struct {
	name string
	a    *agent.Agent
}

// NewAgents opens the named agents (AgentNames, in that order) over b, all
// on opts (model, format, limits, transcript); opts.Budget is the kgforge
// and sql-only agents' budget. closeAll releases what was opened, also
// after an error.
func NewAgents(ctx context.Context, c agent.LLM, b *bundle.Bundle, opts agent.Options, names []string) (_ []Agent, closeAll func() error, err error) {
	var opened []*agent.Agent
	closeAll = func() error {
		var errs []error
		for _, a := range opened {
			errs = append(errs, a.Close())
		}
		return errors.Join(errs...)
	}
	var out []Agent
	for _, name := range AgentNames {
		if !slices.Contains(names, name) {
			continue
		}
		o := opts
		switch name {
		case NameFullContext:
			o.Tools, o.Budget = []string{agent.ToolQuery}, FullContextBudget
		case NameSQLOnly:
			o.Tools = []string{agent.ToolQuery}
		}
		if name == NameFullContext {
			if o.Context, err = bundleContext(ctx, b, o); err != nil {
				return nil, closeAll, fmt.Errorf("open agent %s: %w", name, err)
			}
		}
		a, err := agent.New(ctx, c, b, o)
		if err != nil {
			return nil, closeAll, fmt.Errorf("open agent %s: %w", name, err)
		}
		opened = append(opened, a)
		out = append(out, &LoopAgent{name: name, a: a})
	}
	for _, n := range names {
		if !slices.Contains(AgentNames, n) {
			return nil, closeAll, fmt.Errorf("agent %q: the agents are %v", n, AgentNames)
		}
	}
	return out, closeAll, nil
}

// Name is the agent's name in the report.
func (l *LoopAgent) Name() string { return l.name }

// Ask asks the loop one question.
func (l *LoopAgent) Ask(ctx context.Context, question string) (Outcome, error) {
	ans, err := l.a.Ask(ctx, question)
	return outcomeOf(ans), err
}

// bundleContext is the full-context baseline's schema and graph summary
// (fullContext), read through a toolbox of its own: the agent takes it as
// agent.Options.Context, which the prompt shows where the other agents'
// prompts describe the tools (the system message, the completion log's
// last entry), and the question stays the question.
func bundleContext(ctx context.Context, b *bundle.Bundle, o agent.Options) (_ string, err error) {
	tb, err := agent.NewToolbox(ctx, b, o.Limits)
	if err != nil {
		return "", err
	}
	defer func() { err = errors.Join(err, tb.Close()) }()
	return fullContext(ctx, tb, b)
}

// outcomeOf reads the harness's outcome from the loop's answer: every step
// but a successful answer is a tool call.
func outcomeOf(ans agent.Answer) Outcome {
	o := Outcome{Answer: ans.Text, Answered: ans.Answered, Tokens: ans.Tokens, Confidence: ans.Confidence}
	for _, s := range ans.Steps {
		if s.Tool == agent.ToolAnswer && s.ErrorKind == "" {
			continue
		}
		o.Calls = append(o.Calls, Call{Tool: s.Tool, Args: string(s.Args), Fail: FailureOf(s.ErrorKind)})
	}
	return o
}

// FailureOf maps a Toolbox CallError kind onto the report's kinds.
func FailureOf(kind string) string {
	switch kind {
	case "":
		return ""
	case agent.FailUnknownTool:
		return FailWrongTool
	case agent.FailMalformed:
		return FailMalformed
	case agent.FailSQL, agent.FailLimit:
		return FailSQL
	case agent.FailNotFound:
		return FailNotFound
	case agent.FailUngrounded:
		return FailUngrounded
	}
	return kind
}
