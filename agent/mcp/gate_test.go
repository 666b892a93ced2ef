package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// waitCount polls g until it holds n calls; a minute is far more than it
// needs.
func waitCount(t *testing.T, g *gate, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); g.count() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the gate holds %d calls, want %d", g.count(), n)
		}
	}
}

// TestGate_TurnsGoRoundTheSessions: with A's call running and two more of
// A's waiting, B's and C's calls, queued after them, run before A's
// second: the turns go A, B, C, A, A.
func TestGate_TurnsGoRoundTheSessions(t *testing.T) {
	g := newGate(Limits{})
	ran := make(chan string, 8)
	call := func(session string) {
		if err := g.enter(context.Background(), session); err != nil {
			t.Error(err)
			return
		}
		ran <- session
		// The test lets each call end by reading the next one's name.
	}
	if err := g.enter(context.Background(), "A"); err != nil {
		t.Fatal(err)
	}
	n := 1
	for _, s := range []string{"A", "A", "B", "C"} {
		go call(s)
		n++
		waitCount(t, g, n)
	}
	var order []string
	prev := "A"
	for range 4 {
		g.leave(prev)
		prev = <-ran
		order = append(order, prev)
	}
	g.leave(prev)
	if got := "A" + strings.Join(order, ""); got != "ABCAA" {
		t.Errorf("turns %s, want ABCAA", got)
	}
	waitCount(t, g, 0)
}

// TestGate_AWaitingCallThatIsCancelledLeaves: a waiting call whose
// context ends leaves the gate, and the next call still gets the turn.
func TestGate_AWaitingCallThatIsCancelledLeaves(t *testing.T) {
	g := newGate(Limits{SessionCalls: 2, TotalCalls: 2})
	if err := g.enter(context.Background(), "A"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.enter(ctx, "A") }()
	waitCount(t, g, 2)
	var be *busyError
	if err := g.enter(context.Background(), "B"); !errors.As(err, &be) || be.session {
		t.Errorf("a third call past TotalCalls 2: %v, want the server's busy error", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call: %v", err)
	}
	waitCount(t, g, 1)
	go func() { done <- g.enter(context.Background(), "B") }()
	waitCount(t, g, 2)
	g.leave("A")
	if err := <-done; err != nil {
		t.Errorf("B after A left: %v", err)
	}
	g.leave("B")
	waitCount(t, g, 0)
}
