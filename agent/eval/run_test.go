package eval

import (
	"context"
	"errors"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"kgforge/agent"
	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
)

// scripted is a chat model that replies from a script, to inject the
// faults a small model makes (a tool it was not offered, bad SQL) and check
// that the harness counts them; the real model runs in the integration test.
type scripted struct {
	replies []string
	reqs    []llm.ChatRequest
}

func (s *scripted) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		return llm.ChatResponse{}, errors.New("script ended")
	}
	r := llm.ChatResponse{Content: s.replies[0], PromptTokens: 100 * len(s.reqs), CompletionTokens: 10}
	s.replies = s.replies[1:]
	return r, nil
}

func (s *scripted) Generate(context.Context, llm.GenerateRequest) (llm.ChatResponse, error) {
	return llm.ChatResponse{}, errors.New("the script is for chat models")
}

func (s *scripted) Info(_ context.Context, model string) (llm.ModelInfo, error) {
	return llm.ModelInfo{Name: model, HasTemplate: true, Capabilities: []string{"completion"}}, nil
}

func testToolbox(t *testing.T) *agent.Toolbox {
	t.Helper()
	ctx := context.Background()
	out := t.TempDir()
	w, err := bundle.Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(ctx, duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE suppliers AS SELECT * FROM (VALUES ('S001', 'Kestrel Alloys', 3.2), ('S002', 'Danubia Wheelworks', 4.6)) t(supplier_id, name, rating)"); err != nil {
		t.Fatal(err)
	}
	g := kg.Graph{Nodes: []kg.Node{{ID: "n1", Name: "Kestrel Alloys", Kind: kg.NodeConcept, Labels: []string{"Entity", "Supplier"}}}}
	tables := []kg.Table{{Name: "suppliers", Rows: 2, PrimaryKeys: []string{"supplier_id"}, Columns: []kg.Column{
		{Name: "supplier_id", Type: "VARCHAR", Samples: []string{"S001", "S002"}}, {Name: "name", Type: "VARCHAR"}, {Name: "rating", Type: "DOUBLE"},
	}}}
	if _, err := w.Commit(bundle.Contents{Graph: g, Tables: tables}, bundle.Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	tb, err := agent.NewToolbox(ctx, b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	return tb
}

func TestSQLOnly_CountsEveryFailedCallByKind(t *testing.T) {
	fake := &scripted{replies: []string{
		`{"tool":"ls","args":{}}`, // not offered to this baseline
		`{"tool":"query","args":{"sql":"SELECT nme FROM suppliers"}}`,
		`{"tool":"query","args":{"sql":"DROP TABLE suppliers"}}`,
		`{"tool":"query","args":{"query":"SELECT 1"}}`,
		`{"tool":"query","args":{"sql":"SELECT name FROM suppliers WHERE rating < 4"}}`,
		`{"tool":"answer","args":{"answer":"Kestrel Alloys","confidence":0.5}}`,
	}}
	tb := testToolbox(t)
	agents, closeAll, err := NewAgents(context.Background(), fake, tb.Bundle(), agent.Options{Model: "m", Budget: 8}, []string{NameSQLOnly})
	t.Cleanup(func() { _ = closeAll() })
	if err != nil {
		t.Fatal(err)
	}
	o, err := agents[0].Ask(context.Background(), "Which suppliers have a rating below 4?")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Answered || o.Answer != "Kestrel Alloys" {
		t.Errorf("outcome %+v, want the answer Kestrel Alloys", o)
	}
	var kinds []string
	for _, call := range o.Calls {
		kinds = append(kinds, call.Tool+":"+call.Fail)
	}
	if got, want := strings.Join(kinds, " "), "ls:wrong_tool query:sql_error query:sql_error query:malformed query:"; got != want {
		t.Errorf("calls %s, want %s", got, want)
	}
	if o.Tokens.Turns != 6 || o.Tokens.UniqueInput == 0 {
		t.Errorf("tokens %+v, want 6 turns counted", o.Tokens)
	}
	sys := fake.reqs[0].Messages[0].Content
	var offered []string
	for _, m := range regexp.MustCompile(`(?m)^- (\w+)[(:]`).FindAllStringSubmatch(sys, -1) {
		offered = append(offered, m[1])
	}
	if got := strings.Join(offered, " "); got != "query answer" {
		t.Errorf("the sql-only prompt offers %q, want query and answer:\n%s", got, sys)
	}
}

func TestFullContext_SchemaAndGraphSummaryInTheSystemMessageNotTheQuestion(t *testing.T) {
	fake := &scripted{replies: []string{
		`{"tool":"query","args":{"sql":"SELECT 1"}}`,
		`{"tool":"query","args":{"sql":"SELECT 2"}}`,
		`{"tool":"query","args":{"sql":"SELECT 3"}}`,
		`{"tool":"query","args":{"sql":"SELECT 4"}}`,
	}}
	tb := testToolbox(t)
	agents, closeAll, err := NewAgents(context.Background(), fake, tb.Bundle(), agent.Options{Model: "m", Budget: 30}, []string{NameFullContext})
	t.Cleanup(func() { _ = closeAll() })
	if err != nil {
		t.Fatal(err)
	}
	o, err := agents[0].Ask(context.Background(), "Two?")
	if err != nil {
		t.Fatal(err)
	}
	if o.Answered || len(o.Calls) != FullContextBudget {
		t.Errorf("outcome %+v, want the budget of %d calls spent", o, FullContextBudget)
	}
	// The schema is where the other agents' prompts describe the tools
	// (agent.Options.Context: the system message), not in the question.
	msgs := fake.reqs[0].Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Content != "Question: Two?" {
		t.Fatalf("messages %+v, want the system message and the question alone", msgs)
	}
	for _, want := range []string{"suppliers (2 rows)", "supplier_id VARCHAR [e.g. S001, S002]", "key supplier_id", "Nodes by kind and label", "Supplier", "Edges by type"} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("full-context system message lacks %q:\n%s", want, msgs[0].Content)
		}
	}
}

func TestNewAgents_RefusesAnUnknownAgent(t *testing.T) {
	_, closeAll, err := NewAgents(context.Background(), &scripted{}, testToolbox(t).Bundle(), agent.Options{Model: "m"}, []string{"kgforge", "oracle"})
	t.Cleanup(func() { _ = closeAll() })
	if err == nil || !strings.Contains(err.Error(), `agent "oracle"`) {
		t.Errorf("err = %v, want one naming the unknown agent", err)
	}
}

func TestSummarize_AccuracyFailuresAndPairedBootstrap(t *testing.T) {
	res := func(q, a string, correct bool, calls ...Call) Result {
		conf := 0.2
		if correct {
			conf = 0.8
		}
		return Result{Question: q, Agent: a, Verdict: Verdict{Correct: correct}, Seconds: 2, Outcome: Outcome{Answered: true, Calls: calls, Tokens: agent.Tokens{UniqueInput: 100}, Confidence: conf}}
	}
	ok := Call{Tool: "query"}
	bad := Call{Tool: "query", Fail: FailSQL}
	var results []Result
	for i, q := range []string{"q1", "q2", "q3", "q4"} {
		results = append(results, res(q, "a", i < 3, ok, bad), res(q, "b", i < 3, ok), res(q, "c", i == 0))
	}
	results[2].Outcome.Answered = false                                         // c on q1 ran out of budget (and was right by chance of the test)
	results[0].Outcome.Tokens.Turns, results[0].Outcome.Tokens.Uncounted = 3, 1 // a turn the server cut
	results = append(results, Result{Question: "q5", Agent: "a", Error: "server down"}, res("q5", "b", false), res("q5", "c", false))
	rep := Summarize(results, 1)
	a, c := rep.Agents[0], rep.Agents[2]
	if rep.Questions != 5 || a.Correct != 3 || a.Accuracy != 0.6 || a.Errors != 1 || a.Answered != 4 {
		t.Errorf("agent a: %+v", a)
	}
	if a.MeanCalls != 8.0/5 || a.FailedRate != 0.5 || a.WithFailed != 4 || a.ByTool["query"] != (ToolStats{Calls: 8, Failed: 4}) || a.ByFailure[FailSQL] != 4 {
		t.Errorf("agent a's calls: %+v", a)
	}
	if a.Turns != 3 || a.Uncounted != 1 {
		t.Errorf("agent a's turns: %d, %d uncounted", a.Turns, a.Uncounted)
	}
	if a.Seconds != 2 || a.MaxSeconds != 2 || math.Abs(a.ConfidenceRight-0.8) > 1e-9 || a.ConfidenceWrong != 0.2 {
		t.Errorf("agent a's time and confidence: %+v", a)
	}
	if c.ConfidenceRight != 0 || c.ConfidenceWrong != 0.2 { // c's one right answer ran out of budget
		t.Errorf("agent c's confidence: right %v, wrong %v", c.ConfidenceRight, c.ConfidenceWrong)
	}
	if c.Budget != 1 || c.ByFailure[FailBudget] != 1 {
		t.Errorf("agent c's budget: %+v", c)
	}
	if a.CI[0] > a.Accuracy || a.CI[1] < a.Accuracy {
		t.Errorf("interval %v does not hold the accuracy %v", a.CI, a.Accuracy)
	}
	// a and b are right on the same questions: the paired difference is
	// 0 in every resample, where unpaired intervals would be wide.
	ab := rep.Pairs[0]
	if ab.A != "a" || ab.B != "b" || ab.Diff != 0 || ab.CI != [2]float64{0, 0} {
		t.Errorf("pair a-b %+v, want 0 with the interval [0, 0]", ab)
	}
	if ac := rep.Pairs[1]; math.Abs(ac.Diff-0.4) > 1e-9 || ac.CI[0] < 0 || ac.CI[1] <= ac.CI[0] {
		t.Errorf("pair a-c %+v, want +0.4 with a non-negative interval", ac)
	}
	if again := Summarize(results, 1); again.Agents[0].CI != a.CI {
		t.Errorf("the same seed gave %v then %v", a.CI, again.Agents[0].CI)
	}
	var out strings.Builder
	if err := rep.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a  ", "60.0 %", "a − c: +40.0 points", "query 8 (4 failed)", "sql_error 4", "budget 1", "3 (1)", "2.0 (2.0)", "0.80 / 0.20", "0.00 / 0.20"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRunIntegration_EveryAgentOnTheRealModel asks one question of the
// three agents with the real model (small budgets) and checks each
// answered or spent its budget, with its calls and tokens counted.
func TestRunIntegration_EveryAgentOnTheRealModel(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	ctx := context.Background()
	client, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	agents, closeAll, err := NewAgents(ctx, client, testToolbox(t).Bundle(), agent.Options{Model: llm.ChatModelForTests, Budget: 3}, AgentNames)
	t.Cleanup(func() { _ = closeAll() })
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{Name: "t", Questions: []Question{{ID: "q1", Question: "Which supplier has a rating below 4?", Kind: KindText, Answer: "Kestrel Alloys"}}}
	if err := set.Prepare(); err != nil {
		t.Fatal(err)
	}
	results, err := Run(ctx, set, agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(AgentNames) {
		t.Fatalf("%d results, want %d", len(results), len(AgentNames))
	}
	for _, r := range results {
		k := r.Outcome.Tokens
		counted := k.Turns - k.Uncounted // turns the server cut have no counts
		if r.Error != "" || k.Turns == 0 || (counted > 0) != (k.UniqueInput > 0) || k.UniqueInput > k.Prompt {
			t.Errorf("%s: %+v", r.Agent, r)
		}
		t.Logf("%s: correct=%v calls=%d tokens=%+v answer=%q", r.Agent, r.Verdict.Correct, len(r.Outcome.Calls), k, r.Outcome.Answer)
	}
}
