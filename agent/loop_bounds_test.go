package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"kgforge/llm"
)

// stringProps walks a JSON schema and returns, for every string schema that
// is not an enum, its path and its maxLength (0 when it has none).
func stringProps(t *testing.T, raw json.RawMessage, path string, out map[string]int) {
	t.Helper()
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	if string(s["type"]) == `"string"` && s["enum"] == nil {
		var n int
		_ = json.Unmarshal(s["maxLength"], &n)
		out[path] = n
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		var branches []json.RawMessage
		_ = json.Unmarshal(s[k], &branches)
		for i, b := range branches {
			stringProps(t, b, path+"/"+k+"["+string(rune('0'+i%10))+"]", out)
		}
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(s["properties"], &props)
	for name, p := range props {
		stringProps(t, p, path+"/"+name, out)
	}
	if s["items"] != nil {
		stringProps(t, s["items"], path+"[]", out)
	}
}

// TestActionSchema_BoundsEveryStringArgument: the grammar of a call bounds
// every free string argument of every tool (a base model otherwise runs
// away in an id until the server cuts the reply), SQL longer than ids, and
// it keeps each branch's "tool" before "args" and the tools' own property
// order.
func TestActionSchema_BoundsEveryStringArgument(t *testing.T) {
	a := newAgent(t, script(baseModel), Options{})
	raw := actionSchema(a.offer)
	got := map[string]int{}
	stringProps(t, raw, "", got)
	if len(got) < len(a.offer) {
		t.Fatalf("only %d string arguments found in %s", len(got), raw)
	}
	for path, n := range got {
		switch {
		case n == 0:
			t.Errorf("%s: no maxLength", path)
		case strings.HasSuffix(path, "/sql") && n != maxSQLLen, strings.HasSuffix(path, "/id") && n != maxArgLen:
			t.Errorf("%s: maxLength %d", path, n)
		}
	}
	for _, tool := range a.offer {
		if !strings.Contains(string(raw), `"properties":{"tool":{"type":"string","enum":["`+tool.Name+`"]},"args":`) {
			t.Errorf("tool %s: branch without tool before args", tool.Name)
		}
	}
	if ls := string(boundStrings(json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"type":{"type":"string","maxLength":9},"dir":{"type":"string","enum":["in"]}}}`))); ls != `{"type":"object","properties":{"id":{"type":"string","maxLength":200},"type":{"type":"string","maxLength":9},"dir":{"type":"string","enum":["in"]}}}` {
		t.Errorf("boundStrings = %s", ls)
	}
}

// TestCompletionFormat_ARunawayArgumentStopsWithAShortErrorAndCounts: the
// completion format stops a reply at a run of one repeated character, and a
// reply so stopped, or one the server cut, comes back to the model as a
// malformed call that says what happened and how to call right; the stopped
// turn keeps its token counts.
func TestCompletionFormat_ARunawayArgumentStopsWithAShortErrorAndCounts(t *testing.T) {
	m := &scripted{info: baseModel, replies: []llm.ChatResponse{
		{Content: `{"tool":"ls","args":{"id":"s1`, DoneReason: "stop", PromptTokens: 100, CompletionTokens: 20},
		{Content: `{"tool":"cat","args":{"id":"s1000000000000000000000000000000`, DoneReason: llm.DoneIncomplete},
		{Content: `{"tool":"answer","args":{"answer":"x","confidence":0.1}}`, DoneReason: "stop", PromptTokens: 200, CompletionTokens: 10},
	}}
	ans, err := newAgent(t, m, Options{}).Ask(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	stop := m.gens[0].Stop
	for _, run := range []string{strings.Repeat("0", runawayRun), strings.Repeat("9", runawayRun), "\nResult:"} {
		if !slices.Contains(stop, run) {
			t.Errorf("stop sequences %q lack %q", stop, run)
		}
	}
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[0].ErrorKind != FailMalformed || ans.Steps[1].ErrorKind != FailMalformed {
		t.Fatalf("steps %v", stepKinds(ans.Steps))
	}
	if e := ans.Steps[0].Error; !strings.Contains(e, "the call of ls ran away in an argument and was stopped") || !strings.Contains(e, "copy one from a result") {
		t.Errorf("stopped reply: %q", e)
	}
	// The message does not quote the argument: a base model continues it.
	if e := ans.Steps[1].Error; !strings.Contains(e, "the call of cat ran away in an argument and was cut by the server") || strings.Contains(e, "s1") || len(e) > 300 {
		t.Errorf("cut reply: %q", e)
	}
	if k := ans.Tokens; k.Uncounted != 1 || k.Prompt != 300 || k.Turns != 3 {
		t.Errorf("tokens %+v", k)
	}
	if !strings.Contains(m.gens[2].Prompt, "ran away in an argument and was stopped") {
		t.Errorf("the model was not told: %q", m.gens[2].Prompt[len(m.gens[2].Prompt)-400:])
	}
}

// TestCompletionFormat_RunawayStopsSpareBundleIDsAndSQL: no stop sequence
// ends a call with a bundle id (32 hex digits) or an ordinary SELECT.
func TestCompletionFormat_RunawayStopsSpareBundleIDsAndSQL(t *testing.T) {
	for _, ok := range []string{
		`{"tool":"cat","args":{"id":"006da5ea621bf2f16f5d33a2c207791b"}}`,
		`{"tool":"query","args":{"sql":"SELECT count(*) FROM orders WHERE amount > 1000000 AND day < '2024-01-01'"}}`,
	} {
		for _, s := range completionStops {
			if strings.Contains(ok, s) {
				t.Errorf("stop %q ends %s", s, ok)
			}
		}
	}
}
