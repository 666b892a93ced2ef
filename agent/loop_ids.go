package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A small model asked for an id writes one: it copies an id from the
// prompt's examples or makes one up (cat {"id":"c17"} thirty times on the
// example, each not_found). With Options.IDs at IDsSeen, the json and
// completion formats offer each turn an action schema whose id arguments
// are enums of the ids the question's results have shown so far (cat's id
// also the bundle's tables and files), so an id the model writes exists.
// A tool that needs an id and has none to take is left out of the turn
// until a result shows one; ls, grep, sems and query show them.

// constrained reports whether this question's turns constrain id
// arguments (Options.IDs) in a format with an action schema.
func (r *run) constrained() bool {
	return r.a.opts.IDs == IDsSeen && r.a.opts.Format != FormatNative
}

// seenSchema is the action schema of the next turn with every id argument
// an enum of what exists and has been seen (constrainTools), less exclude
// (the value of a call that failed twice in a row; "" for none).
func (r *run) seenSchema(ctx context.Context, exclude string) (json.RawMessage, error) {
	return r.offerSeen(ctx, r.a.offer, exclude)
}

// offerSeen is the action schema of tools constrained to the ids seen so
// far and the roots (constrainTools), less exclude.
func (r *run) offerSeen(ctx context.Context, tools []Tool, exclude string) (json.RawMessage, error) {
	seen, err := r.a.tools.seenIDs(ctx, r.results())
	if err != nil {
		return nil, err
	}
	if r.roots == nil {
		if r.roots, err = r.a.tools.roots(ctx); err != nil {
			return nil, err
		}
	}
	return actionSchema(constrainTools(tools, seen, r.roots, exclude)), nil
}

// constrainTools returns tools with each id argument (idArgs) an enum of
// the seen ids (nodes only; cat's id takes every seen id and the roots),
// less exclude, at most maxEnum values. An argument with no value left is
// dropped when optional; a tool whose required id has none is left out.
// Answer is always kept.
func constrainTools(tools []Tool, seen []seenID, roots []string, exclude string) []Tool {
	out := make([]Tool, 0, len(tools))
	for _, tool := range tools {
		params, drop := constrainParams(tool, seen, roots, exclude)
		switch {
		case drop && tool.Name != ToolAnswer:
		case params != nil:
			tool.Params = params
			out = append(out, tool)
		default:
			out = append(out, tool)
		}
	}
	return out
}

// constrainParams is a tool's parameters with its id arguments made enums
// (constrainTools): nil when it has none, drop when a required one has no
// value.
func constrainParams(tool Tool, seen []seenID, roots []string, exclude string) (json.RawMessage, bool) {
	return enumIDArgs(tool, func(arg string) ([]string, bool) {
		return enumValues(tool.Name == ToolCat && arg == "id", exclude, seen, roots), true
	})
}

// failedID is the value of the id argument of s that its error names ("" when
// none does): the value a constrained turn leaves out after s failed twice.
func failedID(s Step) string {
	var args map[string]json.RawMessage
	if json.Unmarshal(s.Args, &args) != nil {
		return ""
	}
	for _, k := range idArgs {
		var v string
		if json.Unmarshal(args[k], &v) == nil && names(s.Error, v) {
			return v
		}
	}
	return ""
}

// commonWords are capitalised words of an answer's sentence that name
// nothing, so need no result behind them.
var commonWords = map[string]bool{
	"the": true, "a": true, "an": true, "it": true, "its": true, "this": true, "that": true, "these": true, "those": true,
	"there": true, "they": true, "he": true, "she": true, "we": true, "yes": true, "no": true, "none": true, "not": true,
	"and": true, "or": true, "of": true, "in": true, "on": true, "at": true, "by": true, "for": true, "from": true, "to": true,
	"with": true, "is": true, "was": true, "are": true, "were": true, "unknown": true, "answer": true, "total": true,
}

// argumentWords are words of the action grammar a small model writes as
// its answer when it has none ("answer").
var argumentWords = []string{"answer", "args", "tool", "table", "columns", "where", "value", "citations"}

// withoutAnswer is the action schema of a turn after an answer failed
// ungrounded twice in a row: the question's constrained tools but answer,
// so that the model looks something up instead of giving it a third time.
func (r *run) withoutAnswer(ctx context.Context) (json.RawMessage, error) {
	tools := slices.DeleteFunc(slices.Clone(r.a.offer), func(t Tool) bool { return t.Name == ToolAnswer })
	return r.offerSeen(ctx, tools, "")
}

// ungrounded checks an answer of a constrained question (a small model's)
// against what the question's results showed: every name it gives (a word
// with a capital letter or a digit, but common words) must be in the
// question or in a result of this question. A small model otherwise
// answers with the worked example's answer ("Ana Ruiz repaired it on 3
// May") or one it made up. An answer that is only a word of the call (a
// tool's name, "answer": argumentWords) is refused too. It returns nil
// for a grounded answer.
func (r *run) ungrounded(args json.RawMessage) *CallError {
	var aa AnswerArgs
	if json.Unmarshal(args, &aa) != nil {
		return nil // the answer tool decoded it already
	}
	if said := strings.ToLower(strings.Trim(aa.Answer, " .\"'")); slices.Contains(toolNames(r.a.offer), said) || slices.Contains(argumentWords, said) {
		return &CallError{
			Tool: ToolAnswer, Kind: FailUngrounded,
			Msg:  fmt.Sprintf("the answer %q is a word of the call, not what a result showed", aa.Answer),
			Hint: "look it up first (select), then answer with the value a result showed",
		}
	}
	seen := map[string]bool{}
	for _, w := range idToken.FindAllString(strings.ToLower(r.ans.Question+"\n"+strings.Join(r.results(), "\n")), -1) {
		seen[strings.TrimRight(w, ".:/-")] = true
	}
	var missing []string
	for _, w := range idToken.FindAllString(aa.Answer, -1) {
		w = strings.TrimRight(w, ".:/-")
		lw := strings.ToLower(w)
		if commonWords[lw] || lw == w && !strings.ContainsAny(w, "0123456789") {
			continue // a lower-case word: no name
		}
		if !seen[lw] && !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &CallError{
		Tool: ToolAnswer, Kind: FailUngrounded,
		Msg:  fmt.Sprintf("the answer names %s, which no result of this question showed", short(strings.Join(missing, ", "), maxListing)),
		Hint: "look it up first (grep, sems, select, query, cat), then answer with what a result showed",
	}
}
