package agent

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
)

type scripted struct {
	replies []string
	reqs    []llm.ChatRequest
}

func (s *scripted) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.reqs = append(s.reqs, req)
	r := s.replies[0]
	s.replies = s.replies[1:]
	return llm.ChatResponse{Content: r}, nil
}

func testBundle(t *testing.T) *bundle.Bundle {
	t.Helper()
	out := t.TempDir()
	w, err := bundle.Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(context.Background(), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE suppliers AS SELECT * FROM (VALUES ('S001', 'Kestrel Alloys', 'frames')) t(supplier_id, name, part_category)"); err != nil {
		t.Fatal(err)
	}
	g := kg.Graph{Nodes: []kg.Node{{ID: "n1", Name: "Kestrel Alloys", Kind: kg.NodeConcept, Labels: []string{"Entity"}}}}
	if _, err := w.Commit(bundle.Contents{Graph: g, Tables: []kg.Table{{Name: "suppliers", Columns: []kg.Column{{Name: "supplier_id"}, {Name: "name"}}}}}, bundle.Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestAgent_RunsToolsUntilAnswer(t *testing.T) {
	fake := &scripted{replies: []string{
		`{"tool":"cat","arg":"nodes.parquet"}`,
		`{"tool":"query","arg":"SELECT name FROM suppliers WHERE part_category = 'frames'"}`,
		`{"tool":"query","arg":"DROP TABLE suppliers"}`,
		`{"tool":"cat","ar`, // cut reply
		`{"tool":"answer","arg":"Kestrel Alloys [n1]"}`,
	}}
	a, err := New(context.Background(), fake, "m", testBundle(t), 8, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ans, err := a.Ask(context.Background(), "Who makes frames?")
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Answered || ans.Text != "Kestrel Alloys [n1]" || len(ans.Steps) != 6 {
		t.Fatalf("answer %+v", ans)
	}
	checks := []struct{ tool, contains string }{
		{ToolLs, "suppliers"},
		{ToolCat, "Kestrel Alloys"},
		{ToolQuery, "Kestrel Alloys"},
		{ToolQuery, "DROP statement refused"},
		{"invalid", "reply with one JSON object"},
	}
	for i, c := range checks {
		if ans.Steps[i].Tool != c.tool || !strings.Contains(ans.Steps[i].Result, c.contains) {
			t.Errorf("step %d = %s %q, want %s containing %q", i, ans.Steps[i].Tool, ans.Steps[i].Result, c.tool, c.contains)
		}
	}
	// The model saw each result, and the schema only lets cat name real files.
	last := fake.reqs[len(fake.reqs)-1]
	if !strings.Contains(last.Messages[len(last.Messages)-1].Content, "reply with one JSON object") {
		t.Errorf("last prompt lacks the previous result")
	}
	var s struct{ AnyOf []json.RawMessage }
	if err := json.Unmarshal(last.Schema, &s); err != nil || len(s.AnyOf) != 4 || !strings.Contains(string(s.AnyOf[1]), `"nodes.parquet"`) {
		t.Errorf("schema = %s", last.Schema)
	}
}

func TestAgent_QueryStoppedAtALimitIsAnErrorTheLoopGoesOn(t *testing.T) {
	cases := []struct {
		name, query, want string
		lim               duck.SandboxLimits
	}{
		{
			"time", "SELECT sum(a.range + b.range) FROM range(1000000000) a, range(100000) b",
			"error: query stopped after 200ms",
			duck.SandboxLimits{Timeout: 200 * time.Millisecond},
		},
		{
			"memory", "SELECT count(DISTINCT 'key-' || range::VARCHAR) FROM range(50000000)",
			"error: query stopped at 64MiB",
			duck.SandboxLimits{MemoryLimit: "64MiB", Threads: 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			call, _ := json.Marshal(map[string]string{"tool": ToolQuery, "arg": c.query})
			fake := &scripted{replies: []string{
				string(call),
				`{"tool":"query","arg":"SELECT name FROM suppliers"}`,
				`{"tool":"answer","arg":"Kestrel Alloys"}`,
			}}
			a, err := New(context.Background(), fake, "m", testBundle(t), 8, c.lim)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = a.Close() })
			ans, err := a.Ask(context.Background(), "Who makes frames?")
			if err != nil || !ans.Answered || len(ans.Steps) != 4 {
				t.Fatalf("answer %+v, %v", ans, err)
			}
			if got := ans.Steps[1].Result; !strings.HasPrefix(got, c.want) || !strings.Contains(got, "LIMIT") || strings.Contains(got, "\n") {
				t.Errorf("stopped query returned %q, want one line starting %q with a hint", got, c.want)
			}
			if !strings.Contains(ans.Steps[2].Result, "Kestrel Alloys") {
				t.Errorf("the next query returned %q", ans.Steps[2].Result)
			}
		})
	}
}

func TestAgent_StopsAtTheBudget(t *testing.T) {
	fake := &scripted{replies: []string{`{"tool":"ls","arg":""}`, `{"tool":"ls","arg":""}`}}
	a, err := New(context.Background(), fake, "m", testBundle(t), 3, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ans, err := a.Ask(context.Background(), "q")
	if err != nil || ans.Answered || len(ans.Steps) != 3 {
		t.Errorf("got %+v, %v; want 3 steps and no answer", ans, err)
	}
}

func TestAgentIntegration_LoopsWithTheRealModel(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), c, llm.ChatModelForTests, testBundle(t), 3, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ans, err := a.Ask(context.Background(), "Which supplier makes frames?")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{ToolLs: true, ToolCat: true, ToolQuery: true, ToolAnswer: true, "invalid": true}
	for i, s := range ans.Steps {
		if !known[s.Tool] || (s.Tool != ToolAnswer && s.Result == "") {
			t.Errorf("step %d: %+v", i, s)
		}
	}
	if len(ans.Steps) < 2 {
		t.Errorf("the model made no tool call: %+v", ans)
	}
	t.Logf("answered=%v after %d steps: %q", ans.Answered, len(ans.Steps), ans.Text)
}
