package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// Tool is one generic tool over a bundle. The loop, the MCP server and the
// evaluation harness call tools only through a Toolbox; nothing in a tool
// knows a label, a table or a domain.
type Tool struct {
	Name        string
	Description string          // what it does and how to call it, for the model and MCP clients
	Params      json.RawMessage // JSON schema of the arguments object
	// Grammar, when set, is a stricter schema of the same arguments that
	// the json and completion formats constrain a call with (the server's
	// grammar follows it); Params stays the plain object schema that tool
	// calling and MCP clients take.
	Grammar json.RawMessage
	// Run executes one call. An error is for the model to act on: return a
	// *CallError that says what was wrong and how to call the tool right.
	Run func(ctx context.Context, args json.RawMessage) (string, error)
}

// CallError is a failed tool call, worded for the model: what was wrong
// and how to call the tool right. Kind tells failures apart in transcripts
// and the harness's tables.
type CallError struct {
	Tool string
	Kind string // one of the Fail* kinds
	Msg  string // what was wrong
	Hint string // how to call the tool right
}

// Kinds of failed calls.
const (
	FailUnknownTool = "unknown_tool" // a tool name that does not exist
	FailMalformed   = "malformed"    // arguments that are not the tool's schema
	FailNotFound    = "not_found"    // a node, table, chunk or file that does not exist
	FailSQL         = "sql_error"    // a refused or failed statement
	FailLimit       = "limit"        // a query stopped at its time or memory limit
	FailUngrounded  = "ungrounded"   // an answer naming what no result of the question showed
)

// Error is the message the model sees after the call it made.
func (e *CallError) Error() string {
	s := e.Msg
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Citation points at what an answer rests on.
type Citation struct {
	Kind   string   `json:"kind"`             // node, edge, row, chunk
	ID     string   `json:"id"`               // node or edge id, chunk id, or a row's key value
	Table  string   `json:"table,omitempty"`  // a row's table
	Source string   `json:"source,omitempty"` // a chunk's source
	Span   *kg.Span `json:"span,omitempty"`   // a chunk's span in its source
}

// AnswerArgs are the arguments of the answer tool: the final answer.
type AnswerArgs struct {
	Answer     string     `json:"answer"`
	Citations  []Citation `json:"citations,omitempty"`
	Confidence float64    `json:"confidence"` // 0..1
}

// MaxResult bounds what one tool call returns to the model, in bytes.
const MaxResult = 4000

// Toolbox holds the tools over one opened bundle and its SQL sandbox. It is
// not safe for concurrent use.
type Toolbox struct {
	b     *bundle.Bundle
	sb    *duck.Sandbox
	tools []Tool
	graph *graphState // built on the first graph call
	emb   Embedder    // embeds sems queries; nil ranks by BM25 alone
}

// NewToolbox opens the bundle's sandbox (lim bounds each query; the zero
// value takes duck's defaults) and registers every tool. Close releases it.
func NewToolbox(ctx context.Context, b *bundle.Bundle, lim duck.SandboxLimits) (*Toolbox, error) {
	sb, err := b.SandboxWithLimits(ctx, lim)
	if err != nil {
		return nil, err
	}
	t := &Toolbox{b: b, sb: sb}
	t.tools = append(t.baseTools(), t.graphTools()...)
	if sel, ok := t.selectTool(); ok { // after query, before the graph tools
		i := slices.IndexFunc(t.tools, func(x Tool) bool { return x.Name == ToolQuery }) + 1
		t.tools = slices.Insert(t.tools, i, sel)
	}
	return t, nil
}

// Close releases the sandbox.
func (t *Toolbox) Close() error { return t.sb.Close() }

// Bundle is the bundle the tools read.
func (t *Toolbox) Bundle() *bundle.Bundle { return t.b }

// Tools lists the tools in a stable order.
func (t *Toolbox) Tools() []Tool { return slices.Clone(t.tools) }

// Tool returns the named tool.
func (t *Toolbox) Tool(name string) (Tool, bool) {
	i := slices.IndexFunc(t.tools, func(x Tool) bool { return x.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return t.tools[i], true
}

// Call runs one tool call. A failure the model can act on comes back as a
// *CallError; any other error is the caller's (a cancelled context). The
// result is cut at MaxResult bytes, with a note saying so.
func (t *Toolbox) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	tool, ok := t.Tool(name)
	if !ok {
		names := make([]string, len(t.tools))
		for i, x := range t.tools {
			names[i] = x.Name
		}
		return "", &CallError{Tool: name, Kind: FailUnknownTool, Msg: "no such tool", Hint: "the tools are " + strings.Join(names, ", ")}
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	out, err := tool.Run(ctx, args)
	if err != nil {
		if ce := (*CallError)(nil); errors.As(err, &ce) {
			if ce.Tool == "" {
				ce.Tool = name // raised by a helper that serves several tools
			}
			return "", ce
		}
		if ctx.Err() != nil {
			return "", err
		}
		return "", &CallError{Tool: name, Kind: FailNotFound, Msg: err.Error()}
	}
	return cut(out, MaxResult), nil
}

// cut bounds s at n bytes, on a rune boundary, saying what was left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf("\n… (cut: %d of %d bytes shown; ask for less)", i, len(s))
}

// decode reads a call's arguments into v, or returns the malformed-call
// error that shows the tool's schema.
func decode(tool string, params json.RawMessage, args json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &CallError{Tool: tool, Kind: FailMalformed, Msg: "arguments do not fit: " + err.Error(), Hint: "arguments are a JSON object with this schema: " + string(params)}
	}
	return nil
}
