package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamingOllama is a fault injector standing in for Ollama: /api/chat
// and /api/generate stream reply parts, each holding part as its text,
// never the final one, for as long as more says, then end the body as a
// server that stopped short would. It counts the calls.
func streamingOllama(t *testing.T, part string, more func(sent int64) bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		line, _ := json.Marshal(map[string]any{
			"model": "m", "done": false, "response": part,
			"message": map[string]string{"role": "assistant", "content": part},
		})
		line = append(line, '\n')
		flusher, _ := w.(http.Flusher)
		for sent := int64(0); more(sent); sent += int64(len(line)) {
			if _, err := w.Write(line); err != nil {
				return // the client went away
			}
			if flusher != nil {
				flusher.Flush()
			}
			select {
			case <-r.Context().Done():
				return
			default:
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// calls are the two kinds of model call a reply streams back for.
var calls = map[string]func(*Client) error{
	"chat": func(c *Client) error {
		_, err := c.Chat(context.Background(), ChatRequest{Model: "m"})
		return err
	},
	"generate": func(c *Client) error {
		_, err := c.Generate(context.Background(), GenerateRequest{Model: "m", Prompt: "p"})
		return err
	},
}

// TestClient_NamesTheTimeoutOfAReplyThatNeverEnds: a server that keeps
// streaming a reply is stopped by the call's timeout, and the error says
// so (not that the reply is incomplete or not JSON), once, without a retry.
func TestClient_NamesTheTimeoutOfAReplyThatNeverEnds(t *testing.T) {
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			srv, served := streamingOllama(t, `{"triplets":[`, func(int64) bool {
				time.Sleep(10 * time.Millisecond)
				return true
			})
			c, err := New(Options{Host: srv.URL, Timeout: 300 * time.Millisecond, BaseDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			err = call(c)
			if !errors.Is(err, ErrReplyTimeout) || !strings.Contains(err.Error(), "300ms") || !strings.Contains(err.Error(), "llm.timeout") {
				t.Errorf("err = %v, want %v naming the timeout, 300ms, and llm.timeout", err, ErrReplyTimeout)
			}
			if n := served.Load(); n != 1 {
				t.Errorf("%d calls, want 1: the same request would stream on again", n)
			}
		})
	}
}

// TestClient_StopsAReplyOverTheSizeLimit: a reply of three times
// MaxReplyBytes is stopped at the limit, with an error naming it.
func TestClient_StopsAReplyOverTheSizeLimit(t *testing.T) {
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			srv, served := streamingOllama(t, strings.Repeat("x", 64<<10), func(sent int64) bool { return sent < 3*MaxReplyBytes })
			c, err := New(Options{Host: srv.URL, BaseDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			err = call(c)
			if !errors.Is(err, ErrReplyTooLarge) || !strings.Contains(err.Error(), "8 MiB") {
				t.Errorf("err = %v, want %v naming the limit, 8 MiB", err, ErrReplyTooLarge)
			}
			if n := served.Load(); n != 1 {
				t.Errorf("%d calls, want 1", n)
			}
		})
	}
}
