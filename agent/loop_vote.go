package agent

import (
	"context"
	"slices"
	"strings"

	"kgforge/llm"
)

// voteTemperature is the temperature of the extra queries drawn for a
// vote (Options.Samples): enough for a 270M model to write other
// queries, not so much that most of them fail.
const voteTemperature = 0.7

// MaxSamples bounds Options.Samples: each draw is a model call and a
// query.
const MaxSamples = 16

// sampler is a format that can draw another reply to its last turn
// without adding it to the conversation, and put a drawn reply in the
// place of the one it gave (the completion format).
type sampler interface {
	sample(ctx context.Context, o turnOptions, seed int) (string, llm.ChatResponse, error)
	replace(reply string)
}

// voteEvent is the transcript line of a vote: the queries drawn, what
// each returned, and the one taken.
type voteEvent struct {
	Event      string   `json:"event"`
	Candidates []string `json:"candidates"`
	Results    []string `json:"results"` // "error", "no rows" or how many others returned the same rows
	Chosen     int      `json:"chosen"`  // index into Candidates; 0 is the model's own (greedy) query
}

// vote draws Options.Samples more typed queries for the question's first
// turn at voteTemperature and takes the query whose rows the most of them
// return (self-consistency over execution results, as text-to-SQL systems
// vote): a query that fails or matches no row (noRowsMatched) gets no
// vote, and a tie goes to the earliest, the model's own query first. The
// draws run in the sandbox like any query; they are not tool calls of the
// question (no step, no budget), and their tokens count in Tokens.Prompt
// and Tokens.Completion (the prompt is the turn's own: no new unique
// input). It returns the action to run, the model's own when no draw
// wins.
func (r *run) vote(ctx context.Context, greedy action, greedyReply string, o turnOptions) (action, error) {
	s, ok := r.f.(sampler)
	if !ok || r.a.opts.Samples <= 0 {
		return greedy, nil
	}
	cands := []action{greedy}
	replies := []string{greedyReply}
	o.temperature = voteTemperature
	for seed := 1; seed <= min(r.a.opts.Samples, MaxSamples); seed++ {
		reply, resp, err := s.sample(ctx, o, seed)
		if err != nil {
			return greedy, err
		}
		r.ans.Tokens.Prompt += resp.PromptTokens
		r.ans.Tokens.Completion += resp.CompletionTokens
		act := parseAction(reply, resp.DoneReason)
		if act.err != nil || act.tool != ToolSelect {
			continue
		}
		cands = append(cands, act)
		replies = append(replies, reply)
	}
	sigs := make([]string, len(cands))
	results := make([]string, len(cands))
	for i, c := range cands {
		out, ce, err := r.call(ctx, c)
		if err != nil {
			return greedy, err
		}
		if ce != nil {
			results[i] = "error"
			continue
		}
		q, _ := r.typedQuery(c.args)
		_, rows, isRows := ResultRows(out)
		if !isRows || noRowsMatched(q, rows) {
			results[i] = "no rows"
			continue
		}
		sigs[i] = rowsSignature(rows)
	}
	best, bestVotes := 0, 0
	for i, sig := range sigs {
		if sig == "" {
			continue
		}
		n := 0
		for _, other := range sigs {
			if other == sig {
				n++
			}
		}
		results[i] = strings.Repeat("+", n)
		if n > bestVotes {
			best, bestVotes = i, n
		}
	}
	ev := voteEvent{Event: "vote", Results: results, Chosen: best}
	for _, c := range cands {
		ev.Candidates = append(ev.Candidates, string(c.args))
	}
	r.tr.emit(ev)
	if best != 0 {
		s.replace(replies[best])
	}
	return cands[best], nil
}

// rowsSignature is a result's rows in a canonical order, so that two
// queries that return the same rows in another order vote together.
func rowsSignature(rows [][]string) string {
	lines := make([]string, len(rows))
	for i, row := range rows {
		lines[i] = strings.ToLower(strings.Join(row, "\x1f"))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\x1e")
}
