package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"kgforge/agent"
	"kgforge/llm"
)

// oracle is the model the agent loop talks to while the generator runs:
// a scripted client, used only here, that records every prompt the loop
// sends and replies with the next of the actions planned for the
// question. It is a test double of the model, not a model: the pairs it
// records are what kgforge's agent sends to the bundled model and what
// the model should reply.
type oracle struct {
	model  string
	action bool     // describe the model as kgforge's action model (agent.ActionPrompt)
	plan   []string // the completions to give, one per turn
	turns  []turn
}

// turn is one model call of the loop as the oracle saw it.
type turn struct {
	prompt     string
	schema     json.RawMessage
	completion string
}

var _ agent.LLM = (*oracle)(nil)

// errUnplanned is the loop asking for a turn after the planned ones: an
// action of the plan failed and came back to the model as an error.
var errUnplanned = errors.New("the loop asked for a turn the oracle had not planned")

// start sets the plan of the next question.
func (o *oracle) start(plan []string) {
	o.plan, o.turns = plan, nil
}

// Generate records the prompt and gives the next planned action.
func (o *oracle) Generate(_ context.Context, req llm.GenerateRequest) (llm.ChatResponse, error) {
	if len(o.turns) >= len(o.plan) {
		return llm.ChatResponse{}, errUnplanned
	}
	c := o.plan[len(o.turns)]
	o.turns = append(o.turns, turn{prompt: req.Prompt, schema: req.Schema, completion: c})
	return llm.ChatResponse{Content: c, DoneReason: "stop"}, nil
}

// Chat is not used: the bundled model is a base model, driven in the
// completion format.
func (o *oracle) Chat(context.Context, llm.ChatRequest) (llm.ChatResponse, error) {
	return llm.ChatResponse{}, fmt.Errorf("oracle chat: the oracle answers in the completion format only")
}

// Info describes the model as Ollama describes gemma3:270m: no chat
// template (a base model), so agent.New picks the completion format and
// ids constrained to the ids seen, as it does for kgforge ask; with
// action, as it describes kgforge-agent (the same, and kgforge.prompt
// names agent.ActionPrompt), so the prompts are the action model's.
func (o *oracle) Info(context.Context, string) (llm.ModelInfo, error) {
	info := llm.ModelInfo{Name: o.model, Capabilities: []string{"completion"}}
	if o.action {
		info.Specialist = agent.ActionPrompt
	}
	return info, nil
}

// action is one reply of the completion format: {"tool":..., "args":...}
// in the order of the action schema.
type action struct {
	Tool string `json:"tool"`
	Args any    `json:"args"`
}

// marshal writes v as compact JSON without HTML escapes (the model
// writes <, > and & as they are).
func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// answerArgs are the answer tool's arguments in its grammar's order: the
// required answer and confidence, then the citations.
type answerArgs struct {
	Answer     string     `json:"answer"`
	Confidence float64    `json:"confidence"`
	Citations  []citation `json:"citations,omitempty"`
}

// citation is a row citation in the grammar's order: kind and id
// (required), then table.
type citation struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Table string `json:"table"`
}

// answerConfidence is the confidence of every oracle answer: the answer
// is the verified result of the gold SQL.
const answerConfidence = 0.9

// maxAnswerRunes is the answer tool's bound on the answer in the action
// grammar (the agent's maxTextLen).
const maxAnswerRunes = 1000

// maxCitations bounds the rows an answer cites.
const maxCitations = 10

// resultRows reads the text of a select result (agent.ResultRows, less
// its header).
func resultRows(out string) ([][]string, bool) {
	_, rows, ok := agent.ResultRows(out)
	return rows, ok
}

// cellText is a cell of a gold result as the agent's query tool shows
// it: one line, tabs escaped, document delimiters defused.
var cellText = strings.NewReplacer("\n", "\\n", "\t", "\\t", "\r", "\\r", "<document", "&lt;document", "</document", "&lt;/document")
