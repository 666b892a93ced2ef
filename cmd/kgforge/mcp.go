package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"kgforge/agent"
	"kgforge/agent/mcp"
	"kgforge/internal/duck"
	"kgforge/internal/httpstop"
	"kgforge/llm"

	"github.com/spf13/cobra"
)

// mcpCmd is `kgforge mcp`: the agent's tools for an MCP client.
func mcpCmd(g *globals) *cobra.Command {
	var (
		dir, addr string
		remote    bool
		lim       duck.SandboxLimits
		calls     mcp.Limits
	)
	cmd := &cobra.Command{
		Use:   "mcp --bundle DIR [--http 127.0.0.1:PORT]",
		Short: "Serve the agent's read-only tools over a bundle to an MCP client (stdio, or streamable HTTP on loopback)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if calls.SessionCalls < 1 || calls.TotalCalls < 1 {
				return usageError(fmt.Errorf("--session-calls %d, --total-calls %d: each must be at least 1", calls.SessionCalls, calls.TotalCalls))
			}
			if addr != "" {
				if err := mcp.CheckListen(addr, remote); err != nil {
					return usageError(fmt.Errorf("--http: %w", err))
				}
			}
			b, err := openBundle(dir)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			tb, err := agent.NewToolbox(cmd.Context(), b, lim)
			if err != nil {
				return sandboxError(err)
			}
			defer func() { err = errors.Join(err, tb.Close()) }()
			if client, err := llm.New(llm.Options{}); err == nil { // sems embeds its query with the bundle's model
				defer client.Close()
				tb.SetEmbedder(withQueryEmbedder(client, b))
			}
			s := mcp.NewServer(tb, buildVersion(), calls)
			if addr == "" {
				return mcp.ServeStdio(cmd.Context(), s)
			}
			return serveMCP(cmd.Context(), g, addr, mcp.Handler(s))
		},
	}
	cmd.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP at HOST:PORT (path /mcp) instead of stdio; a loopback address")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "let --http listen on a non-loopback address (the server has no authentication: put an authenticating proxy in front)")
	cmd.Flags().IntVar(&calls.SessionCalls, "session-calls", mcp.DefaultSessionCalls, "tool calls one client session may have running or waiting; more are answered busy at once")
	cmd.Flags().IntVar(&calls.TotalCalls, "total-calls", mcp.DefaultTotalCalls, "tool calls all sessions together may have running or waiting; more are answered busy at once")
	sandboxFlags(cmd, &lim)
	return cmd
}

// serveMCP serves h at addr under /mcp until ctx ends. Stopping gives
// calls in flight five seconds; a client's event stream, which never ends
// by itself, is closed then, and a connection that has sent nothing yet
// at once (internal/httpstop).
func serveMCP(ctx context.Context, g *globals, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageError(fmt.Errorf("--http %s: %w", addr, err))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	httpstop.Track(srv)
	fmt.Fprintf(os.Stderr, "kgforge mcp: serving http://%s/mcp (Ctrl-C to stop)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	g.log.Info("mcp server stopping")
	forced, err := httpstop.Stop(srv, mcpGrace)
	if forced {
		g.log.Info("mcp server closed the streams still open", "grace", mcpGrace)
	}
	if err != nil {
		return fmt.Errorf("stop mcp server: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// mcpGrace is how long stopping the MCP server waits for calls in flight.
const mcpGrace = 5 * time.Second

// buildVersion is the module version the binary was built from.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
