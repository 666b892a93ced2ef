// Package mcp serves an agent.Toolbox over the Model Context Protocol, on
// the official SDK (github.com/modelcontextprotocol/go-sdk), the one
// importer of it: the same tools the loop offers, each marked read-only,
// over stdio or streamable HTTP on a loopback address. An MCP client's own
// model then calls ls, cat, query and the rest on a bundle. Over HTTP a
// request must name a loopback host (or the address it came in on), and a
// browser's request must come from the server's own origin, so that a web
// page cannot reach the tools through the user's browser (docs/agent.md).
//
// The toolbox runs one call at a time; Limits bound the calls a session
// and all sessions may hold, and the turns go round the sessions (gate.go).
// One request is one JSON-RPC message: a batch is refused, over HTTP
// (http.go) and over stdio, where a line that is not a message is answered
// with JSON-RPC's error for it and the server reads on (stdio.go).
package mcp
