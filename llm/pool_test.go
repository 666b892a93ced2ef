package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The servers in this file are test doubles that inject faults (refused
// and reset connections, 5xx, a model replaced under its name, replies
// held back): the real two-server test is in stages.

// fakeEndpoint is a fault-injecting stand-in for one Ollama server.
type fakeEndpoint struct {
	srv      *httptest.Server
	digest   atomic.Value  // string: the digest /api/tags reports for model m
	failNext atomic.Int32  // chats left to answer with a 500
	reset    atomic.Bool   // reset the connection of every chat
	gate     chan struct{} // nil, or each chat waits for a token
	calls    atomic.Int32  // chats answered
	inFlight atomic.Int32
	maxIn    atomic.Int32
	mu       sync.Mutex // orders the updates of maxIn
}

func newFakeEndpoint(t *testing.T, digest string) *fakeEndpoint {
	t.Helper()
	f := &fakeEndpoint{}
	f.digest.Store(digest)
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/tags" {
		_, _ = fmt.Fprintf(w, `{"models":[{"name":"m:latest","model":"m:latest","digest":%q}]}`, f.digest.Load())
		return
	}
	f.mu.Lock()
	f.maxIn.Store(max(f.maxIn.Load(), f.inFlight.Add(1)))
	f.mu.Unlock()
	defer f.inFlight.Add(-1)

	_, _ = io.Copy(io.Discard, r.Body)
	switch {
	case f.reset.Load():
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.(*net.TCPConn).SetLinger(0)
			_ = conn.Close()
		}
		return
	case f.failNext.Add(-1) >= 0:
		http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
		return
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-r.Context().Done():
			return
		}
	}
	f.calls.Add(1)
	_, _ = io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"{\"ok\":true}"},"done":true,"done_reason":"stop","prompt_eval_count":7,"eval_count":3,"total_duration":2000000}`+"\n")
}

// refusedURL is an address nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

func poolClient(t *testing.T, eps ...Endpoint) *Client {
	t.Helper()
	c, err := New(Options{Endpoints: eps, BaseDelay: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func chatOK(t *testing.T, c *Client) {
	t.Helper()
	got, err := c.Chat(context.Background(), ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Errorf("Chat: %v", err)
		return
	}
	if got.Content != `{"ok":true}` || got.CompletionTokens != 3 {
		t.Errorf("reply = %+v", got)
	}
}

// chatAll sends n chats from workers goroutines and waits for them.
func chatAll(t *testing.T, c *Client, n, workers int) {
	t.Helper()
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range workers {
		wg.Go(func() {
			for range jobs {
				chatOK(t, c)
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

func TestPoolFillsTheLeastLoadedEndpointAndNeverExceedsItsSlots(t *testing.T) {
	a, b := newFakeEndpoint(t, "d1"), newFakeEndpoint(t, "d1")
	a.gate = make(chan struct{})
	b.gate = a.gate
	c := poolClient(t, Endpoint{URL: a.srv.URL, Slots: 2}, Endpoint{URL: b.srv.URL, Slots: 1})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { chatOK(t, c) })
	}
	waitFor(t, func() bool { return a.inFlight.Load() == 2 && b.inFlight.Load() == 1 }, "2 chats on a and 1 on b")
	for range 6 { // the other three wait for a slot, then fill the pool again
		a.gate <- struct{}{}
	}
	wg.Wait()
	if a.maxIn.Load() > 2 || b.maxIn.Load() > 1 {
		t.Errorf("at most %d chats at once on a (2 slots), %d on b (1 slot)", a.maxIn.Load(), b.maxIn.Load())
	}
	u := c.Endpoints()
	if u[0].Calls+u[1].Calls != 6 || u[0].Calls != int64(a.calls.Load()) || u[0].PromptTokens != 7*u[0].Calls {
		t.Errorf("endpoint usage %+v; servers answered %d and %d", u, a.calls.Load(), b.calls.Load())
	}
	if total := c.Usage(); total.Calls != 6 || total.ServerDuration != 12*time.Millisecond {
		t.Errorf("client usage %+v, want 6 calls and 12ms of server time", total)
	}
}

// waitFor polls cond until it holds; the test's own timeout bounds it.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for !cond() {
		if t.Context().Err() != nil {
			t.Fatalf("never saw %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPoolSendsARefusedEndpointsRequestsToAnotherOne(t *testing.T) {
	dead, b := refusedURL(t), newFakeEndpoint(t, "d1")
	c := poolClient(t, Endpoint{URL: dead, Slots: 2}, Endpoint{URL: b.srv.URL, Slots: 2})
	chatAll(t, c, 20, 4)
	u := c.Endpoints()
	if b.calls.Load() != 20 || u[1].Calls != 20 || u[0].Calls != 0 || u[0].Failures == 0 {
		t.Errorf("b answered %d; usage %+v; want all 20 on b and a's failures counted", b.calls.Load(), u)
	}
	if !strings.Contains(u[0].Out, "connection refused") {
		t.Errorf("the dead endpoint's Out = %q, want its connection error", u[0].Out)
	}
}

func TestPoolLosesNoRequestWhenAnEndpointResetsMidRequest(t *testing.T) {
	a, b := newFakeEndpoint(t, "d1"), newFakeEndpoint(t, "d1")
	c := poolClient(t, Endpoint{URL: a.srv.URL, Slots: 2}, Endpoint{URL: b.srv.URL, Slots: 2})
	chatAll(t, c, 10, 4)
	a.reset.Store(true) // a dies: every request it takes is cut
	chatAll(t, c, 30, 4)
	u := c.Endpoints()
	if got := a.calls.Load() + b.calls.Load(); got != 40 || u[0].Failures == 0 {
		t.Errorf("%d chats answered (want 40), usage %+v", got, u)
	}
	if c.Usage().Calls != 40 {
		t.Errorf("client counted %d calls, want 40", c.Usage().Calls)
	}
}

func TestPoolTriesAFailedEndpointAgainAfterItsBackoff(t *testing.T) {
	a, b := newFakeEndpoint(t, "d1"), newFakeEndpoint(t, "d1")
	a.failNext.Store(3)
	c := poolClient(t, Endpoint{URL: a.srv.URL, Slots: 1}, Endpoint{URL: b.srv.URL, Slots: 1})
	for a.calls.Load() == 0 {
		if t.Context().Err() != nil {
			t.Fatal("a never served again after its three 500s")
		}
		chatOK(t, c)
	}
	if u := c.Endpoints(); u[0].Failures != 3 || u[0].Out != "" {
		t.Errorf("a: %+v; want 3 failures and back in the pool", u[0])
	}
}

func TestPoolFailsWhenNoEndpointIsLeft(t *testing.T) {
	a, b := refusedURL(t), refusedURL(t)
	c := poolClient(t, Endpoint{URL: a, Slots: 1}, Endpoint{URL: b, Slots: 1})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			_, err := c.Chat(context.Background(), ChatRequest{Model: "m"})
			if err == nil || !strings.Contains(err.Error(), "connection refused") {
				t.Errorf("Chat with no server up: %v, want a connection refused", err)
			}
		})
	}
	wg.Wait()
}

func TestModelDigestsRefusesEndpointsThatServeDifferentModels(t *testing.T) {
	a, b := newFakeEndpoint(t, "aaaaaaaaaaaa1111"), newFakeEndpoint(t, "bbbbbbbbbbbb2222")
	c := poolClient(t, Endpoint{URL: a.srv.URL, Slots: 1}, Endpoint{URL: b.srv.URL, Slots: 1})
	_, err := c.ModelDigests(context.Background(), "m")
	if !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("ModelDigests: %v, want ErrDigestMismatch", err)
	}
	for _, want := range []string{a.srv.URL, b.srv.URL, "aaaaaaaaaaaa", "bbbbbbbbbbbb", "m "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestModelDigestsTakesOutAnEndpointThatDoesNotAnswer(t *testing.T) {
	dead, b := refusedURL(t), newFakeEndpoint(t, "d1")
	c, err := New(Options{Endpoints: []Endpoint{{URL: dead, Slots: 1}, {URL: b.srv.URL, Slots: 1}}, BaseDelay: time.Millisecond, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ModelDigests(context.Background(), "m")
	if err != nil || got["m"] != "d1" {
		t.Fatalf("ModelDigests = %v, %v; want m's digest from the endpoint that answered", got, err)
	}
	if u := c.Endpoints(); u[0].Out == "" {
		t.Errorf("the endpoint that did not answer is not out: %+v", u[0])
	}
}

func TestPoolTakesOutAnEndpointThatComesBackWithAnotherModel(t *testing.T) {
	a, b := newFakeEndpoint(t, "d1"), newFakeEndpoint(t, "d1")
	c := poolClient(t, Endpoint{URL: a.srv.URL, Slots: 1}, Endpoint{URL: b.srv.URL, Slots: 1})
	if _, err := c.ModelDigests(context.Background(), "m"); err != nil {
		t.Fatal(err)
	}
	a.failNext.Store(1)
	a.digest.Store("d2") // restarted with another model under the same name
	chatAll(t, c, 20, 1)
	u := c.Endpoints()
	if a.calls.Load() != 0 || b.calls.Load() != 20 {
		t.Errorf("a answered %d, b %d; want none on a once it serves another model", a.calls.Load(), b.calls.Load())
	}
	if !strings.Contains(u[0].Out, "d2") || !strings.Contains(u[0].Out, a.srv.URL) {
		t.Errorf("a's Out = %q, want the digest it serves now and its URL", u[0].Out)
	}
}

func TestNewRefusesBadEndpoints(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no slots", Options{Endpoints: []Endpoint{{URL: "h:1", Slots: 1}, {URL: "h:2"}}}, "needs at least one slot"},
		{"twice", Options{Endpoints: []Endpoint{{URL: "h:1", Slots: 1}, {URL: "h:1", Slots: 1}}}, "listed twice"},
		{"bad URL", Options{Endpoints: []Endpoint{{URL: "ftp://h:1", Slots: 1}}}, "invalid URL"},
		{"host too", Options{Host: "h:1", Endpoints: []Endpoint{{URL: "h:2", Slots: 1}}}, "not both"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
