package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"kgforge/kg"
	"kgforge/llm"
	"kgforge/prompts"
)

// JudgeInput is one side of a pair the judge looks at.
type JudgeInput struct {
	Name, Type, Description string
}

// Judge decides whether two names of the uncertain band are one thing.
type Judge interface {
	Same(ctx context.Context, a, b JudgeInput) (bool, error)
}

// LLMJudge asks a chat model, with a reply schema of one boolean, at
// temperature 0; answers are cached by content address (model digest,
// prompt version, prompt text), so a pair is asked once.
type LLMJudge struct {
	Chat   func(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error)
	Model  string
	Digest string
	Cache  Cache // nil: no cache

	// Calls and Hits count requests sent and answers served by the cache.
	Calls, Hits int
	prompt      *prompts.Prompt
}

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"same":{"type":"boolean"}},"required":["same"]}`)

// NewLLMJudge returns a judge that asks model through chat.
func NewLLMJudge(chat func(context.Context, llm.ChatRequest) (llm.ChatResponse, error), model, digest string, cache Cache) (*LLMJudge, error) {
	p, err := prompts.Load("judge.tmpl")
	if err != nil {
		return nil, err
	}
	return &LLMJudge{Chat: chat, Model: model, Digest: digest, Cache: cache, prompt: p}, nil
}

// PromptVersion is the version of the judge's prompt.
func (j *LLMJudge) PromptVersion() string { return j.prompt.Version }

// Same asks whether a and b are one thing.
func (j *LLMJudge) Same(ctx context.Context, a, b JudgeInput) (bool, error) {
	data := map[string]JudgeInput{"A": a, "B": b}
	sys, err := j.prompt.RenderPart("system", data)
	if err != nil {
		return false, err
	}
	user, err := j.prompt.RenderPart("user", data)
	if err != nil {
		return false, err
	}
	key := kg.ID("judge", j.Digest, j.prompt.Version, sys, user)
	if j.Cache != nil {
		if raw, ok := j.Cache.Get(key); ok {
			if same, err := parseJudgement(string(raw)); err == nil {
				j.Hits++
				return same, nil
			}
		}
	}
	j.Calls++
	resp, err := j.Chat(ctx, llm.ChatRequest{
		Model: j.Model, Schema: judgeSchema, Temperature: 0, NumPredict: 32,
		Messages: []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}},
	})
	if err != nil {
		return false, fmt.Errorf("judge %q and %q: %w", a.Name, b.Name, err)
	}
	same, err := parseJudgement(resp.Content)
	if err != nil {
		return false, fmt.Errorf("judge %q and %q: %w", a.Name, b.Name, err)
	}
	if j.Cache != nil {
		if err := j.Cache.Put(key, []byte(resp.Content)); err != nil {
			return false, fmt.Errorf("cache judgement: %w", err)
		}
	}
	return same, nil
}

func parseJudgement(s string) (bool, error) {
	var v struct {
		Same *bool `json:"same"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil || v.Same == nil {
		return false, fmt.Errorf("the model's reply %q is not {\"same\": true|false}", s)
	}
	return *v.Same, nil
}
