package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestMCP_NonLoopbackHTTPAddressIsAUsageErrorUnlessAllowed(t *testing.T) {
	dir := t.TempDir()
	if code := run(context.Background(), []string{"mcp", "--bundle", dir, "--http", "0.0.0.0:0"}); code != exitUsage {
		t.Errorf("--http 0.0.0.0:0: exit code %d, want %d", code, exitUsage)
	}
	// Allowed, it gets past the check to the empty directory.
	if code := run(context.Background(), []string{"mcp", "--bundle", dir, "--http", "0.0.0.0:0", "--allow-remote"}); code != exitFailed {
		t.Errorf("--http 0.0.0.0:0 --allow-remote: exit code %d, want %d", code, exitFailed)
	}
}

func TestMCP_CallLimitsBelowOneAreAUsageError(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--session-calls=0", "--total-calls=-1"} {
		if code := run(context.Background(), []string{"mcp", "--bundle", dir, flag}); code != exitUsage {
			t.Errorf("%s: exit code %d, want %d", flag, code, exitUsage)
		}
	}
}

// TestServeMCP_StopsWithAStreamAndASpareConnectionOpen: an MCP client
// holds an event stream open (GET /mcp, answered as text/event-stream and
// never ended by the server) and a browser-like client a connection that
// has sent nothing; stopping the server closes both and returns no error,
// within the grace for calls in flight.
func TestServeMCP_StopsWithAStreamAndASpareConnectionOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // serveMCP listens on the address itself
	streaming := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(streaming)
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	g := &globals{log: slog.New(slog.DiscardHandler)}
	go func() { done <- serveMCP(ctx, g, addr, h) }()
	resp := getWhenListening(t, "http://"+addr+"/mcp")
	defer func() { _ = resp.Body.Close() }()
	<-streaming
	spare, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = spare.Close() }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveMCP: %v", err)
		}
	case <-time.After(mcpGrace + 10*time.Second):
		t.Fatal("serveMCP did not return")
	}
	read := make(chan error, 1)
	go func() { _, err := resp.Body.Read(make([]byte, 1)); read <- err }()
	select {
	case err := <-read:
		if err == nil {
			t.Error("the event stream sent more")
		}
	case <-time.After(5 * time.Second):
		t.Error("the event stream is still open")
		_ = resp.Body.Close()
	}
	_ = spare.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := spare.Read(make([]byte, 1)); err == nil {
		t.Error("the spare connection is still open")
	}
}

// getWhenListening GETs url, retrying for a second while the server
// starts listening.
func getWhenListening(t *testing.T, url string) *http.Response {
	t.Helper()
	for try := 0; ; try++ {
		resp, err := http.Get(url)
		if err == nil {
			return resp
		}
		if try == 50 {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
