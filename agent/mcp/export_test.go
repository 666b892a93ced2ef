package mcp

import (
	"kgforge/agent"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewServerCounted is NewServer, and a function that reports how many
// calls its gate holds, running or waiting.
func NewServerCounted(tb *agent.Toolbox, lim Limits) (*sdk.Server, func() int) {
	s, g := newServer(tb, "test", lim)
	return s, g.count
}
