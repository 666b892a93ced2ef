package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"kgforge/agent"
)

func TestAsk_BadFormatOrBudgetIsAUsageError(t *testing.T) {
	cases := map[string][]string{
		"unknown format": {"ask", "--bundle", t.TempDir(), "--format", "xml", "q"},
		"unknown ids":    {"ask", "--bundle", t.TempDir(), "--ids", "some", "q"},
		"zero budget":    {"ask", "--bundle", t.TempDir(), "--budget", "0", "q"},
		"negative steps": {"ask", "--bundle", t.TempDir(), "--max-steps", "-1", "q"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			if code := run(context.Background(), args); code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
		})
	}
	// The same flags, right, get past the check to the empty directory.
	if code := run(context.Background(), []string{"ask", "--bundle", t.TempDir(), "--format", "json", "--budget", "3", "q"}); code != exitFailed {
		t.Errorf("ask of an empty directory: exit code %d, want %d", code, exitFailed)
	}
}

// fakeAskOllama starts an Ollama server with one chat model, m, that
// replies to each chat with the next of replies, then with the last one
// again (a model stuck on one call), and counts the chats.
func fakeAskOllama(t *testing.T, replies ...string) *atomic.Int32 {
	t.Helper()
	var chats atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			_, _ = io.WriteString(w, `{"models":[{"name":"m","model":"m","digest":"d1"}]}`)
		case "/api/show": // a chat model without tool calling: the json format
			_, _ = io.WriteString(w, `{"template":"{{ range .Messages }}{{ .Content }}{{ end }}","capabilities":["completion"]}`)
		case "/api/chat":
			_, _ = io.Copy(io.Discard, r.Body)
			n := int(chats.Add(1))
			out, _ := json.Marshal(map[string]any{
				"model": "m", "done": true, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5,
				"message": map[string]string{"role": "assistant", "content": replies[min(n, len(replies))-1]},
			})
			_, _ = w.Write(append(out, '\n'))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OLLAMA_HOST", srv.URL)
	return &chats
}

// TestAsk_ShowsEachCallAndExitsNonZeroWithoutAnAnswer runs kgforge ask
// against a fake model: each call is shown on stderr as it ends, stdout
// holds the answer, and a question that ends without one (the same call
// failing three times in a row, or the budget spent) exits 6.
func TestAsk_ShowsEachCallAndExitsNonZeroWithoutAnAnswer(t *testing.T) {
	const (
		ls     = `{"tool":"ls","args":{}}`
		catC17 = `{"tool":"cat","args":{"id":"c17"}}`
		answer = `{"tool":"answer","args":{"answer":"Velora","citations":[{"kind":"node","id":"n1"}],"confidence":0.8}}`
	)
	cases := []struct {
		name       string
		flags      []string
		replies    []string
		wantCode   int
		wantChats  int
		wantStderr []string
		wantStdout []string
	}{
		{
			name: "answered", replies: []string{ls, answer}, wantCode: exitOK, wantChats: 2,
			wantStderr: []string{"[1/30] ls {}: ok (", "[2/30] answer {\"answer\":\"Velora\","},
			wantStdout: []string{"answer: Velora", "cites node n1"},
		},
		{
			name: "the same failing call three times", replies: []string{catC17}, wantCode: exitNoAnswer, wantChats: 3,
			wantStderr: []string{
				`[1/30] cat {"id":"c17"}: not_found (`, `[3/30] cat {"id":"c17"}: not_found (`,
				`kgforge: ask: no answer: the same call failed three times in a row, so the question was stopped: cat {"id":"c17"} gave not_found`,
			},
			wantStdout: []string{"answer: no answer: the same call failed three times in a row"},
		},
		{
			name: "budget spent", flags: []string{"--budget", "2"}, replies: []string{ls}, wantCode: exitNoAnswer, wantChats: 2,
			wantStderr: []string{"[2/2] ls {}: ok (", "kgforge: ask: no answer within the budget of 2 tool calls (raise --budget"},
			wantStdout: []string{"answer: no answer within the budget of 2 tool calls"},
		},
		{
			name: "json log", flags: []string{"--log-format", "json"}, replies: []string{catC17}, wantCode: exitNoAnswer, wantChats: 3,
			wantStderr: []string{`"msg":"ask call","call":3,"budget":30,"tool":"cat","args":"{\"id\":\"c17\"}","result":"not_found"`, `"exit_code":6`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chats := fakeAskOllama(t, c.replies...)
			args := append([]string{"ask", "--bundle", queryBundle(t), "--model", "m"}, c.flags...)
			code, stdout, stderr := runCaptured(t, "", append(args, "Who is Velora?")...)
			if code != c.wantCode {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, c.wantCode, stderr)
			}
			if got := int(chats.Load()); got != c.wantChats {
				t.Errorf("%d model turns, want %d", got, c.wantChats)
			}
			for _, w := range c.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range c.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if strings.Contains(stdout, "/30] ") || strings.Contains(stdout, "ask call") {
				t.Errorf("progress reached stdout:\n%s", stdout)
			}
		})
	}
}

func TestNoAnswer_ExitCodeByHowTheQuestionEnded(t *testing.T) {
	cases := []struct {
		name string
		ans  agent.Answer
		want int
	}{
		{"answered", agent.Answer{Answered: true, Text: "Velora"}, exitOK},
		{"budget spent", agent.Answer{BudgetSpent: true, Text: "no answer within the budget of 30 tool calls"}, exitNoAnswer},
		{"stuck", agent.Answer{Stuck: true, Text: "no answer: the same call failed three times in a row"}, exitNoAnswer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := exitOK
			var ee *exitError
			if err := noAnswer(c.ans); errors.As(err, &ee) {
				got = ee.code
			} else if err != nil {
				t.Fatalf("noAnswer = %v, not an exitError", err)
			}
			if got != c.want {
				t.Errorf("exit code %d, want %d", got, c.want)
			}
		})
	}
}

func TestProgressArgs_OneShortLine(t *testing.T) {
	cases := []struct{ name, raw, want string }{
		{"compacted", "{\"id\": \"c17\",\n \"type\": \"X\"}", `{"id":"c17","type":"X"}`},
		{"none", `{}`, `{}`},
		{"long", `{"sql":"` + strings.Repeat("é", 60) + `"}`, `{"sql":"` + strings.Repeat("é", 36) + "…"},
		{"not JSON", "{\"sql\":\"SELECT\n1", `{"sql":"SELECT 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := progressArgs(json.RawMessage(c.raw)); got != c.want {
				t.Errorf("progressArgs(%q) = %q, want %q", c.raw, got, c.want)
			}
		})
	}
}

// TestAskExitCodeIsDocumented keeps ask's exit code in the tables of
// docs/operations.md and docs/agent.md (ops_test.go checks the others).
func TestAskExitCodeIsDocumented(t *testing.T) {
	cases := []struct{ file, row string }{
		{"../../docs/operations.md", "| " + strconv.Itoa(exitNoAnswer) + " | — | `ask`: no answer"},
		{"../../docs/agent.md", "| " + strconv.Itoa(exitNoAnswer) + " | no answer"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			doc, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(doc), c.row) {
				t.Errorf("%s lacks the row %q", c.file, c.row)
			}
		})
	}
}

// TestAsk_RefusesTheExtractionModel: a model whose GGUF says it is
// kgforge's extraction model cannot drive the agent; ask says so, names a
// way out, exits 2 and asks the model nothing.
func TestAsk_RefusesTheExtractionModel(t *testing.T) {
	var chats atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			_, _ = io.WriteString(w, `{"models":[{"name":"kgforge-extract","model":"kgforge-extract","digest":"d1"}]}`)
		case "/api/show":
			_, _ = io.WriteString(w, `{"template":"{{ .Prompt }}","capabilities":["completion"],"model_info":{"kgforge.prompt":"extract_specialist"}}`)
		default:
			chats.Add(1)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OLLAMA_HOST", srv.URL)
	code, _, stderr := runCaptured(t, "", "ask", "--bundle", queryBundle(t), "--model", "kgforge-extract", "Who is Velora?")
	if code != exitUsage || !strings.Contains(stderr, "kgforge's extraction model") || !strings.Contains(stderr, "--model kgforge-agent") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d naming the extraction model and --model", code, stderr, exitUsage)
	}
	if n := chats.Load(); n != 0 {
		t.Errorf("%d other calls reached the server", n)
	}
}
