package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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

// TestGenerateIntegration_Logprobs: the real server gives one log
// probability a token of the reply when asked, none when not.
func TestGenerateIntegration_Logprobs(t *testing.T) {
	c := integration(t)
	req := GenerateRequest{
		Model: ChatModelForTests, Raw: true, NumPredict: 8, Stop: []string{"\n"}, Logprobs: true,
		Prompt: "Capital cities.\nFrance: Paris\nItaly: Rome\nSpain:",
	}
	resp, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The server counts the stop sequence's token too, and gives it none.
	if len(resp.Logprobs) == 0 || len(resp.Logprobs) > resp.CompletionTokens {
		t.Fatalf("%d log probabilities for %d reply tokens (%q)", len(resp.Logprobs), resp.CompletionTokens, resp.Content)
	}
	for i, lp := range resp.Logprobs {
		if lp > 0 || math.IsNaN(lp) {
			t.Errorf("token %d: log probability %v", i, lp)
		}
	}
	// The tokens' texts, one a probability, spell the reply.
	if len(resp.LogprobTokens) != len(resp.Logprobs) || strings.Join(resp.LogprobTokens, "") != resp.Content {
		t.Errorf("tokens %q for %d probabilities, reply %q", resp.LogprobTokens, len(resp.Logprobs), resp.Content)
	}
	req.Logprobs = false
	if resp, err = c.Generate(context.Background(), req); err != nil || resp.Logprobs != nil {
		t.Errorf("not asked: log probabilities %v, err %v", resp.Logprobs, err)
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

// TestGenerateIntegration_StopAtRepeatedLine: the real server, a prompt
// that any model continues by repeating its line: with the option the
// reply ends at the first repeat, without it at the bound.
func TestGenerateIntegration_StopAtRepeatedLine(t *testing.T) {
	c := integration(t)
	req := GenerateRequest{
		Model: ChatModelForTests, Raw: true, NumPredict: 48,
		Prompt: strings.Repeat("Kestrel Alloys | supplies | frames\n", 12),
	}
	full, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.StopAtRepeatedLine = true
	stopped, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if stopped.DoneReason != DoneRepeat || strings.Count(stopped.Content, "\n") != 1 || !strings.HasPrefix(full.Content, stopped.Content) {
		t.Errorf("with the option: %q (%s); want the first line of %q, ended as %s", stopped.Content, stopped.DoneReason, full.Content, DoneRepeat)
	}
	// The client reads the stream out: the server's counts, as without
	// the option.
	if stopped.CompletionTokens != full.CompletionTokens || stopped.PromptTokens == 0 {
		t.Errorf("tokens: %d + %d stopped, %d in full; want the server's counts of the same generation", stopped.PromptTokens, stopped.CompletionTokens, full.CompletionTokens)
	}
}

// TestGenerateIntegration_RepeatStopsLeaveTheModelServing: replies ended
// at a repeat, one after another, and the model still answers within a
// bound. A client that closed those streams mid-reply could leave Ollama
// with no slot for the model (ollama/ollama#17131): this call would wait
// forever, and here fails at its deadline instead.
func TestGenerateIntegration_RepeatStopsLeaveTheModelServing(t *testing.T) {
	c := integration(t)
	req := GenerateRequest{
		Model: ChatModelForTests, Raw: true, NumPredict: 40, StopAtRepeatedLine: true,
		Prompt: strings.Repeat("Kestrel Alloys | supplies | frames\n", 6),
	}
	for i := range 6 {
		resp, err := c.Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if resp.DoneReason != DoneRepeat {
			t.Fatalf("reply %d ended as %s (%q); want %s", i, resp.DoneReason, resp.Content, DoneRepeat)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req.StopAtRepeatedLine, req.NumPredict = false, 4
	if _, err := c.Generate(ctx, req); err != nil {
		t.Fatalf("after the repeat stops: %v", err)
	}
}

func TestRepeatWatch_StopsAtTheFirstWholeLineWrittenBefore(t *testing.T) {
	cases := []struct {
		pieces []string
		stopAt int    // index of the piece that completes the repeat; -1 none
		kept   string // text before the repeated line
	}{
		{[]string{"A | b", " | c\n", "D | e\n", "A | b | c", "\n", "x"}, 4, "A | b | c\nD | e\n"},
		{[]string{"A\n\n", "\n", "B\n"}, -1, "A\n\n\nB\n"},                               // blank lines are no repeat
		{[]string{"A\nA"}, -1, "A\nA"},                                                   // a line not yet ended is no repeat
		{[]string{"A\n  A  \n"}, 0, "A\n"},                                               // white space around a line does not count
		{[]string{"A | b | c\nA | b | c d\n", "END"}, -1, "A | b | c\nA | b | c d\nEND"}, // a longer line is another line
	}
	for i, c := range cases {
		var w repeatWatch
		stopped := -1
		for j, p := range c.pieces {
			if !w.add(p) {
				stopped = j
				break
			}
		}
		if stopped != c.stopAt || w.text.String()[:w.kept] != c.kept {
			t.Errorf("case %d: stopped at piece %d, kept %q; want %d, %q", i, stopped, w.text.String()[:w.kept], c.stopAt, c.kept)
		}
	}
}

// A fake server stands in for Ollama with a reply that repeats a line
// until its bound: the client keeps the lines before the repeat, counts
// what the server says it generated, and never asks for a stream (a
// request closed mid-stream can cost Ollama a runner slot for good).
func TestGenerate_StopAtRepeatedLineKeepsTheLinesBeforeTheRepeat(t *testing.T) {
	reply, _ := json.Marshal("A | x | p | B | y\nC | x | q | D | y\n" + strings.Repeat("A | x | p | B | y\n", 40))
	c, body := recordingOllama(t, `{"model":"m","response":`+string(reply)+`,"done":true,"done_reason":"length","prompt_eval_count":9,"eval_count":205,"total_duration":7000}`)
	resp, err := c.Generate(context.Background(), GenerateRequest{Model: "m", Prompt: "p", Raw: true, StopAtRepeatedLine: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "A | x | p | B | y\nC | x | q | D | y\n"; resp.Content != want || resp.DoneReason != DoneRepeat {
		t.Errorf("reply %q (%s), want %q (%s)", resp.Content, resp.DoneReason, want, DoneRepeat)
	}
	if len(*body) != 1 || (*body)[0]["stream"] != false {
		t.Errorf("requests %v, want one with stream false", *body)
	}
	u := c.Usage()
	if u.Calls != 1 || u.RepeatStopped != 1 || u.CompletionTokens != 205 || u.PromptTokens != 9 || u.ServerDuration != 7000 {
		t.Errorf("usage %+v: want 1 call, 1 stopped at a repeat, the server's counts (205 + 9 tokens, 7 µs)", u)
	}

	// Without the option nothing changes: one message, the server's counts.
	c2, _ := recordingOllama(t, `{"model":"m","response":"A\nA\n","done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}`)
	resp, err = c2.Generate(context.Background(), GenerateRequest{Model: "m", Prompt: "p", Raw: true})
	if err != nil || resp.Content != "A\nA\n" || resp.DoneReason != "stop" || c2.Usage().RepeatStopped != 0 {
		t.Errorf("without the option: %+v, %v, usage %+v", resp, err, c2.Usage())
	}
}

// TestClient_ContextWindowOnlyGrows: the num_ctx a model is asked for is
// at least the client's minimum and never less than the client asked of
// that model before, so calls of mixed sizes do not reload its runner in
// turn; another model has its own; a negative minimum sends the server's
// default when a call asks none.
func TestClient_ContextWindowOnlyGrows(t *testing.T) {
	c, got := recordingOllama(t, `{"model":"m","response":"x","done":true,"done_reason":"stop"}`)
	ask := func(model string, n int) any {
		t.Helper()
		if _, err := c.Generate(context.Background(), GenerateRequest{Model: model, Prompt: "p", NumCtx: n}); err != nil {
			t.Fatal(err)
		}
		return (*got)[len(*got)-1]["options"].(map[string]any)["num_ctx"]
	}
	for i, step := range []struct {
		model string
		n     int
		want  float64
	}{
		{"a", 2048, DefaultMinContext},
		{"a", 0, DefaultMinContext},
		{"a", 16384, 16384},
		{"a", 2048, 16384},
		{"a", 0, 16384},
		{"b", 4096, DefaultMinContext},
	} {
		if n := ask(step.model, step.n); n != step.want {
			t.Errorf("call %d (%s, %d): num_ctx %v, want %v", i, step.model, step.n, n, step.want)
		}
	}
	none, err := New(Options{Host: "http://127.0.0.1:1", MinContext: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	if n := none.numCtx("a", 0); n != 0 {
		t.Errorf("no minimum, no window asked: num_ctx %d, want 0 (the server's default)", n)
	}
	if n := none.numCtx("a", 2048); n != 2048 {
		t.Errorf("no minimum: num_ctx %d, want 2048", n)
	}
}
