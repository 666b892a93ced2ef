package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine is the longest JSON-RPC message the server reads, a line over
// stdio or a request body over HTTP. A tool call is a few hundred bytes.
const MaxLine = 1 << 20

// lineTransport is the stdio transport: one JSON-RPC message a line. The
// SDK's own ends the session at the first line it cannot decode, and
// takes a batch of calls on one line; this one answers such a line with
// JSON-RPC's error for it (-32700 parse error, -32600 invalid request)
// and reads on.
type lineTransport struct {
	in  io.ReadCloser
	out io.Writer
}

// Connect starts reading in.
func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{in: t.in, out: t.out, msgs: make(chan jsonrpc.Message), done: make(chan struct{}), readErr: make(chan error, 1)}
	go c.read()
	return c, nil
}

// lineConn is a lineTransport's connection.
type lineConn struct {
	in      io.ReadCloser
	out     io.Writer
	wmu     sync.Mutex // one line at a time on out
	msgs    chan jsonrpc.Message
	readErr chan error // the end of in, after the last message
	done    chan struct{}
	once    sync.Once
}

// read reads in line by line until it ends or the connection is closed,
// passing on each message and answering each line that is none.
func (c *lineConn) read() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, long, err := readLine(r, MaxLine)
		if reply := c.take(line, long); reply != nil {
			if werr := c.writeLine(reply); werr != nil {
				c.readErr <- werr
				return
			}
		}
		if err != nil {
			c.readErr <- err
			return
		}
		select {
		case <-c.done:
			return
		default:
		}
	}
}

// take passes on the message on line, and returns the error reply for a
// line that holds none; nil for a blank line.
func (c *lineConn) take(line []byte, long bool) []byte {
	line = bytes.TrimSpace(line)
	switch {
	case long:
		return errorReply(jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message of over %d bytes: send one request a line, each under that", MaxLine))
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		return errorReply(jsonrpc.CodeParseError, "parse error: the line is not JSON; send one JSON-RPC message a line")
	case line[0] == '[':
		return errorReply(jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not served: send one request a line")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return errorReply(jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %v", err))
	}
	select {
	case c.msgs <- msg:
	case <-c.done:
	}
	return nil
}

// readLine reads one line of r. A line past limit bytes (its end aside)
// is read to its end and dropped: long is set and line is empty.
func readLine(r *bufio.Reader, limit int) (line []byte, long bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(part) > limit+2 { // "\r\n"
				long, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}

// errorReply is a JSON-RPC error response to a message whose id cannot be
// known.
func errorReply(code int64, msg string) []byte {
	b, _ := json.Marshal(struct { // cannot fail: strings and numbers
		Version string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{"2.0", nil, jsonrpc.Error{Code: code, Message: msg}})
	return b
}

// Read returns the next message.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.msgs:
		return msg, nil
	case err := <-c.readErr:
		c.readErr <- err // for a later Read
		return nil, err
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write writes msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close stops reading and closes in.
func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		err = c.in.Close()
	})
	return err
}

// SessionID is empty: a stdio connection is its own session.
func (c *lineConn) SessionID() string { return "" }
