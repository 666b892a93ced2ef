package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// flakyOllama answers /api/chat like Ollama after failing the first n calls
// in the way fail says.
func flakyOllama(t *testing.T, n int32, fail func(w http.ResponseWriter)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) <= n {
			fail(w)
			return
		}
		_, _ = io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"{\"ok\":true}"},"done":true,"done_reason":"stop","prompt_eval_count":7,"eval_count":3,"eval_duration":1000000}`+"\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestClient_ChatRetriesTransientFailures(t *testing.T) {
	cases := []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"queue full 503", func(w http.ResponseWriter) {
			http.Error(w, `{"error":"server busy, please try again. maximum pending requests exceeded"}`, http.StatusServiceUnavailable)
		}},
		{"500", func(w http.ResponseWriter) { http.Error(w, "boom", http.StatusInternalServerError) }},
		{"connection reset", func(w http.ResponseWriter) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.(*net.TCPConn).SetLinger(0)
				_ = conn.Close()
			}
		}},
		{"empty body", func(http.ResponseWriter) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := flakyOllama(t, 2, tc.fail)
			c, err := New(Options{Host: srv.URL, BaseDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Chat(context.Background(), ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}})
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if got.Content != `{"ok":true}` {
				t.Errorf("content = %q", got.Content)
			}
			if calls.Load() != 3 {
				t.Errorf("calls = %d, want 3", calls.Load())
			}
			u := c.Usage()
			if u.Retries != 2 || u.Calls != 1 || u.PromptTokens != 7 || u.CompletionTokens != 3 {
				t.Errorf("usage = %+v", u)
			}
		})
	}
}

func TestClient_ChatReturnsAReplyTheServerLeftIncomplete(t *testing.T) {
	srv, calls := flakyOllama(t, 1, func(w http.ResponseWriter) {
		_, _ = io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"{\"ok\":"},"done":false}`+"\n")
	})
	c, err := New(Options{Host: srv.URL, BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	got, err := c.Chat(context.Background(), ChatRequest{Model: "m"})
	if err != nil || got.DoneReason != DoneIncomplete || got.Content != `{"ok":` || calls.Load() != 1 {
		t.Errorf("got %+v, %v after %d calls; want the partial reply, marked incomplete, from one call", got, err, calls.Load())
	}
}

func TestClient_ChatSendsKeepAliveAndOptions(t *testing.T) {
	cases := []struct {
		name   string
		client time.Duration
		req    time.Duration
		want   string
	}{
		{"client default", 0, 0, "30m0s"},
		{"client setting", time.Hour, 0, "1h0m0s"},
		{"request overrides", time.Hour, 10 * time.Minute, "10m0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got struct {
				KeepAlive string         `json:"keep_alive"`
				Options   map[string]any `json:"options"`
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				_, _ = io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"{}"},"done":true,"done_reason":"stop"}`+"\n")
			}))
			t.Cleanup(srv.Close)
			c, err := New(Options{Host: srv.URL, KeepAlive: tc.client})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			if _, err := c.Chat(context.Background(), ChatRequest{Model: "m", NumCtx: 2048, NumPredict: 256, KeepAlive: tc.req}); err != nil {
				t.Fatal(err)
			}
			if got.KeepAlive != tc.want {
				t.Errorf("keep_alive = %q, want %q", got.KeepAlive, tc.want)
			}
			if got.Options["num_ctx"] != float64(DefaultMinContext) || got.Options["num_predict"] != float64(256) {
				t.Errorf("options = %v", got.Options)
			}
		})
	}
}

func TestClient_ChatGivesUpAfterMaxRetries(t *testing.T) {
	srv, calls := flakyOllama(t, 100, func(w http.ResponseWriter) { http.Error(w, "down", http.StatusBadGateway) })
	c, err := New(Options{Host: srv.URL, BaseDelay: time.Millisecond, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), ChatRequest{Model: "m"})
	if err == nil {
		t.Fatal("want error")
	}
	if calls.Load() != 3 {
		t.Errorf("calls = %d, want 3 (1 + 2 retries)", calls.Load())
	}
}

func TestClient_ChatDoesNotRetryClientErrors(t *testing.T) {
	srv, calls := flakyOllama(t, 100, func(w http.ResponseWriter) {
		http.Error(w, `{"error":"model 'nope' not found"}`, http.StatusNotFound)
	})
	c, err := New(Options{Host: srv.URL, BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.Chat(context.Background(), ChatRequest{Model: "nope"}); err == nil {
		t.Fatal("want error")
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d, want 1", calls.Load())
	}
}

func TestClient_ModelDigestsNamesMissingModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"models": []map[string]any{{"name": "gemma3:270m", "model": "gemma3:270m", "digest": "abc"}}})
	}))
	defer srv.Close()
	c, err := New(Options{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ModelDigests(context.Background(), "gemma3:270m")
	if err != nil || got["gemma3:270m"] != "abc" {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = c.ModelDigests(context.Background(), "gemma3:270m", "missing-model")
	if !errors.Is(err, ErrModelMissing) {
		t.Fatalf("err = %v, want ErrModelMissing", err)
	}
}

func TestHostFromEnv(t *testing.T) {
	cases := []struct{ env, want string }{
		{"", DefaultHost},
		{"127.0.0.1:11500", "http://127.0.0.1:11500"},
		{"http://ollama:11434/", "http://ollama:11434"},
	}
	for _, tc := range cases {
		t.Setenv("OLLAMA_HOST", tc.env)
		if got := HostFromEnv(); got != tc.want {
			t.Errorf("OLLAMA_HOST=%q: got %q, want %q", tc.env, got, tc.want)
		}
	}
}

// integration returns a client for the real Ollama server, skipping unless
// KGFORGE_INTEGRATION is set (make test and .ci/run set it and start Ollama).
func integration(t *testing.T) *Client {
	t.Helper()
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestClient_ChatIntegration(t *testing.T) {
	c := integration(t)
	ctx := context.Background()
	if _, err := c.ModelDigests(ctx, ChatModelForTests, EmbedModelForTests); err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
	resp, err := c.Chat(ctx, ChatRequest{
		Model: ChatModelForTests, Schema: schema, NumPredict: 64,
		Messages: []Message{{Role: "user", Content: "Name one color."}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Color string }
	if err := json.Unmarshal([]byte(resp.Content), &got); err != nil {
		t.Fatalf("reply %q is not the schema's JSON: %v", resp.Content, err)
	}
	if got.Color == "" || resp.CompletionTokens == 0 {
		t.Errorf("reply %+v, completion tokens %d", got, resp.CompletionTokens)
	}
}

func TestClient_EmbedIntegration(t *testing.T) {
	c := integration(t)
	vecs, err := c.Embed(context.Background(), EmbedModelForTests, []string{"bicycle frame", "bike frame", "quarterly invoice"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || len(vecs[0]) != 384 {
		t.Fatalf("got %d vectors of %d dims, want 3 of 384", len(vecs), len(vecs[0]))
	}
	if near, far := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2]); near <= far {
		t.Errorf("cos(bicycle frame, bike frame)=%.3f <= cos(bicycle frame, invoice)=%.3f", near, far)
	}
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// TestClient_SendsNumThreadWithEveryCall records the options of a chat, a
// completion and an embedding: num_thread goes with each when the client
// has one (its own or KGFORGE_NUM_THREAD's), and is absent otherwise so
// that the server keeps its default.
func TestClient_SendsNumThreadWithEveryCall(t *testing.T) {
	cases := []struct {
		name string
		opt  int
		env  string
		want any // nil: absent
	}{
		{"unset", 0, "", nil},
		{"client setting", 2, "", float64(2)},
		{"from the environment", 0, "1", float64(1)},
		{"client setting over the environment", 3, "1", float64(3)},
		{"negative keeps the server default", -1, "1", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KGFORGE_NUM_THREAD", tc.env)
			var mu sync.Mutex
			seen := map[string]map[string]any{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					Options map[string]any `json:"options"`
				}
				if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				mu.Lock()
				seen[r.URL.Path] = body.Options
				mu.Unlock()
				switch r.URL.Path {
				case "/api/embed":
					_, _ = io.WriteString(w, `{"model":"m","embeddings":[[1,0]]}`)
				case "/api/generate":
					_, _ = io.WriteString(w, `{"model":"m","response":"x","done":true,"done_reason":"stop"}`+"\n")
				default:
					_, _ = io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"{}"},"done":true,"done_reason":"stop"}`+"\n")
				}
			}))
			t.Cleanup(srv.Close)
			c, err := New(Options{Host: srv.URL, NumThread: tc.opt})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			ctx := context.Background()
			if _, err := c.Chat(ctx, ChatRequest{Model: "m"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(ctx, GenerateRequest{Model: "m", Prompt: "p"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Embed(ctx, "m", []string{"a"}, 1); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/api/chat", "/api/generate", "/api/embed"} {
				opts, ok := seen[path]
				if !ok {
					t.Fatalf("no request to %s", path)
				}
				if got := opts["num_thread"]; got != tc.want {
					t.Errorf("%s: num_thread = %v, want %v (options %v)", path, got, tc.want, opts)
				}
			}
		})
	}
}

func TestNew_RefusesABadNumThreadInTheEnvironment(t *testing.T) {
	for _, v := range []string{"two", "0", "-3"} {
		t.Setenv("KGFORGE_NUM_THREAD", v)
		_, err := New(Options{Host: "http://127.0.0.1:1"})
		if err == nil || !strings.Contains(err.Error(), "KGFORGE_NUM_THREAD") {
			t.Errorf("KGFORGE_NUM_THREAD=%q: err = %v, want one naming the variable", v, err)
		}
	}
}

// TestClient_NumThreadIntegration: the real server takes num_thread 1 for
// a chat and an embedding and answers as usual.
func TestClient_NumThreadIntegration(t *testing.T) {
	integration(t)
	c, err := New(Options{NumThread: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	resp, err := c.Generate(context.Background(), GenerateRequest{Model: ChatModelForTests, Prompt: "Paris is the capital of", NumPredict: 4})
	if err != nil {
		t.Fatal(err)
	}
	if resp.CompletionTokens == 0 {
		t.Errorf("completion with num_thread 1: %+v, want tokens", resp)
	}
	vecs, err := c.Embed(context.Background(), EmbedModelForTests, []string{"bicycle frame"}, 1)
	if err != nil || len(vecs) != 1 || len(vecs[0]) != 384 {
		t.Fatalf("embed with num_thread 1: %d vectors, err %v", len(vecs), err)
	}
}

// TestTransient_AConnectionClosedUnderTheRequest: a server that resets
// the connection while the client still writes the request body fails
// the POST with "use of closed network connection" (in 5 of about 260
// runs of stages' dying-endpoint test, each losing a chunk); a kept-alive
// connection the server closed as the request went out fails it with
// net/http's "server closed idle connection". Both are the server going
// away, worth another try; a refused authorisation and a 400 are not.
func TestTransient_AConnectionClosedUnderTheRequest(t *testing.T) {
	closed := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/api/chat", Err: &net.OpError{
		Op: "readfrom", Net: "tcp", Err: &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed},
	}}
	idle := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/api/chat", Err: errors.New("http: server closed idle connection")}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{closed, true},
		{fmt.Errorf("chat with m: %w", closed), true},
		{idle, true},
		{api.StatusError{StatusCode: http.StatusBadRequest, ErrorMessage: "bad"}, false},
		{api.StatusError{StatusCode: http.StatusServiceUnavailable}, true},
		{context.Canceled, false},
		{errors.New("model not found"), false},
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("Transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
