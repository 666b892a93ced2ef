package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// Tools the model may call.
const (
	ToolLs     = "ls"
	ToolCat    = "cat"
	ToolQuery  = "query"
	ToolAnswer = "answer"
)

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

// maxResult bounds what one tool call returns to the model.
const maxResult = 2000

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
	sb       *duck.Sandbox
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
	sb, err := b.SandboxWithLimits(ctx, lim)
	if err != nil {
		return nil, err
	}
	return &Agent{llm: c, model: model, maxSteps: maxSteps, b: b, sb: sb, prompt: p}, nil
}

// Close releases the sandbox.
func (a *Agent) Close() error { return a.sb.Close() }

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
	var out string
	switch tool {
	case ToolLs:
		out = a.ls(ctx)
	case ToolCat:
		out = a.cat(ctx, strings.TrimSpace(arg))
	case ToolQuery:
		out = a.query(ctx, arg, 20)
	default:
		out = `error: reply with one JSON object {"tool": "ls"|"cat"|"query"|"answer", "arg": "..."}`
	}
	if len(out) > maxResult {
		out = out[:maxResult] + "\n… (cut)"
	}
	return out
}

func (a *Agent) ls(ctx context.Context) string {
	var b strings.Builder
	for _, f := range a.b.Files() {
		if info, ok := a.b.Manifest.Files[f]; ok {
			fmt.Fprintf(&b, "%s\t%d bytes\n", f, info.Bytes)
		} else {
			fmt.Fprintf(&b, "%s\n", f)
		}
	}
	_, rows, _, err := a.sb.Query(ctx, "SELECT string_agg(table_name, ', ' ORDER BY table_name) FROM information_schema.tables", 1)
	if err == nil && len(rows) == 1 {
		b.WriteString("SQL tables and views: " + rows[0][0])
	}
	return b.String()
}

func (a *Agent) cat(ctx context.Context, name string) string {
	if view, ok := strings.CutSuffix(name, ".parquet"); ok && slices.Contains(a.b.Files(), name) {
		return a.query(ctx, "SELECT * FROM "+duck.QuoteIdent(view)+" LIMIT 10", 10)
	}
	if name == bundle.DataFile {
		return a.query(ctx, "SELECT table_name, estimated_size AS rows FROM duckdb_tables() WHERE database_name = 'data'", 50)
	}
	raw, err := a.b.ReadFile(name, maxResult)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(raw)
}

// query runs q in the sandbox. An error is the model's to act on, and the
// loop goes on: a refused statement names its type, a query stopped at the
// time or memory limit says so in one line and what to change
// (duck.LimitError).
func (a *Agent) query(ctx context.Context, q string, maxRows int) string {
	cols, rows, truncated, err := a.sb.Query(ctx, q, maxRows)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, "\t"))
	for _, r := range rows {
		b.WriteString("\n" + strings.Join(r, "\t"))
	}
	if truncated {
		fmt.Fprintf(&b, "\n… (first %d rows)", maxRows)
	}
	return b.String()
}
