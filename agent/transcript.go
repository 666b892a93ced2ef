package agent

import (
	"encoding/json"
	"io"

	"kgforge/llm"
)

// A transcript is one JSON object per line, one line per event of a
// question, in order: "question", then per model call a "turn" with its
// tokens, per tool call a "call" (and a "warning" when the budget runs
// low), and last the "answer" (docs/agent.md, "Transcripts").
type transcript struct {
	enc *json.Encoder
	err error // the first write error; later events are dropped
}

func newTranscript(w io.Writer) *transcript {
	if w == nil {
		return &transcript{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &transcript{enc: enc}
}

func (t *transcript) emit(ev any) {
	if t.enc == nil || t.err != nil {
		return
	}
	t.err = t.enc.Encode(ev)
}

type questionEvent struct {
	Event    string   `json:"event"`
	Question string   `json:"question"`
	Model    string   `json:"model"`
	Format   string   `json:"format"`
	Budget   int      `json:"budget"`
	Tools    []string `json:"tools"`
}

type turnEvent struct {
	Event            string `json:"event"`
	Turn             int    `json:"turn"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// NewInputTokens is this turn's share of Tokens.UniqueInput.
	NewInputTokens int            `json:"new_input_tokens"`
	DoneReason     string         `json:"done_reason,omitempty"`
	Reply          string         `json:"reply"`
	ToolCalls      []llm.ToolCall `json:"tool_calls,omitempty"`
}

type callEvent struct {
	Event string `json:"event"`
	Call  int    `json:"call"` // 1-based, counting against the budget
	Step
}

type warningEvent struct {
	Event string `json:"event"`
	Call  int    `json:"call"`
	Text  string `json:"text"`
}

type answerEvent struct {
	Event       string     `json:"event"`
	Answer      string     `json:"answer"`
	Citations   []Citation `json:"citations,omitempty"`
	Confidence  float64    `json:"confidence"`
	Answered    bool       `json:"answered"`
	BudgetSpent bool       `json:"budget_spent"`
	Stuck       bool       `json:"stuck,omitempty"`
	ToolCalls   int        `json:"tool_calls"`
	FailedCalls int        `json:"failed_calls"`
	Tokens      Tokens     `json:"tokens"`
}

func newAnswerEvent(a Answer) answerEvent {
	return answerEvent{
		Event: "answer", Answer: a.Text, Citations: a.Citations, Confidence: a.Confidence, Answered: a.Answered,
		BudgetSpent: a.BudgetSpent, Stuck: a.Stuck, ToolCalls: len(a.Steps), FailedCalls: a.FailedCalls(), Tokens: a.Tokens,
	}
}
