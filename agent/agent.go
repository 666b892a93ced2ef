package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/llm"
	"kgforge/prompts"
)

// LLM is the part of llm.Client the agent uses: chat for chat models,
// raw completion for base models, and the model's metadata to choose
// between them.
type LLM interface {
	Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error)
	Generate(ctx context.Context, req llm.GenerateRequest) (llm.ChatResponse, error)
	Info(ctx context.Context, model string) (llm.ModelInfo, error)
}

// The action formats: how the model names its next tool call.
const (
	// FormatNative is Ollama's native tool calling, for models with the
	// "tools" capability.
	FormatNative = "native"
	// FormatJSON is one JSON object {"tool": NAME, "args": {...}} per
	// turn, constrained by a schema built from the tools' parameters, for
	// chat models without tool calling.
	FormatJSON = "json"
	// FormatCompletion continues a few-shot log of calls and results
	// through raw completion, for base models (no chat template).
	FormatCompletion = "completion"
)

// ActionPrompt is the value of llm.ModelInfo.Specialist (the GGUF key
// kgforge.prompt) of kgforge's own action model, kgforge-agent: trained on
// the prompt part "action" of prompts/agent.tmpl (the question, the data
// tables listed with their columns, the calls so far), it is driven in the
// completion format with that prompt instead of the few-shot log.
const ActionPrompt = "agent_action"

// ActionModel is the name set-up gives kgforge's action model in Ollama
// (scripts/ollama.sh).
const ActionModel = "kgforge-agent"

// ErrFormat is wrapped by the error of a format that does not exist or
// that the model cannot use.
var ErrFormat = errors.New("agent format")

// ErrExtractionModel (it wraps ErrFormat) is the error of a model kgforge
// trained to extract facts (llm.ModelInfo.Specialist is set): it writes
// fact lines and cannot call tools in any format.
var ErrExtractionModel = fmt.Errorf("%w: an extraction model cannot drive the agent", ErrFormat)

// Formats lists the action formats.
var Formats = []string{FormatNative, FormatJSON, FormatCompletion}

// DefaultBudget is the number of tool calls a question gets unless told.
const DefaultBudget = 30

// Options configure an Agent. The zero value works: the model's own
// format, a budget of 30 tool calls, every tool, duck's sandbox limits.
type Options struct {
	Model  string
	Budget int    // tool calls per question; 0 means DefaultBudget
	Format string // one of Formats; "" chooses from the model's metadata (PickFormat)
	// Tools restricts the loop to these tools (answer is always offered);
	// nil offers every tool of the Toolbox.
	Tools  []string
	Limits duck.SandboxLimits // bound each query; the zero value takes duck's defaults
	// Transcript receives one JSON line per event of every question
	// (question, model turns with tokens, tool calls, answer); nil writes
	// none.
	Transcript io.Writer
	NumCtx     int // context window sent with each call; 0 means 8192
	// Context is text the model is shown before every question, such as a
	// summary of the schema for a full-context baseline: in the system
	// message of the chat formats, before the question in the completion
	// log. Empty shows nothing.
	Context string
	// Progress, when set, is called after each tool call as it ends, on
	// the goroutine of Ask, so that a caller can show a question's
	// progress while it runs (kgforge ask prints a line per call). A turn
	// of the json and completion formats is one call; a native turn may
	// hold several.
	Progress func(Progress)
	// IDs says what an id argument (a node, an edge, a chunk; cat's id)
	// may name in the json and completion formats: IDsSeen, only the ids
	// the question's results have shown so far (and, for cat, the
	// bundle's tables and files), as an enum of the action schema, so a
	// model cannot spend a call on an id it made up; IDsFree, any string.
	// "" picks IDsSeen for the completion format (base models) and
	// IDsFree otherwise. Native tool calling is never constrained.
	IDs string
	// Samples is how many more typed queries the action model draws for
	// a question's first turn, to vote on by their results (run.vote); 0
	// takes the model's own query alone.
	Samples int
	// NoPassages turns off the action model's answers from a sentence of
	// the documents (passageAnswer), so that every question gets the
	// model's query: bench/agenttraj records those turns to train on.
	NoPassages bool
}

// What Options.IDs may be.
const (
	IDsSeen = "seen"
	IDsFree = "free"
)

// Progress is one tool call as it ends (Options.Progress).
type Progress struct {
	Call   int // 1-based, counting against the budget
	Budget int
	Step   Step
	// Elapsed is the time since the previous call ended (or the question
	// began): the model's turn that made the call, and the call itself.
	Elapsed time.Duration
}

// Step is one tool call and what came of it.
type Step struct {
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Result    string          `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`      // the message the model got for a failed call
	ErrorKind string          `json:"error_kind,omitempty"` // a Fail* kind; "" for a call that worked
	// By is "kgforge" for a call kgforge wrote, not the model: the answer
	// it writes from the action model's query result (resultAnswer).
	By string `json:"by,omitempty"`
}

// Tokens counts what the model read and wrote for one question.
type Tokens struct {
	Turns      int `json:"turns"`      // model calls
	Prompt     int `json:"prompt"`     // prompt tokens summed over turns, as the server counted them
	Completion int `json:"completion"` // completion tokens summed over turns
	// UniqueInput counts each prompt token once: the first prompt in full,
	// then per turn only what was added since the previous one, less the
	// model's own previous reply (docs/agent.md, "Token counting").
	UniqueInput int `json:"unique_input"`
	// Uncounted is how many turns came without token counts: the server
	// cut the reply (llm.DoneIncomplete: Ollama stops a reply that repeats
	// one token 30 times and sends no final message), so Prompt,
	// Completion and UniqueInput leave those turns out.
	Uncounted int `json:"uncounted,omitempty"`
}

// Answer is the outcome of one question.
type Answer struct {
	Question   string     `json:"question"`
	Text       string     `json:"answer"`
	Citations  []Citation `json:"citations,omitempty"`
	Confidence float64    `json:"confidence"`
	// Answered is true when the model called answer; BudgetSpent when the
	// tool calls ran out first; Stuck when the loop ended the question
	// early because the same call failed three times in a row (Text then
	// names the call and its error).
	Answered    bool   `json:"answered"`
	BudgetSpent bool   `json:"budget_spent"`
	Stuck       bool   `json:"stuck,omitempty"`
	Model       string `json:"model"`
	Format      string `json:"format"`
	Budget      int    `json:"budget"`
	Steps       []Step `json:"steps"`
	Tokens      Tokens `json:"tokens"`
}

// FailedCalls counts the steps that returned an error to the model.
func (a Answer) FailedCalls() int {
	n := 0
	for _, s := range a.Steps {
		if s.ErrorKind != "" {
			n++
		}
	}
	return n
}

// Agent answers questions over one bundle. It is not safe for concurrent use.
type Agent struct {
	llm    LLM
	opts   Options
	tools  *Toolbox
	offer  []Tool // the tools the model is offered, answer included
	prompt *prompts.Prompt
	action bool // the model is kgforge's action model (ActionPrompt): the prompt part "action"
}

// New opens the bundle's SQL sandbox for an agent and settles its action
// format: opts.Format, or the one PickFormat chooses from the model's
// metadata. Close releases the sandbox.
func New(ctx context.Context, c LLM, b *bundle.Bundle, opts Options) (*Agent, error) {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.NumCtx <= 0 {
		opts.NumCtx = 8192
	}
	info, err := c.Info(ctx, opts.Model)
	if err != nil {
		return nil, err
	}
	if opts.Format, err = checkFormat(opts.Format, info); err != nil {
		return nil, err
	}
	switch opts.IDs {
	case "":
		opts.IDs = IDsFree
		if opts.Format == FormatCompletion {
			opts.IDs = IDsSeen
		}
	case IDsSeen, IDsFree:
	default:
		return nil, fmt.Errorf("ids %q: give %s or %s", opts.IDs, IDsSeen, IDsFree)
	}
	p, err := prompts.Load("agent.tmpl")
	if err != nil {
		return nil, err
	}
	tb, err := NewToolbox(ctx, b, opts.Limits)
	if err != nil {
		return nil, err
	}
	if e, ok := c.(Embedder); ok { // sems embeds its query when it can
		tb.SetEmbedder(e)
	}
	offer, err := offered(tb, opts.Tools)
	if err != nil {
		return nil, errors.Join(err, tb.Close())
	}
	return &Agent{llm: c, opts: opts, tools: tb, offer: offer, prompt: p, action: info.Specialist == ActionPrompt}, nil
}

// PickFormat is the action format for a model: completion for a base
// model (checkFormat also gives it to kgforge's action model, ActionPrompt),
// native tool calls for a model with the "tools" capability, the JSON
// action format for any other chat model.
func PickFormat(info llm.ModelInfo) string {
	switch {
	case info.Base():
		return FormatCompletion
	case info.Can("tools"):
		return FormatNative
	default:
		return FormatJSON
	}
}

func checkFormat(f string, info llm.ModelInfo) (string, error) {
	switch {
	case info.Specialist == ActionPrompt && f != "" && f != FormatCompletion:
		return "", fmt.Errorf("%w %s: %s is kgforge's action model, trained on the completion format's prompt %s; use format completion, the default for it",
			ErrFormat, f, info.Name, ActionPrompt)
	case info.Specialist == ActionPrompt:
		return FormatCompletion, nil
	case info.Specialist != "":
		return "", fmt.Errorf("%w: %s is kgforge's extraction model (trained on the prompt %s); name a chat model", ErrExtractionModel, info.Name, info.Specialist)
	case f == "":
		return PickFormat(info), nil
	case !slices.Contains(Formats, f):
		return "", fmt.Errorf("%w %q: give one of %s", ErrFormat, f, strings.Join(Formats, ", "))
	case f != FormatCompletion && info.Base():
		// Ollama renders a chat through the model's template; one that only
		// passes the prompt through shows the model the user messages alone
		// (no system message, so no tools, and none of its own calls).
		return "", fmt.Errorf("%w %s: model %s has no chat template (its template passes only the prompt through, so a chat would show it neither the tools nor its own calls); use format completion, the default for it",
			ErrFormat, f, info.Name)
	case f == FormatNative && !info.Can("tools"):
		return "", fmt.Errorf("%w native: model %s has no tool calling (capabilities: %s); use format json or completion",
			ErrFormat, info.Name, strings.Join(info.Capabilities, ", "))
	}
	return f, nil
}

// offered returns the toolbox's tools named in names (all when nil), with
// answer always among them.
func offered(tb *Toolbox, names []string) ([]Tool, error) {
	if names == nil {
		return tb.Tools(), nil
	}
	var out []Tool
	for _, t := range tb.Tools() {
		if t.Name == ToolAnswer || slices.Contains(names, t.Name) {
			out = append(out, t)
		}
	}
	for _, n := range names {
		if _, ok := tb.Tool(n); !ok {
			return nil, fmt.Errorf("agent tool %q: no such tool (the tools are %s)", n, strings.Join(toolNames(tb.Tools()), ", "))
		}
	}
	return out, nil
}

func toolNames(tools []Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

// Format is the action format the agent uses.
func (a *Agent) Format() string { return a.opts.Format }

// Toolbox is the agent's toolbox.
func (a *Agent) Toolbox() *Toolbox { return a.tools }

// Close releases the sandbox.
func (a *Agent) Close() error { return a.tools.Close() }
