package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"kgforge/kg"
	"kgforge/llm"
)

// action is one tool call the model asked for, or a reply that could not
// be read as one (err set, kind malformed).
type action struct {
	tool   string
	args   json.RawMessage
	err    *CallError
	native bool // a native tool call: its result goes back as a tool message
}

// turn is one model call: the reply and the calls read from it.
type turn struct {
	resp    llm.ChatResponse
	actions []action
}

// format drives one question's conversation in one action format: next
// asks the model for its next turn, observe gives it the text of one
// call's result.
type format interface {
	next(ctx context.Context, o turnOptions) (turn, error)
	observe(act action, text string)
}

// turnOptions set one model turn apart from the others.
type turnOptions struct {
	temperature float64
	// schema replaces the action schema for this turn in the json and
	// completion formats (a call that failed twice in a row, narrowed
	// out: stuckOffer); nil keeps the question's own. Native ignores it.
	schema json.RawMessage
}

// schemaOr is the turn's action schema: its own, or else the question's.
func (o turnOptions) schemaOr(question json.RawMessage) json.RawMessage {
	if o.schema != nil {
		return o.schema
	}
	return question
}

// run is the state of one question.
type run struct {
	a           *Agent
	f           format
	ans         Answer
	tr          *transcript
	lastPrompt  int // the previous turn's prompt and completion tokens
	lastReply   int
	counted     bool // a turn with token counts came before
	temperature float64
	narrowed    json.RawMessage     // the next turn's action schema, when a call failed twice in a row
	roots       []string            // what cat takes besides ids, once a constrained turn asked (seenSchema)
	mark        time.Time           // when the previous call ended (or the question began)
	logprobs    []float64           // the log probabilities of the last turn's reply, when the format asked
	linked      map[string][]string // the values the question names, by table and column (linkValues), for the action model
	data        []kg.Table          // the bundle's data tables, once dataTables has read them
	schema      []selectTable       // the typed query's tables over data, once queryTable has built them (read only)
	psg         *passage            // the question's sentence in the documents, once questionPassage has looked
	psgs        []passage           // the question's sentences, once questionPassages has looked (nil: not yet)
}

// Ask runs the tool loop for one question: the model calls tools until it
// calls answer or the budget of tool calls is spent. A failed call (an
// unknown tool, malformed arguments, a refused query, a reply that is not
// a call) counts against the budget and comes back to the model as a short
// message that says how to call right. The same call failing twice in a
// row changes what the model is offered next (stuckOffer); a third time
// ends the question without an answer (Answer.Stuck). The error is only
// for what stops the loop itself: a model call that failed, a cancelled
// context, a transcript that could not be written.
func (a *Agent) Ask(ctx context.Context, question string) (Answer, error) {
	r := &run{a: a, tr: newTranscript(a.opts.Transcript), mark: time.Now(), ans: Answer{
		Question: question, Model: a.opts.Model, Format: a.opts.Format, Budget: a.opts.Budget, Steps: []Step{},
	}}
	f, linked, err := a.newFormat(ctx, question)
	if err != nil {
		return r.ans, err
	}
	r.f, r.linked = f, linked
	r.tr.emit(questionEvent{Event: "question", Question: question, Model: a.opts.Model, Format: a.opts.Format, Budget: a.opts.Budget, Tools: toolNames(a.offer)})
	if err := r.loop(ctx); err != nil {
		return r.ans, fmt.Errorf("ask %q: %w", question, err)
	}
	if !r.ans.Answered && !r.ans.Stuck {
		r.ans.BudgetSpent = true
		r.ans.Text = fmt.Sprintf("no answer within the budget of %d tool calls", a.opts.Budget)
	}
	r.tr.emit(newAnswerEvent(r.ans))
	if r.tr.err != nil {
		return r.ans, fmt.Errorf("ask %q: write transcript: %w", question, r.tr.err)
	}
	return r.ans, nil
}

// loop asks for turns until an answer, a stuck call (Answer.Stuck) or
// the budget is spent.
func (r *run) loop(ctx context.Context) error {
	if r.a.action && !r.a.opts.NoPassages {
		if done, err := r.passageAnswer(ctx); err != nil || done {
			return err
		}
	}
	for len(r.ans.Steps) < r.a.opts.Budget {
		schema := r.narrowed
		if schema == nil && r.constrained() {
			var err error
			if schema, err = r.seenSchema(ctx, ""); err != nil {
				return err
			}
		}
		t, err := r.f.next(ctx, turnOptions{temperature: r.temperature, schema: schema})
		if err != nil {
			return err
		}
		r.count(t)
		if first := len(r.ans.Steps) == 0 && r.ans.Tokens.Turns == 1; first && r.a.action && len(t.actions) == 1 &&
			t.actions[0].err == nil && t.actions[0].tool == ToolSelect {
			voted, err := r.vote(ctx, t.actions[0], t.resp.Content, turnOptions{schema: schema})
			if err != nil {
				return err
			}
			if string(voted.args) != string(t.actions[0].args) {
				// The greedy reply's probabilities are not the drawn query's.
				t.actions[0], t.resp.Logprobs = voted, nil
			}
		}
		r.temperature, r.narrowed, r.logprobs = 0, nil, t.resp.Logprobs
		for _, act := range t.actions {
			if len(r.ans.Steps) == r.a.opts.Budget {
				break
			}
			if err := r.do(ctx, act); err != nil {
				return err
			}
			if r.ans.Answered || r.ans.Stuck {
				return nil
			}
		}
	}
	return nil
}

// count adds one turn's tokens and writes its transcript line.
func (r *run) count(t turn) {
	k := &r.ans.Tokens
	k.Turns++
	fresh := 0
	if uncounted(t.resp) {
		k.Uncounted++ // the baseline stays the last counted turn's
	} else {
		fresh = t.resp.PromptTokens
		if r.counted {
			fresh = max(0, t.resp.PromptTokens-r.lastPrompt-r.lastReply)
		}
		k.Prompt += t.resp.PromptTokens
		k.Completion += t.resp.CompletionTokens
		k.UniqueInput += fresh
		r.lastPrompt, r.lastReply, r.counted = t.resp.PromptTokens, t.resp.CompletionTokens, true
	}
	r.tr.emit(turnEvent{
		Event: "turn", Turn: k.Turns, PromptTokens: t.resp.PromptTokens, CompletionTokens: t.resp.CompletionTokens,
		NewInputTokens: fresh, DoneReason: t.resp.DoneReason, Reply: t.resp.Content, ToolCalls: t.resp.ToolCalls,
	})
}

// uncounted is a reply the server cut without its final message, so
// without token counts.
func uncounted(resp llm.ChatResponse) bool {
	return resp.DoneReason == llm.DoneIncomplete && resp.PromptTokens == 0
}

// do runs one call and gives its result to the model; it sets
// Answer.Answered when the call was the answer, Answer.Stuck when it
// failed as the two before it did.
func (r *run) do(ctx context.Context, act action) error {
	step := Step{Tool: act.tool, Args: act.args}
	if step.Args == nil {
		step.Args = json.RawMessage("{}")
	}
	out, ce, err := r.call(ctx, act)
	if err != nil {
		return err
	}
	if ce == nil && act.tool == ToolAnswer && r.constrained() {
		ce = r.ungrounded(act.args)
	}
	if ce == nil && act.tool == ToolAnswer {
		// The answer tool returns the checked answer, its citations
		// completed (a chunk's source and span); older ones echo nothing.
		var aa AnswerArgs
		if json.Unmarshal([]byte(out), &aa) != nil || aa.Answer == "" {
			_ = json.Unmarshal(act.args, &aa) // the toolbox decoded it already
		}
		r.ans.Text, r.ans.Citations, r.ans.Confidence, r.ans.Answered = aa.Answer, aa.Citations, aa.Confidence, true
		r.record(step)
		return nil
	}
	text, note := out, ""
	if ce != nil {
		step.Error, step.ErrorKind = ce.Error(), ce.Kind
		text = "error: " + ce.Error()
		n := 0
		if act.err == nil { // a reply that is no call has no tool or arguments to repeat
			n = r.repeats(step)
		}
		switch {
		case n >= stuckAfter:
			r.ans.Stuck, r.ans.Text = true, stuckText(step)
			r.record(step)
			return nil
		case n == stuckAfter-1:
			if note, r.narrowed, err = r.stuckOffer(ctx, step); err != nil {
				return err
			}
		default:
			if k := r.sameCall(step); k > 0 {
				note = sameCallNote(k)
			}
		}
		r.temperature = 0.5 // so that a small model does not repeat the same call
	} else {
		step.Result = out
	}
	r.record(step)
	if ce != nil && act.tool == ToolSelect && r.a.action && ce.Kind == FailSQL {
		// A value the column cannot hold fails the query ("Pedal & Co"
		// compared with order_date): read as a filter that matched no
		// row, moved to the table (valueTable) or the column (moveFilter)
		// that holds the value, and the repairs go on from there.
		if args, moved, err := r.valueTable(ctx, act.args); err != nil {
			return err
		} else if args != nil {
			act.args, out, text, ce = args, moved, moved, nil
		} else if args, moved, err := r.moveFilter(ctx, act.args, "failed"); err != nil {
			return err
		} else if args != nil {
			act.args, out, text, ce = args, moved, moved, nil
		}
	}
	if ce != nil && act.tool == ToolSelect && r.a.action && ce.Kind != FailLimit {
		if args, looked, err := r.lookupAfterFailure(ctx, act.args); err != nil {
			return err
		} else if args != nil {
			if done, err := r.resultAnswer(ctx, args, looked); err != nil || done {
				return err
			}
		}
	}
	if ce == nil && act.tool == ToolSelect && r.a.action {
		// The repairs that read the question alone, each from the query
		// the one before it left (agent/loop_ops.go).
		for _, repair := range []func(context.Context, json.RawMessage) (json.RawMessage, string, error){
			r.fixOps, r.periodFilter, r.valueTable, r.countRows, r.countTable, r.sumCounted, r.ungroupKey, r.ungroupNamed, r.aggregateColumn, r.groupEach, r.unlimit, r.dropLimit, r.addComparison, r.addSuperlative, r.orderColumn, r.orderDirection, r.rankByCount, r.havingCount, r.rankGroups, r.countDistinct,
		} {
			if args, res, err := repair(ctx, act.args); err != nil {
				return err
			} else if args != nil {
				act.args, out, text = args, res, res
			}
		}
		if args, looked, err := r.lookupCells(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, looked, looked
		} else if args, looked, err := r.passageLookup(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, looked, looked
		} else if args, moved, err := r.moveFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, moved, moved
		} else if args, added, err := r.addFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, added, added
		} else if args, grounded, err := r.groundFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, grounded, grounded
		} else if args, dropped, err := r.dropFilters(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, dropped, dropped
		} else if args, filtered, err := r.passageFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, filtered, filtered
		} else if args, filtered, err := r.kindFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, filtered, filtered
		}
		// after the filter repairs: a filter added on a word of the
		// description ("Brno" of "the largest customer of the Brno plant")
		// gives way to the row a sentence says it describes
		if args, described, err := r.describedFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, described, described
		}
		// after the filter repairs: a filter moved onto the value's own
		// column ("48V battery pack" from part_id to name) is what it bridges from
		if args, bridged, err := r.bridgeFilter(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, bridged, bridged
		}
		if args, chosen, err := r.namedSelection(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, chosen, chosen
		}
		if args, chosen, err := r.answerTable(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, chosen, chosen
		} else if args, named, err := r.nameKey(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, named, named
		}
		if args, chosen, err := r.answerColumn(ctx, act.args, out); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, chosen, chosen
		}
		if args, filtered, err := r.filterEveryValue(ctx, act.args); err != nil {
			return err
		} else if args != nil {
			act.args, out, text = args, filtered, filtered
		}
		if done, err := r.resultAnswer(ctx, act.args, out); err != nil || done {
			return err
		}
	}
	r.f.observe(act, delimit(act.tool, text)+note+r.budgetNote())
	return nil
}

func sameCallNote(k int) string {
	return fmt.Sprintf("\nThis is the same call as call %d, which failed too: change the arguments or call another tool.", k)
}

// call runs act through the toolbox, restricted to the offered tools. A
// failure for the model comes back as a *CallError; err is any other.
func (r *run) call(ctx context.Context, act action) (string, *CallError, error) {
	if act.err != nil {
		return "", act.err, nil
	}
	if !slices.ContainsFunc(r.a.offer, func(t Tool) bool { return t.Name == act.tool }) {
		return "", &CallError{
			Tool: act.tool, Kind: FailUnknownTool, Msg: fmt.Sprintf("no tool %q", act.tool),
			Hint: "the tools are " + strings.Join(toolNames(r.a.offer), ", "),
		}, nil
	}
	out, err := r.a.tools.Call(ctx, act.tool, act.args)
	if ce := (*CallError)(nil); errors.As(err, &ce) {
		return "", ce, nil
	}
	return out, nil, err
}

// sameCall returns the number of an earlier call with the same tool and
// arguments as s (canonicalArgs), or 0.
func (r *run) sameCall(s Step) int {
	for i, prev := range r.ans.Steps {
		if prev.Tool == s.Tool && canonicalArgs(prev.Args) == canonicalArgs(s.Args) {
			return i + 1
		}
	}
	return 0
}

// record adds a step to the answer, the transcript and the caller's
// progress.
func (r *run) record(s Step) {
	r.ans.Steps = append(r.ans.Steps, s)
	r.tr.emit(callEvent{Event: "call", Call: len(r.ans.Steps), Step: s})
	now := time.Now()
	if r.a.opts.Progress != nil {
		r.a.opts.Progress(Progress{Call: len(r.ans.Steps), Budget: r.a.opts.Budget, Step: s, Elapsed: now.Sub(r.mark)})
	}
	r.mark = now
}

// budgetNote is the warning added after the call that uses 80 % of the
// budget, and after the one that leaves one call.
func (r *run) budgetNote() string {
	used, budget := len(r.ans.Steps), r.a.opts.Budget
	var note string
	switch left := budget - used; {
	case left == 1:
		note = fmt.Sprintf("Budget: %d of %d tool calls used; one is left: call answer now with what you found.", used, budget)
	case used == budget*4/5 && left > 1:
		note = fmt.Sprintf("Budget: %d of %d tool calls used; %d are left: call answer soon.", used, budget, left)
	default:
		return ""
	}
	r.tr.emit(warningEvent{Event: "warning", Call: used, Text: note})
	return "\n" + note
}

// resultTag matches the delimiters of a tool result in any case, so that
// text from a document cannot close its result early and speak as the
// loop.
var resultTag = regexp.MustCompile(`(?i)<(/?)(result)`)

// delimit wraps a tool's output in <result tool="NAME"> … </result>. Any
// delimiter inside the output is defused (its < becomes &lt;).
func delimit(tool, text string) string {
	name := strings.Map(func(r rune) rune {
		if r == '"' || r == '<' || r == '>' || r == '\n' {
			return '_'
		}
		return r
	}, tool)
	return fmt.Sprintf("<result tool=\"%s\">\n%s\n</result>", name, resultTag.ReplaceAllString(text, "&lt;$1$2"))
}
