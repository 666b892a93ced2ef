package httpstop

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// Track makes srv close, as soon as its shutdown starts (after its
// listeners are closed, so no new connection arrives), every connection
// that has not sent a byte of a request yet: it holds no request to wait
// for. It wraps srv.ConnState (calling the one already set) and registers
// a shutdown hook; call it before Serve.
func Track(srv *http.Server) {
	f := &fresh{conns: map[net.Conn]bool{}}
	prev := srv.ConnState
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		f.track(c, state)
		if prev != nil {
			prev(c, state)
		}
	}
	srv.RegisterOnShutdown(f.closeAll)
}

// Stop shuts srv down: no new connection, idle ones closed, requests in
// flight given grace to end. When the grace ends first, the connections
// still open are closed (Close) and forced is true; err is then Close's
// error, if any. Any other error is Shutdown's.
func Stop(srv *http.Server, grace time.Duration) (forced bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err = srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return true, srv.Close()
	}
	return false, err
}

// fresh holds the connections that have not yet sent a byte of a request.
type fresh struct {
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func (f *fresh) track(c net.Conn, state http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if state == http.StateNew {
		f.conns[c] = true
		return
	}
	delete(f.conns, c)
}

func (f *fresh) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close() // it carries no request; nothing is lost
		delete(f.conns, c)
	}
}
