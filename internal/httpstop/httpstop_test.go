package httpstop_test

import (
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/internal/httpstop"
)

// serve starts srv on a loopback port and returns its address and the
// channel that gets Serve's error.
func serve(t *testing.T, srv *http.Server) (string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	return ln.Addr().String(), done
}

// closed reports whether the peer closed c within the wait.
func closed(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && (!errors.As(err, &ne) || !ne.Timeout())
}

// TestTrack_ClosesASpareConnectionAtOnce: a connection that sent nothing
// does not hold the shutdown for Shutdown's five seconds, and is closed;
// a server without Track waits it out.
func TestTrack_ClosesASpareConnectionAtOnce(t *testing.T) {
	for _, tracked := range []bool{true, false} {
		var calls atomic.Int32
		srv := &http.Server{Handler: http.NotFoundHandler(), ConnState: func(net.Conn, http.ConnState) { calls.Add(1) }}
		if tracked {
			httpstop.Track(srv)
		}
		addr, done := serve(t, srv)
		spare, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// One request served, so the spare connection has been accepted.
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		forced, err := httpstop.Stop(srv, 2*time.Second)
		switch {
		case tracked && (forced || err != nil):
			t.Errorf("tracked: Stop = %v, %v; want a clean stop", forced, err)
		case !tracked && !forced:
			t.Error("untracked: the spare connection did not hold the shutdown; the test shows nothing")
		}
		if !closed(spare, 5*time.Second) {
			t.Errorf("tracked %v: the spare connection is still open", tracked)
		}
		_ = spare.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		if calls.Load() == 0 {
			t.Error("the server's own ConnState was not called")
		}
	}
}

// TestStop_ClosesAStreamThatOutlivesTheGrace: a request that never ends
// by itself (an event stream) is closed when the grace ends, and Stop says
// it forced the stop; a request that ends within the grace is waited for.
func TestStop_ClosesAStreamThatOutlivesTheGrace(t *testing.T) {
	started := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/quick" {
			time.Sleep(200 * time.Millisecond)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	})}
	httpstop.Track(srv)
	addr, done := serve(t, srv)
	resp, err := http.Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	<-started
	quick := make(chan int, 1)
	go func() {
		r, err := http.Get("http://" + addr + "/quick")
		if err != nil {
			quick <- 0
			return
		}
		_ = r.Body.Close()
		quick <- r.StatusCode
	}()
	time.Sleep(50 * time.Millisecond) // the quick request is in flight
	forced, err := httpstop.Stop(srv, 500*time.Millisecond)
	if !forced || err != nil {
		t.Errorf("Stop = %v, %v; want forced, no error", forced, err)
	}
	if code := <-quick; code != http.StatusOK {
		t.Errorf("the request in flight got %d, want 200", code)
	}
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
		t.Error("the stream is still open")
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}
