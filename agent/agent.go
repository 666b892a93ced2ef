package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/llm"
	"kgforge/prompts"
)

// Chatter is the part of llm.Client the agent needs.
type Chatter interface {
	Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error)
}

// schemaFor returns the reply schema: one object per tool, so that cat can
// only name a file that exists and a small model cannot invent one.
func schemaFor(files []string) json.RawMessage {
	call := func(tool string, arg map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": []string{"tool", "arg"}, "properties": map[string]any{
			"tool": map[string]any{"type": "string", "enum": []string{tool}}, "arg": arg,
		}}
	}
	s := map[string]any{"anyOf": []any{
		call(ToolLs, map[string]any{"type": "string", "enum": []string{""}}),
		call(ToolCat, map[string]any{"type": "string", "enum": files}),
		call(ToolQuery, map[string]any{"type": "string", "maxLength": 600, "pattern": "^(SELECT|WITH) .+$"}),
		call(ToolAnswer, map[string]any{"type": "string", "maxLength": 600}),
	}}
	b, _ := json.Marshal(s) // maps of strings and slices always marshal
	return b
}

// Step is one tool call and what it returned.
type Step struct {
	Tool   string `json:"tool"`
	Arg    string `json:"arg"`
	Result string `json:"result"`
}

// Answer is the outcome of one question.
type Answer struct {
	Text     string `json:"answer"`
	Answered bool   `json:"answered"` // false when the step budget ran out first
	Steps    []Step `json:"steps"`
}

// Agent answers questions over one bundle. It is not safe for concurrent use.
type Agent struct {
	llm      Chatter
	model    string
	maxSteps int
	b        *bundle.Bundle
	tools    *Toolbox
	prompt   *prompts.Prompt
}

// New opens the bundle's SQL sandbox for an agent, with lim bounding each
// query (the zero value takes duck's defaults). maxSteps bounds the tool
// calls per question (0 means 8). Close releases the sandbox.
func New(ctx context.Context, c Chatter, model string, b *bundle.Bundle, maxSteps int, lim duck.SandboxLimits) (*Agent, error) {
	if maxSteps <= 0 {
		maxSteps = 8
	}
	p, err := prompts.Load("agent.tmpl")
	if err != nil {
		return nil, err
	}
	tb, err := NewToolbox(ctx, b, lim)
	if err != nil {
		return nil, err
	}
	return &Agent{llm: c, model: model, maxSteps: maxSteps, b: b, tools: tb, prompt: p}, nil
}

// Close releases the sandbox.
func (a *Agent) Close() error { return a.tools.Close() }

// Ask runs the tool loop for one question.
func (a *Agent) Ask(ctx context.Context, question string) (Answer, error) {
	tables, err := a.b.Tables()
	if err != nil {
		return Answer{}, err
	}
	var names []string
	for _, t := range tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name
		}
		names = append(names, fmt.Sprintf("%s(%s)", t.Name, strings.Join(cols, ", ")))
	}
	system, err := a.prompt.Render(map[string]string{"Question": question, "Tables": strings.Join(names, "; ")})
	if err != nil {
		return Answer{}, err
	}
	// Every question starts with ls, so the model sees what there is.
	listing := a.run(ctx, ToolLs, "")
	ans := Answer{Steps: []Step{{Tool: ToolLs, Result: listing}}}
	msgs := []llm.Message{
		{Role: "system", Content: system},
		{Role: "user", Content: question + "\n\nResult of ls:\n" + listing + "\n\nNext tool call, or answer."},
	}
	schema := schemaFor(a.b.Files())
	temperature := 0.0
	for range a.maxSteps - 1 {
		resp, err := a.llm.Chat(ctx, llm.ChatRequest{Model: a.model, Messages: msgs, Schema: schema, NumPredict: 256, NumCtx: 8192, Temperature: temperature})
		if err != nil {
			return ans, fmt.Errorf("ask %q: %w", question, err)
		}
		var call struct{ Tool, Arg string }
		if err := json.Unmarshal([]byte(resp.Content), &call); err != nil {
			// A cut or malformed reply: say so, and sample a little next
			// time so the model does not repeat it.
			call.Tool, call.Arg = "invalid", resp.Content
			temperature = 0.5
		}
		if call.Tool == ToolAnswer {
			ans.Text, ans.Answered = call.Arg, true
			ans.Steps = append(ans.Steps, Step{Tool: call.Tool, Arg: call.Arg})
			return ans, nil
		}
		result := a.run(ctx, call.Tool, call.Arg)
		ans.Steps = append(ans.Steps, Step{Tool: call.Tool, Arg: call.Arg, Result: result})
		msgs = append(msgs,
			llm.Message{Role: "assistant", Content: resp.Content},
			llm.Message{Role: "user", Content: "Result of " + call.Tool + ":\n" + result + "\n\nNext tool call, or answer."})
	}
	ans.Text = "no answer within the budget of " + fmt.Sprint(a.maxSteps) + " tool calls"
	return ans, nil
}

// run executes one tool call; failures are returned as text for the model.
func (a *Agent) run(ctx context.Context, tool, arg string) string {
	var args any
	switch tool {
	case ToolLs:
		args = struct{}{}
	case ToolCat:
		args = map[string]string{"name": strings.TrimSpace(arg)}
	case ToolQuery:
		args = map[string]string{"sql": arg}
	default:
		return `error: reply with one JSON object {"tool": "ls"|"cat"|"query"|"answer", "arg": "..."}`
	}
	raw, _ := json.Marshal(args) // strings and empty structs always marshal
	out, err := a.tools.Call(ctx, tool, raw)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}
