// Package httpstop stops kgforge's HTTP servers (the review page, the MCP
// server) promptly. http.Server.Shutdown closes idle connections and waits
// for requests in flight, but a connection that has not yet sent a byte
// (a browser's spare, preconnected socket) counts as idle only after five
// seconds, and a request that never ends by itself (an MCP client's event
// stream) is waited for until the deadline. Track closes the first kind
// when shutdown starts; Stop closes the second kind when the grace ends.
package httpstop
