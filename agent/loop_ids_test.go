package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestAgent_ConstrainedIDsNameOnlyWhatWasSeen drives a base model (the
// completion format, so Options.IDs defaults to IDsSeen) through the
// scripted model, which records the action schema of every turn. Before
// any result, no node id has been seen: cat may name only the bundle's
// tables and files, the tools that need a node are not offered, ls takes
// no id. Once a result shows node n1, the next turn offers it, and only
// what exists.
func TestAgent_ConstrainedIDsNameOnlyWhatWasSeen(t *testing.T) {
	m := script(baseModel,
		`{"tool":"query","args":{"sql":"SELECT id FROM nodes"}}`,
		`{"tool":"cat","args":{"id":"n1"}}`,
		`{"tool":"answer","args":{"answer":"x","confidence":0.1}}`)
	ans, err := newAgent(t, m, Options{}).Ask(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Answered {
		t.Fatalf("answer %+v", ans)
	}
	first, _ := offerOf(t, m, 0)
	cat, ok := branchArgs(t, first, ToolCat)
	if !ok {
		t.Fatal("the first turn offers no cat")
	}
	if slices.Contains(cat["id"].Enum, "n1") || !slices.Contains(cat["id"].Enum, "suppliers") {
		t.Errorf("first turn: cat's id enum %v, want the roots (suppliers) and no node", cat["id"].Enum)
	}
	if _, ok := branchArgs(t, first, ToolNeighbours); ok {
		t.Error("first turn offers neighbours, whose node no result has shown")
	}
	if ls, ok := branchArgs(t, first, ToolLs); !ok {
		t.Error("first turn offers no ls")
	} else if _, has := ls["id"]; has {
		t.Errorf("first turn: ls takes an id %v before any was seen", ls["id"].Enum)
	} else if _, has := ls["type"]; has {
		t.Error("first turn: ls takes a type without an id, which it refuses")
	}
	second, _ := offerOf(t, m, 1)
	cat, _ = branchArgs(t, second, ToolCat)
	if !slices.Contains(cat["id"].Enum, "n1") {
		t.Errorf("after a result showing n1, cat's id enum is %v", cat["id"].Enum)
	}
	nb, ok := branchArgs(t, second, ToolNeighbours)
	if !ok || !slices.Equal(nb["node"].Enum, []string{"n1"}) {
		t.Errorf("after a result showing n1, neighbours is offered %v (node enum %v), want node n1 only", ok, nb["node"].Enum)
	}
}

// TestAgent_FreeIDsByDefaultForChatModels: a chat model (the json format)
// keeps free id arguments unless asked otherwise, and an unknown IDs mode
// is refused.
func TestAgent_FreeIDsByDefaultForChatModels(t *testing.T) {
	m := script(chatModel, `{"tool":"answer","args":{"answer":"x","confidence":0.1}}`)
	if _, err := newAgent(t, m, Options{}).Ask(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	schema, _ := offerOf(t, m, 0)
	if nb, ok := branchArgs(t, schema, ToolNeighbours); !ok || len(nb["node"].Enum) != 0 {
		t.Errorf("json format: neighbours offered %v with node enum %v, want it free", ok, nb["node"].Enum)
	}
	if _, err := New(context.Background(), script(chatModel), testBundle(t), Options{Model: "m", IDs: "some"}); err == nil {
		t.Error("IDs \"some\" was accepted")
	}
}

// TestAgent_AnAnswerMustNameWhatTheResultsShowed: a base model (ids
// constrained) that answers with the worked example's answer, naming
// what no result showed, gets a failed call that says so; once a result
// shows the name, the same kind of answer is taken. A chat model (free
// ids) is not held to it.
func TestAgent_AnAnswerMustNameWhatTheResultsShowed(t *testing.T) {
	const (
		copied   = `{"tool":"answer","args":{"answer":"Ana Ruiz repaired it on 3 May","confidence":0.7}}`
		lookup   = `{"tool":"query","args":{"sql":"SELECT name FROM suppliers"}}`
		grounded = `{"tool":"answer","args":{"answer":"Kestrel Alloys","confidence":0.6}}`
	)
	m := script(baseModel, copied, lookup, grounded)
	ans, err := newAgent(t, m, Options{}).Ask(context.Background(), "Which supplier makes frames?")
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Answered || ans.Text != "Kestrel Alloys" || len(ans.Steps) != 3 {
		t.Fatalf("answer %q answered %v after %d steps; want Kestrel Alloys after 3", ans.Text, ans.Answered, len(ans.Steps))
	}
	if s := ans.Steps[0]; s.ErrorKind != FailUngrounded || !strings.Contains(s.Error, "Ana, Ruiz, 3, May") {
		t.Errorf("first answer: kind %q, error %q; want ungrounded naming Ana, Ruiz, 3, May", s.ErrorKind, s.Error)
	}
	m = script(chatModel, copied)
	ans, err = newAgent(t, m, Options{}).Ask(context.Background(), "Which supplier makes frames?")
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Answered {
		t.Errorf("a chat model's answer was held to the results: %+v", ans.Steps)
	}
}

// TestAgent_TwiceUngroundedTakesAnswerOutOfTheNextTurn: the same
// ungrounded answer twice in a row takes answer out of the next turn's
// action schema (the model must look something up); the turn after
// offers it again.
func TestAgent_TwiceUngroundedTakesAnswerOutOfTheNextTurn(t *testing.T) {
	const copied = `{"tool":"answer","args":{"answer":"Ana Ruiz repaired it on 3 May","confidence":0.7}}`
	m := script(baseModel, copied, copied, `{"tool":"ls","args":{}}`, `{"tool":"answer","args":{"answer":"x","confidence":0.1}}`)
	ans, err := newAgent(t, m, Options{}).Ask(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Answered || ans.Stuck {
		t.Fatalf("answer %+v; want it answered", ans)
	}
	third, note := offerOf(t, m, 2)
	if _, ok := branchArgs(t, third, ToolAnswer); ok {
		t.Error("the turn after two ungrounded answers still offers answer")
	}
	if !strings.Contains(note, "cannot be answer") {
		t.Errorf("the model was told %q", note)
	}
	if fourth, _ := offerOf(t, m, 3); !hasBranch(t, fourth, ToolAnswer) {
		t.Error("the turn after that does not offer answer again")
	}
}

func hasBranch(t *testing.T, schema json.RawMessage, tool string) bool {
	t.Helper()
	_, ok := branchArgs(t, schema, tool)
	return ok
}

// An answer that is only a word of the call ("answer", as the action
// model wrote after a failed query) is refused; the model's next call
// looks it up.
func TestAgentActionModel_AnAnswerOfTheCallsOwnWordsIsRefused(t *testing.T) {
	m := script(actionModel,
		`{"tool":"answer","args":{"answer":"answer","confidence":0.9}}`,
		`{"tool":"select","args":{"table":"parts","columns":["name"],"where":[{"column":"plant","op":"=","value":"Brno"}]}}`)
	ans := askExample(t, m, "Which parts are made in Brno?")
	if len(ans.Steps) == 0 || ans.Steps[0].ErrorKind != FailUngrounded {
		t.Fatalf("steps %+v; want the answer \"answer\" refused", ans.Steps)
	}
	if !ans.Answered || !strings.Contains(ans.Text, "Comfort saddle") {
		t.Errorf("answer %q, want the parts made in Brno", ans.Text)
	}
}
