package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recordingOllama is a fake server that injects the replies a test needs
// and records each request body; it stands in for Ollama only to check
// what is sent.
func recordingOllama(t *testing.T, reply string) (*Client, *[]map[string]any) {
	t.Helper()
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body["path"] = r.URL.Path
		got = append(got, body)
		_, _ = io.WriteString(w, reply+"\n")
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{Host: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, &got
}

func TestClient_SendsThinkFalseUnlessAsked(t *testing.T) {
	c, got := recordingOllama(t, `{"model":"m","message":{"role":"assistant","content":"{}"},"response":"x","done":true,"done_reason":"stop"}`)
	ctx := context.Background()
	if _, err := c.Chat(ctx, ChatRequest{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(ctx, ChatRequest{Model: "m", Think: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(ctx, GenerateRequest{Model: "m", Prompt: "p", Raw: true}); err != nil {
		t.Fatal(err)
	}
	want := []any{false, true, false}
	for i, body := range *got {
		if body["think"] != want[i] {
			t.Errorf("request %d (%s): think = %v, want %v", i, body["path"], body["think"], want[i])
		}
	}
	if g := (*got)[2]; g["path"] != "/api/generate" || g["raw"] != true || g["prompt"] != "p" {
		t.Errorf("generate request = %v, want raw prompt p on /api/generate", g)
	}
}

func TestClient_ChatOffersToolsAndReturnsTheirCalls(t *testing.T) {
	c, got := recordingOllama(t, `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"grep","arguments":{"pattern":"Porto"}}}]},"done":true,"done_reason":"stop"}`)
	resp, err := c.Chat(context.Background(), ChatRequest{
		Model: "m",
		Messages: []Message{
			{Role: "user", Content: "q"},
			{Role: "assistant", ToolCalls: []ToolCall{{Name: "ls", Arguments: json.RawMessage(`{}`)}}},
			{Role: "tool", ToolName: "ls", Content: "Person 3"},
		},
		Tools: []ToolSpec{{Name: "grep", Description: "literal search", Parameters: json.RawMessage(`{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"}}}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "grep" || string(resp.ToolCalls[0].Arguments) != `{"pattern":"Porto"}` {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
	body, _ := json.Marshal((*got)[0])
	for _, want := range []string{`"tools":[{"function":{"description":"literal search","name":"grep"`, `"tool_name":"ls"`, `"tool_calls":[{"function":{"arguments":{},"index":0,"name":"ls"}}]`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("request %s lacks %s", body, want)
		}
	}
}

func TestClient_ChatRefusesToolParametersThatAreNotASchema(t *testing.T) {
	c, _ := recordingOllama(t, `{}`)
	_, err := c.Chat(context.Background(), ChatRequest{Model: "m", Tools: []ToolSpec{{Name: "bad", Parameters: json.RawMessage(`[1]`)}}})
	if err == nil || !strings.Contains(err.Error(), "tool bad") {
		t.Errorf("err = %v, want one naming tool bad", err)
	}
}

func TestPassThroughTemplates(t *testing.T) {
	for tmpl, want := range map[string]bool{"": true, "{{ .Prompt }}": true, "{{.Prompt}}\n": true, "<start_of_turn>user\n{{ .Prompt }}<end_of_turn>": false} {
		if got := passThrough(tmpl); got != want {
			t.Errorf("passThrough(%q) = %v, want %v", tmpl, got, want)
		}
	}
}

func TestClient_GenerateRawIntegration(t *testing.T) {
	c := integration(t)
	resp, err := c.Generate(context.Background(), GenerateRequest{
		Model: ChatModelForTests, Raw: true, NumPredict: 8, Stop: []string{"\n"},
		Prompt: "Capital cities.\nFrance: Paris\nItaly: Rome\nSpain:",
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.CompletionTokens == 0 || resp.PromptTokens == 0 || strings.Contains(resp.Content, "\n") {
		t.Errorf("continuation %+v: want tokens counted and the stop sequence honoured", resp)
	}
}

func TestClient_InfoIntegration(t *testing.T) {
	c := integration(t)
	ctx := context.Background()
	info, err := c.Info(ctx, ChatModelForTests)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Can("completion") || info.ContextLen == 0 {
		t.Errorf("info %+v: want the completion capability and a context length", info)
	}
	if _, err := c.Info(ctx, "no-such-model:1b"); !errors.Is(err, ErrModelMissing) {
		t.Errorf("info of a missing model: err = %v, want ErrModelMissing", err)
	}
}
