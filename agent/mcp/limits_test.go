package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kgforge/agent"
	"kgforge/agent/mcp"
	"kgforge/bundle"
	"kgforge/internal/duck"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// runaway is a query that runs until the sandbox stops it.
const runaway = "SELECT sum(a.range * b.range) FROM range(100000000) a, range(100000000) b"

// slowToolbox is a toolbox whose queries stop after timeout.
func slowToolbox(t *testing.T, timeout time.Duration) *agent.Toolbox {
	t.Helper()
	b, err := bundle.Open(testBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	tb, err := agent.NewToolbox(context.Background(), b, duck.SandboxLimits{Timeout: timeout, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	return tb
}

// connect opens a session of the official client on the server at url.
func connect(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func query(ctx context.Context, cs *sdk.ClientSession, sql string) (*sdk.CallToolResult, error) {
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: agent.ToolQuery, Arguments: map[string]any{"sql": sql}})
}

// waitFor polls cond until it holds; a minute is far more than it needs.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// TestMCPHTTP_OneSessionsQueueDoesNotHoldBackAnother: session A has three
// runaway queries in the server; session B's SELECT 42 runs after the one
// running now, not after all of A's: when B has its answer, at most one of
// A's calls has ended.
func TestMCPHTTP_OneSessionsQueueDoesNotHoldBackAnother(t *testing.T) {
	s, held := mcp.NewServerCounted(slowToolbox(t, 2*time.Second), mcp.Limits{})
	srv := httptest.NewServer(mcp.Handler(s))
	t.Cleanup(srv.Close)
	a, b := connect(t, srv.URL), connect(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	endedA := 0
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			r, err := query(ctx, a, runaway)
			if err == nil && (!r.IsError || !strings.Contains(text(r), "stopped")) {
				t.Errorf("a runaway query: %+v, want it stopped by the sandbox", r)
			}
			mu.Lock()
			endedA++
			mu.Unlock()
		})
	}
	waitFor(t, "A's three calls to reach the server", func() bool { return held() == 3 })
	r, err := query(ctx, b, "SELECT 42 AS answer")
	if err != nil || r.IsError || !strings.Contains(text(r), "42") {
		t.Fatalf("B's query: %v, %+v", err, r)
	}
	mu.Lock()
	ended := endedA
	mu.Unlock()
	if ended > 1 {
		t.Errorf("B's call was answered after %d of A's three runaway calls ended, want after at most the one running when it came", ended)
	}
	cancel()
	wg.Wait()
}

// TestMCPHTTP_CallsPastTheLimitsAreRefusedAtOnce: a session may hold
// SessionCalls calls, all sessions together TotalCalls; a call past either
// is answered at once with a tool error that says which, and the session
// goes on.
func TestMCPHTTP_CallsPastTheLimitsAreRefusedAtOnce(t *testing.T) {
	s, held := mcp.NewServerCounted(slowToolbox(t, 3*time.Second), mcp.Limits{SessionCalls: 2, TotalCalls: 3})
	srv := httptest.NewServer(mcp.Handler(s))
	t.Cleanup(srv.Close)
	a, b := connect(t, srv.URL), connect(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	start := func(cs *sdk.ClientSession) {
		wg.Go(func() { _, _ = query(ctx, cs, runaway) })
	}
	start(a)
	start(a)
	waitFor(t, "A's two calls to reach the server", func() bool { return held() == 2 })
	r, err := query(ctx, a, "SELECT 1")
	if err != nil || !r.IsError || !strings.Contains(text(r), "error (busy)") || !strings.Contains(text(r), "this session already has 2") {
		t.Errorf("A's third call: %v, %+v; want a busy tool error for the session", err, r)
	}
	start(b)
	waitFor(t, "B's call to reach the server", func() bool { return held() == 3 })
	r, err = query(ctx, b, "SELECT 1")
	if err != nil || !r.IsError || !strings.Contains(text(r), "error (busy)") || !strings.Contains(text(r), "server already holds 3") {
		t.Errorf("B's second call: %v, %+v; want a busy tool error for the server", err, r)
	}
	cancel()
	wg.Wait()
	waitFor(t, "the cancelled calls to leave", func() bool { return held() == 0 })
	r, err = query(context.Background(), b, "SELECT 42 AS answer")
	if err != nil || r.IsError || !strings.Contains(text(r), "42") {
		t.Errorf("a call once the others ended: %v, %+v", err, r)
	}
}

// post sends one JSON-RPC body to the server and returns the status and
// the body of its answer.
func post(t *testing.T, url, session, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(raw), resp.Header
}

// TestMCPHTTP_RefusesABatch: under a protocol version that allows
// JSON-RPC batches, a batch of calls is refused whole with JSON-RPC's
// invalid request and runs nothing; the session goes on.
func TestMCPHTTP_RefusesABatch(t *testing.T) {
	srv := httptest.NewServer(mcp.Handler(mcp.NewServer(slowToolbox(t, 30*time.Second), "test", mcp.Limits{})))
	t.Cleanup(srv.Close)
	code, body, h := post(t, srv.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	session := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s (session %q)", code, body, session)
	}
	if code, body, _ := post(t, srv.URL, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code >= 300 {
		t.Fatalf("initialized: %d %s", code, body)
	}
	call := func(id int, sql string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": "query", "arguments": map[string]any{"sql": sql}}})
		return string(b)
	}
	code, body, _ = post(t, srv.URL, session, " ["+call(2, runaway)+","+call(3, runaway)+","+call(4, runaway)+"]")
	if code != http.StatusBadRequest || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "batches are not served") {
		t.Errorf("a batch of three calls: %d %s, want 400 and JSON-RPC's invalid request", code, body)
	}
	code, body, _ = post(t, srv.URL, session, call(5, "SELECT 42 AS answer"))
	if code != http.StatusOK || !strings.Contains(body, "42") {
		t.Errorf("a call after the batch: %d %s", code, body)
	}
	code, body, _ = post(t, srv.URL, session, `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"pad":"`+strings.Repeat("x", mcp.MaxLine)+`"}}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"code":-32600`) {
		t.Errorf("a body past MaxLine: %d %.200s, want 413", code, body)
	}
}

// TestMCPStdio_AMalformedLineOrABatchIsAnsweredAndTheServerGoesOn runs
// the built binary: a line that is not JSON gets JSON-RPC's parse error; a
// batch, a message that is not JSON-RPC and a line past MaxLine its
// invalid request, each with id null; and the calls after them are
// answered.
func TestMCPStdio_AMalformedLineOrABatchIsAnsweredAndTheServerGoesOn(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kgforge")
	if out, err := exec.Command("go", "build", "-o", bin, "kgforge/cmd/kgforge").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "mcp", "--bundle", testBundle(t))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{not json`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"hello":"world"}`,
		`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcp.MaxLine) + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ls","arguments":{}}}`,
	}
	if _, err := io.WriteString(stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		ID     any `json:"id"`
		Error  *struct{ Code int }
		Result json.RawMessage `json:"result"`
	}
	got := map[string]int{} // "id 1", "error -32700", ...
	var ls string
	sc := bufio.NewScanner(stdout)
	for got["id 4"] == 0 && sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a reply that is not JSON: %s", sc.Text())
		}
		switch {
		case r.Error != nil && r.ID == nil:
			got["error "+strconvI(r.Error.Code)]++
		case r.ID != nil:
			got["id "+strconvI(int(r.ID.(float64)))]++
			if r.ID.(float64) == 4 {
				ls = string(r.Result)
			}
		}
	}
	want := map[string]int{"id 1": 1, "error -32700": 1, "error -32600": 3, "id 4": 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("replies %v, want %v (the server must answer each bad line and go on)", got, want)
			break
		}
	}
	if !strings.Contains(ls, "suppliers") {
		t.Errorf("ls after the bad lines: %s", ls)
	}
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server, its stdin closed: %v, want exit 0", err)
	}
}

func strconvI(n int) string { b, _ := json.Marshal(n); return string(b) }
