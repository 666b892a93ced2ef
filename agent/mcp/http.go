package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// oneMessage lets a POST through only when its body is at most MaxLine
// bytes and is not a JSON-RPC batch, which would run its calls as one
// request (protocol versions before 2025-06-18 allow them): one request,
// one message. Others are answered with JSON-RPC's error and nothing runs.
func oneMessage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxLine))
		if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
			replyError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message of over %d bytes: send one request a POST, under that", MaxLine))
			return
		}
		if err != nil {
			replyError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "read the body: "+err.Error())
			return
		}
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
			replyError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not served: send one request a POST")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// replyError answers with a JSON-RPC error response of code.
func replyError(w http.ResponseWriter, status int, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(errorReply(code, msg), '\n')) // an error means the client went away
}
