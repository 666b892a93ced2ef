package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"kgforge/internal/duck"
	"kgforge/llm"
)

// offerOf is what the model was offered at its i-th turn (0-based): the
// action schema and the text of the last result it was shown.
func offerOf(t *testing.T, m *scripted, i int) (json.RawMessage, string) {
	t.Helper()
	if len(m.gens) > 0 {
		p := m.gens[i].Prompt
		return m.gens[i].Schema, p[strings.LastIndex(p, "Result:\n")+1:]
	}
	return m.chats[i].Schema, lastMessage(m.chats[i]).Content
}

// branchArgs returns the argument schemas of tool's branch of an action
// schema, and whether there is one.
func branchArgs(t *testing.T, schema json.RawMessage, tool string) (map[string]struct{ Enum []string }, bool) {
	t.Helper()
	var s struct {
		AnyOf []struct {
			Properties struct {
				Tool struct{ Enum []string }
				Args struct {
					Properties map[string]struct{ Enum []string }
				}
			}
		}
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("action schema %.200s: %v", schema, err)
	}
	for _, br := range s.AnyOf {
		if slices.Equal(br.Properties.Tool.Enum, []string{tool}) {
			return br.Properties.Args.Properties, true
		}
	}
	return nil, false
}

// TestAgent_TwoIdenticalFailedCallsChangeTheNextOffer injects the fault
// of a small model: the same failing call twice in a row. The result of
// the second names what exists instead, and the next turn's action schema
// (json, completion) no longer lets the model make the call again; the
// turn after that is offered the question's schema again.
func TestAgent_TwoIdenticalFailedCallsChangeTheNextOffer(t *testing.T) {
	const (
		seeN1    = `{"tool":"query","args":{"sql":"SELECT id FROM nodes"}}`
		catC17   = `{"tool":"cat","args":{"id":"c17"}}`
		catC17b  = `{"tool":"cat","args": { "id" : "c17" }}`
		lsAll    = `{"tool":"ls","args":{}}`
		answer   = `{"tool":"answer","args":{"answer":"x","confidence":0.1}}`
		badQuery = `{"tool":"query","args":{"sql":"SELECT nme FROM suppliers"}}`
	)
	type argWant struct {
		arg          string
		has, hasNot  []string // values the narrowed enum holds, and does not
		gone         bool     // the argument is no longer offered
		branchIsGone bool     // the tool is not offered this turn
	}
	cases := []struct {
		name    string
		info    llm.ModelInfo
		replies []string
		stuckAt int      // the turn (0-based) after the second failure
		noteHas []string // in the result the model saw before that turn
		tool    string   // the tool whose branch is narrowed; "" when the schema stays
		want    argWant
	}{
		{
			name: "not_found id, json", info: chatModel, replies: []string{seeN1, catC17, catC17b, lsAll, answer}, stuckAt: 3,
			noteHas: []string{"same call as call 2", "a third time ends the question", "Ids the results have shown so far, the latest first: n1 (node)", "cat also takes a table or file name: suppliers"},
			tool:    ToolCat, want: argWant{arg: "id", has: []string{"n1", "suppliers"}, hasNot: []string{"c17"}},
		},
		{
			name: "not_found id, completion", info: baseModel, replies: []string{seeN1, catC17, catC17, lsAll, answer}, stuckAt: 3,
			noteHas: []string{"a third time ends the question", "n1 (node)", "suppliers"},
			tool:    ToolCat, want: argWant{arg: "id", has: []string{"n1", "suppliers"}, hasNot: []string{"c17"}},
		},
		{
			name: "not_found node with nothing seen: the optional argument is dropped", info: chatModel,
			replies: []string{`{"tool":"ls","args":{"id":"zz9"}}`, `{"tool":"ls","args":{"id":"zz9"}}`, lsAll, answer}, stuckAt: 2,
			noteHas: []string{"No result has shown an id yet", "ls with no arguments lists the bundle"},
			tool:    ToolLs, want: argWant{arg: "id", gone: true},
		},
		{
			name: "not_found node with nothing seen: the tool with it required is not offered", info: chatModel,
			replies: []string{`{"tool":"neighbours","args":{"node":"zz9"}}`, `{"tool":"neighbours","args":{"node":"zz9"}}`, lsAll, answer}, stuckAt: 2,
			noteHas: []string{"No result has shown an id yet"},
			tool:    ToolNeighbours, want: argWant{branchIsGone: true},
		},
		{
			name: "unknown column: the tables and their columns", info: chatModel, replies: []string{badQuery, badQuery, lsAll, answer}, stuckAt: 2,
			noteHas: []string{"The tables and their columns: suppliers(supplier_id, name, part_category); ", "nodes(id, "},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := script(c.info, c.replies...)
			// Free ids, so that the failing id could be offered at all
			// (with IDsSeen it never is: TestAgent_ConstrainedIDsNameOnlyWhatWasSeen).
			ans, err := newAgent(t, m, Options{IDs: IDsFree}).Ask(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			if !ans.Answered || ans.Stuck {
				t.Fatalf("answer %+v; want the question answered", ans)
			}
			base, before := offerOf(t, m, c.stuckAt-1)
			schema, note := offerOf(t, m, c.stuckAt)
			if strings.Contains(before, "a third time") {
				t.Errorf("after the first failure the model saw %q", before)
			}
			for _, h := range c.noteHas {
				if !strings.Contains(note, h) {
					t.Errorf("after the second failure the model saw\n%s\nwant it to say %q", note, h)
				}
			}
			if after, _ := offerOf(t, m, c.stuckAt+1); string(after) != string(base) {
				t.Errorf("the turn after the narrowed one got schema %.300s, want the question's again", after)
			}
			if c.tool == "" {
				if string(schema) != string(base) {
					t.Errorf("schema changed to %.300s", schema)
				}
				return
			}
			if string(schema) == string(base) {
				t.Fatalf("the turn after two identical failures got the question's schema")
			}
			if _, ok := branchArgs(t, base, c.tool); !ok {
				t.Fatalf("the question's schema has no branch for %s", c.tool)
			}
			args, ok := branchArgs(t, schema, c.tool)
			if got, want := !ok, c.want.branchIsGone; got != want {
				t.Fatalf("tool %s left out: got %v, want %v", c.tool, got, want)
			}
			if !ok {
				return
			}
			arg, has := args[c.want.arg]
			if got, want := !has, c.want.gone; got != want {
				t.Fatalf("argument %s left out: got %v, want %v (%v)", c.want.arg, got, want, args)
			}
			for _, v := range c.want.has {
				if !slices.Contains(arg.Enum, v) {
					t.Errorf("%s's %s enum %v lacks %q", c.tool, c.want.arg, arg.Enum, v)
				}
			}
			for _, v := range c.want.hasNot {
				if slices.Contains(arg.Enum, v) {
					t.Errorf("%s's %s enum %v still holds %q", c.tool, c.want.arg, arg.Enum, v)
				}
			}
		})
	}
}

// TestAgent_NativeFormatStuckCallChangesTheResultNotTheTools: native tool
// calls are not constrained by a schema, so only what the model reads
// changes.
func TestAgent_NativeFormatStuckCallChangesTheResultNotTheTools(t *testing.T) {
	cat := llm.ToolCall{Name: ToolCat, Arguments: json.RawMessage(`{"id":"c17"}`)}
	m := &scripted{info: toolsModel, replies: []llm.ChatResponse{
		{ToolCalls: []llm.ToolCall{cat}},
		{ToolCalls: []llm.ToolCall{cat}},
		{ToolCalls: []llm.ToolCall{{Name: ToolAnswer, Arguments: json.RawMessage(`{"answer":"x"}`)}}},
	}}
	ans, err := newAgent(t, m, Options{}).Ask(context.Background(), "q")
	if err != nil || !ans.Answered {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	if got := lastMessage(m.chats[2]); got.Role != "tool" || !strings.Contains(got.Content, "a third time ends the question") {
		t.Errorf("after the second failure the model saw %+v", got)
	}
	if len(m.chats[2].Tools) != len(m.chats[0].Tools) || m.chats[2].Schema != nil {
		t.Errorf("the third turn was offered %d tools and schema %s", len(m.chats[2].Tools), m.chats[2].Schema)
	}
}

// TestAgent_ThirdIdenticalFailedCallEndsTheQuestion: the same failing call
// a third time in a row ends the question at once, with a no-answer that
// names the call and its error, well before the budget of 30 calls; calls
// that only look alike, or that work, do not.
func TestAgent_ThirdIdenticalFailedCallEndsTheQuestion(t *testing.T) {
	const (
		catC17 = `{"tool":"cat","args":{"id":"c17"}}`
		lsAll  = `{"tool":"ls","args":{}}`
		answer = `{"tool":"answer","args":{"answer":"x","confidence":0.1}}`
	)
	many := func(first []string, rest string) []string {
		out := slices.Clone(first)
		for len(out) < 40 {
			out = append(out, rest)
		}
		return out
	}
	cases := []struct {
		name       string
		replies    []string
		native     []llm.ChatResponse // the model's replies in the native format instead
		wantSteps  string
		wantStuck  bool
		wantTurns  int
		wantTextIn []string
	}{
		{
			name: "the same not_found three times", replies: many([]string{catC17, catC17, catC17}, lsAll),
			wantSteps: "cat:not_found cat:not_found cat:not_found", wantStuck: true, wantTurns: 3,
			wantTextIn: []string{"no answer: the same call failed three times in a row", `cat {"id":"c17"} gave not_found: no node, edge, chunk, table or file is "c17"`},
		},
		{
			name: "keys in another order and spaces are the same call",
			replies: many([]string{
				`{"tool":"neighbours","args":{"node":"zz9","direction":"out"}}`,
				`{"tool":"neighbours","args":{"direction":"out","node":"zz9"}}`,
				`{"args": {"direction": "out", "node": "zz9"}, "tool": "neighbours"}`,
			}, lsAll),
			wantSteps: "neighbours:not_found neighbours:not_found neighbours:not_found", wantStuck: true, wantTurns: 3,
			wantTextIn: []string{`neighbours {"direction":"out","node":"zz9"} gave not_found`},
		},
		{
			name: "replies that are no call are not counted", replies: []string{"Kestrel Alloys", "Kestrel Alloys", "Kestrel Alloys", answer},
			wantSteps: "(reply):malformed (reply):malformed (reply):malformed answer:", wantTurns: 4, wantTextIn: []string{"x"},
		},
		{
			name: "the same malformed arguments", replies: many([]string{`{"tool":"query","args":{"statement":"SELECT 1"}}`}, `{"tool":"query","args":{"statement":"SELECT 1"}}`),
			wantSteps: "query:malformed query:malformed query:malformed", wantStuck: true, wantTurns: 3,
			wantTextIn: []string{`query {"statement":"SELECT 1"} gave malformed: arguments do not fit`},
		},
		{
			name: "three calls of one native turn",
			native: []llm.ChatResponse{{ToolCalls: []llm.ToolCall{
				{Name: ToolCat, Arguments: json.RawMessage(`{"id":"c17"}`)},
				{Name: ToolCat, Arguments: json.RawMessage(`{"id":"c17"}`)},
				{Name: ToolCat, Arguments: json.RawMessage(`{"id":"c17"}`)},
				{Name: ToolLs, Arguments: json.RawMessage(`{}`)},
			}}},
			wantSteps: "cat:not_found cat:not_found cat:not_found", wantStuck: true, wantTurns: 1,
			wantTextIn: []string{`cat {"id":"c17"} gave not_found`},
		},
		{
			name: "another call between the failures", replies: []string{catC17, lsAll, catC17, lsAll, catC17, answer},
			wantSteps: "cat:not_found ls: cat:not_found ls: cat:not_found answer:", wantTurns: 6, wantTextIn: []string{"x"},
		},
		{
			name: "different ids", replies: []string{catC17, `{"tool":"cat","args":{"id":"c18"}}`, catC17, answer},
			wantSteps: "cat:not_found cat:not_found cat:not_found answer:", wantTurns: 4, wantTextIn: []string{"x"},
		},
		{
			name: "the same call that works", replies: []string{lsAll, lsAll, lsAll, answer},
			wantSteps: "ls: ls: ls: answer:", wantTurns: 4, wantTextIn: []string{"x"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := script(chatModel, c.replies...)
			if c.native != nil {
				m = &scripted{info: toolsModel, replies: c.native}
			}
			var tr strings.Builder
			ans, err := newAgent(t, m, Options{Transcript: &tr}).Ask(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(stepKinds(ans.Steps), " "); got != c.wantSteps {
				t.Errorf("steps %s, want %s", got, c.wantSteps)
			}
			if got := ans.Stuck; got != c.wantStuck {
				t.Errorf("stuck %v, want %v", got, c.wantStuck)
			}
			if got, want := ans.Answered, !c.wantStuck; got != want || ans.BudgetSpent {
				t.Errorf("answered %v (want %v), budget spent %v (want false)", got, want, ans.BudgetSpent)
			}
			if got := ans.Tokens.Turns; got != c.wantTurns {
				t.Errorf("%d model turns, want %d", got, c.wantTurns)
			}
			for _, s := range c.wantTextIn {
				if !strings.Contains(ans.Text, s) {
					t.Errorf("answer %q, want it to say %q", ans.Text, s)
				}
			}
			if got, want := strings.Contains(tr.String(), `"stuck":true`), c.wantStuck; got != want {
				t.Errorf("transcript says stuck: %v, want %v", got, want)
			}
		})
	}
}

// TestAgent_ProgressIsCalledOncePerCallAsItEnds: the observer sees each
// call when it ends, before the model is asked for the next turn.
func TestAgent_ProgressIsCalledOncePerCallAsItEnds(t *testing.T) {
	cases := []struct {
		name    string
		replies []string
		budget  int
		want    string // the tools the observer saw, in order
	}{
		{"answered", []string{`{"tool":"ls","args":{}}`, `{"tool":"cat","args":{"id":"n1"}}`, `{"tool":"answer","args":{"answer":"x"}}`}, 0, "ls cat answer"},
		{"stuck", []string{`{"tool":"cat","args":{"id":"c17"}}`, `{"tool":"cat","args":{"id":"c17"}}`, `{"tool":"cat","args":{"id":"c17"}}`}, 0, "cat cat cat"},
		{"budget spent", []string{`{"tool":"ls","args":{}}`, `{"tool":"ls","args":{}}`, `{"tool":"ls","args":{}}`}, 2, "ls ls"},
		{"no call", []string{"hello", `{"tool":"answer","args":{"answer":"x"}}`}, 0, "(reply) answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := script(chatModel, c.replies...)
			var got []Progress
			var turnsThen []int
			opts := Options{Budget: c.budget, Progress: func(p Progress) {
				got = append(got, p)
				turnsThen = append(turnsThen, len(m.chats))
			}}
			ans, err := newAgent(t, m, opts).Ask(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			var tools []string
			for i, p := range got {
				tools = append(tools, p.Step.Tool)
				if p.Call != i+1 || p.Budget != ans.Budget || p.Elapsed < 0 || p.Step.ErrorKind != ans.Steps[i].ErrorKind {
					t.Errorf("report %d: %+v", i, p)
				}
				if turnsThen[i] != i+1 {
					t.Errorf("report %d came after %d model turns, want %d", i, turnsThen[i], i+1)
				}
			}
			if g := strings.Join(tools, " "); g != c.want {
				t.Errorf("observer saw %q, want %q", g, c.want)
			}
			if len(got) != ans.Tokens.Turns || len(got) != len(ans.Steps) {
				t.Errorf("%d reports for %d turns and %d calls", len(got), ans.Tokens.Turns, len(ans.Steps))
			}
		})
	}
}

func TestCanonicalArgs_SameCallWrittenDifferently(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"spaces", `{"id":"c17"}`, ` { "id" : "c17" } `},
		{"key order", `{"node":"x","direction":"out"}`, `{"direction":"out","node":"x"}`},
		{"nested key order", `{"a":{"y":1,"x":[{"q":2,"p":3}]}}`, `{"a":{"x":[{"p":3,"q":2}],"y":1}}`},
		{"none, null and {}", ``, `null`},
		{"null and {}", `null`, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := canonicalArgs(json.RawMessage(c.a)), canonicalArgs(json.RawMessage(c.b)); got != want {
				t.Errorf("canonicalArgs(%q) = %q, canonicalArgs(%q) = %q; want equal", c.a, got, c.b, want)
			}
		})
	}
	differ := []struct{ name, a, b string }{
		{"another value", `{"id":"c17"}`, `{"id":"c18"}`},
		{"a number written otherwise", `{"k":1}`, `{"k":1.0}`},
	}
	for _, c := range differ {
		t.Run(c.name, func(t *testing.T) {
			if canonicalArgs(json.RawMessage(c.a)) == canonicalArgs(json.RawMessage(c.b)) {
				t.Errorf("canonicalArgs(%q) = canonicalArgs(%q); want them apart", c.a, c.b)
			}
		})
	}
}

func TestToolbox_SeenIDsInTheOrderOfFirstMention(t *testing.T) {
	tb, err := NewToolbox(context.Background(), testBundle(t), duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	cases := []struct {
		name  string
		texts []string
		want  string
	}{
		{"none", []string{"no ids here, only words and 2025-03-12"}, ""},
		{"latest text first", []string{"chunk c1: source docs/note.md", "id\nn1\nc17"}, "c1:chunk n1:node"},
		{"each once, punctuation trimmed", []string{`cat n1. then "c1", n1; (c1)`}, "n1:node c1:chunk"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seen, err := tb.seenIDs(context.Background(), c.texts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range seen {
				got = append(got, s.ID+":"+s.Kind)
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("seenIDs = %q, want %q", g, c.want)
			}
		})
	}
}
