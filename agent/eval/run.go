package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"kgforge/agent"
)

// Agent is one agent under evaluation. Run calls Ask once per question,
// from one goroutine; an error is the agent's failure on that question
// (the model server down, a cancelled context), recorded and counted.
type Agent interface {
	Name() string
	Ask(ctx context.Context, question string) (Outcome, error)
}

// Outcome is what an agent did for one question.
type Outcome struct {
	Answer   string       `json:"answer"`
	Answered bool         `json:"answered"` // false when the budget ran out first
	Calls    []Call       `json:"calls"`    // tool calls, in order, the answer not among them
	Tokens   agent.Tokens `json:"tokens"`   // unique input tokens counted as the paper does
	// Confidence is the answer's confidence, as the answer gave it (0
	// without an answer).
	Confidence float64 `json:"confidence"`
}

// Call is one tool call of an agent.
type Call struct {
	Tool string `json:"tool"`
	Args string `json:"args,omitempty"`
	Fail string `json:"fail,omitempty"` // empty for a call that worked, else one of the Fail* kinds
}

// Kinds of failed calls in the report, after the paper's break-down. The
// Toolbox's CallError kinds map onto them (see FailureOf).
const (
	FailWrongTool  = "wrong_tool" // a tool that does not exist, or one the agent may not use
	FailMalformed  = "malformed"  // arguments or a reply that do not fit the format
	FailSQL        = "sql_error"  // a refused or failed statement, or one stopped at a limit
	FailNotFound   = "not_found"  // a node, table, chunk or file that does not exist
	FailUngrounded = "ungrounded" // an answer naming what no result of the question showed
	FailBudget     = "budget"     // the question's budget ran out before an answer (one per question)
)

// Result is one agent's outcome on one question, scored.
type Result struct {
	Question string  `json:"question"` // the question's id
	Agent    string  `json:"agent"`
	Outcome  Outcome `json:"outcome"`
	Verdict  Verdict `json:"verdict"`
	Error    string  `json:"error,omitempty"` // the agent failed (Ask returned an error)
	Seconds  float64 `json:"seconds"`
}

// Run asks every question of s of every agent, question by question (so
// that a run stopped early still holds paired results), and scores the
// answers. It stops at the first cancelled context and returns what it
// has; other errors of an agent are recorded on its result.
func Run(ctx context.Context, s *Set, agents []Agent, log *slog.Logger) ([]Result, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var out []Result
	for i := range s.Questions {
		q := &s.Questions[i]
		for _, a := range agents {
			start := time.Now()
			o, err := a.Ask(ctx, q.Question)
			r := Result{Question: q.ID, Agent: a.Name(), Outcome: o, Seconds: time.Since(start).Seconds()}
			if err != nil {
				if ctx.Err() != nil {
					return out, fmt.Errorf("question %s, agent %s: %w", q.ID, a.Name(), errors.Join(ctx.Err(), err))
				}
				r.Error = err.Error()
			} else {
				r.Verdict = Score(q, o.Answer)
			}
			log.Info("question scored", "question", q.ID, "agent", a.Name(), "correct", r.Verdict.Correct,
				"calls", len(o.Calls), "seconds", fmt.Sprintf("%.1f", r.Seconds), "error", r.Error)
			out = append(out, r)
		}
	}
	return out, nil
}
