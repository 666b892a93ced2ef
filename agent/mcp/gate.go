package mcp

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Defaults of Limits.
const (
	DefaultSessionCalls = 4
	DefaultTotalCalls   = 32
)

// Limits bound the tool calls the server holds. A Toolbox runs one call at
// a time, so every other call waits; the limits bound how many may wait,
// so that no client can queue work for hours, and the turns go round the
// sessions, so that no session's queue holds back another's call for
// longer than one call of each session ahead of it.
type Limits struct {
	// SessionCalls is how many calls one session (one client connection)
	// may have running or waiting; a call past it is answered at once with
	// a tool error that says so. 0 means DefaultSessionCalls.
	SessionCalls int
	// TotalCalls is how many calls all sessions together may have running
	// or waiting; 0 means DefaultTotalCalls.
	TotalCalls int
}

// busyError is a call refused because a limit is reached.
type busyError struct {
	session bool
	limit   int
}

func (e *busyError) Error() string {
	if e.session {
		return fmt.Sprintf("this session already has %d tool calls running or waiting, the most it may: wait for their results before calling again", e.limit)
	}
	return fmt.Sprintf("the server already holds %d tool calls of all its clients, the most it may: wait a moment and call again", e.limit)
}

// gate runs one call at a time and gives the turns round the sessions
// that have calls waiting, one call each per round: when a call ends, its
// session goes to the back of the line, and the turn goes to the session
// at the front; a session served with more calls waiting goes to the
// back. A call that comes waits for the call running and for at most one
// call of each session in line before it.
type gate struct {
	lim Limits

	mu      sync.Mutex
	busy    bool            // a call holds the turn
	held    map[any]int     // calls running or waiting, per session
	total   int             // the sum of held
	waiting map[any][]*turn // each session's waiting calls, in order
	line    []any           // the sessions with waiting calls, in turn order
}

// turn is a waiting call; ready is closed when it is given the turn.
type turn struct {
	ready chan struct{}
	given bool
}

func newGate(lim Limits) *gate {
	if lim.SessionCalls <= 0 {
		lim.SessionCalls = DefaultSessionCalls
	}
	if lim.TotalCalls <= 0 {
		lim.TotalCalls = DefaultTotalCalls
	}
	return &gate{lim: lim, held: map[any]int{}, waiting: map[any][]*turn{}}
}

// enter admits a call of session, or refuses it with a *busyError, and
// waits for its turn. It returns ctx's error if ctx ends first. After a
// nil error the caller runs its call, then calls leave(session).
func (g *gate) enter(ctx context.Context, session any) error {
	g.mu.Lock()
	switch {
	case g.held[session] >= g.lim.SessionCalls:
		g.mu.Unlock()
		return &busyError{session: true, limit: g.lim.SessionCalls}
	case g.total >= g.lim.TotalCalls:
		g.mu.Unlock()
		return &busyError{limit: g.lim.TotalCalls}
	}
	g.held[session]++
	g.total++
	if !g.busy {
		g.busy = true
		g.mu.Unlock()
		return nil
	}
	t := &turn{ready: make(chan struct{})}
	if len(g.waiting[session]) == 0 {
		g.line = append(g.line, session)
	}
	g.waiting[session] = append(g.waiting[session], t)
	g.mu.Unlock()

	select {
	case <-t.ready:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if t.given { // given the turn as ctx ended: pass it on
		g.mu.Unlock()
		g.leave(session)
		return ctx.Err()
	}
	q := slices.DeleteFunc(g.waiting[session], func(x *turn) bool { return x == t })
	if len(q) == 0 {
		delete(g.waiting, session)
		g.line = slices.DeleteFunc(g.line, func(s any) bool { return s == session })
	} else {
		g.waiting[session] = q
	}
	g.release(session)
	g.mu.Unlock()
	return ctx.Err()
}

// leave ends a call of session that enter admitted, and gives the turn to
// the next.
func (g *gate) leave(session any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.release(session)
	if len(g.line) == 0 {
		g.busy = false
		return
	}
	// The session whose call ended has had its turn: behind every other.
	if i := slices.Index(g.line, session); i >= 0 {
		g.line = append(slices.Delete(g.line, i, i+1), session)
	}
	next := g.line[0]
	g.line = g.line[1:]
	q := g.waiting[next]
	t := q[0]
	if q = q[1:]; len(q) > 0 {
		g.waiting[next] = q
		g.line = append(g.line, next)
	} else {
		delete(g.waiting, next)
	}
	t.given = true
	close(t.ready)
}

// release forgets one call of session; g.mu is held.
func (g *gate) release(session any) {
	g.total--
	if g.held[session]--; g.held[session] <= 0 {
		delete(g.held, session)
	}
}

// count reports the calls running or waiting.
func (g *gate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total
}
