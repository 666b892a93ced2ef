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

var schema = json.RawMessage(`{"type":"object","properties":{"tool":{"type":"string","enum":["ls","cat","query","answer"]},"arg":{"type":"string"}},"required":["tool","arg"]}`)

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

// New opens the bundle's SQL sandbox for an agent. maxSteps bounds the tool
// calls per question (0 means 8). Close releases the sandbox.
func New(ctx context.Context, c Chatter, model string, b *bundle.Bundle, maxSteps int) (*Agent, error) {
	if maxSteps <= 0 {
		maxSteps = 8
	}
	p, err := prompts.Load("agent.tmpl")
	if err != nil {
		return nil, err
	}
	sb, err := b.Sandbox(ctx)
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
	msgs := []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: question}}
	var ans Answer
	for range a.maxSteps {
		resp, err := a.llm.Chat(ctx, llm.ChatRequest{Model: a.model, Messages: msgs, Schema: schema, NumPredict: 256, NumCtx: 8192})
		if err != nil {
			return ans, fmt.Errorf("ask %q: %w", question, err)
		}
		var call struct{ Tool, Arg string }
		if err := json.Unmarshal([]byte(resp.Content), &call); err != nil {
			call.Tool, call.Arg = "invalid", resp.Content
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
		out = a.ls()
	case ToolCat:
		out = a.cat(ctx, strings.TrimSpace(arg))
	case ToolQuery:
		out = a.query(ctx, arg, 20)
	default:
		out = fmt.Sprintf("error: unknown tool %q; use ls, cat, query or answer", tool)
	}
	if len(out) > maxResult {
		out = out[:maxResult] + "\n… (cut)"
	}
	return out
}

func (a *Agent) ls() string {
	var b strings.Builder
	for _, f := range a.b.Files() {
		size := a.b.Manifest.Files[f].Bytes
		fmt.Fprintf(&b, "%s\t%d bytes\n", f, size)
	}
	b.WriteString("SQL tables and views: ")
	b.WriteString(a.query(context.Background(), "SELECT string_agg(table_name, ', ' ORDER BY table_name) FROM information_schema.tables", 1))
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
