package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// MaxReplyBytes bounds the body of one chat or completion reply as the
// server sends it. A real reply is bounded by num_predict and takes far
// less (a reply of 128k tokens is about 1 MiB of JSON); a server that
// sends more is stopped there instead of filling memory.
const MaxReplyBytes = 8 << 20

// Errors of a reply the client stopped reading; neither is retried, since
// the same request would do the same again.
var (
	// ErrReplyTooLarge means the server sent more than MaxReplyBytes.
	ErrReplyTooLarge = errors.New("reply too large")
	// ErrReplyTimeout means the reply was still coming when the
	// per-call timeout (Options.Timeout) ran out.
	ErrReplyTimeout = errors.New("reply not finished within the timeout")
)

// replyKey carries a call's *replyGuard in its request's context, from
// Chat or Generate to the endpoint's transport.
type replyKey struct{}

// replyGuard watches the body of one reply: how much of it came and the
// first error reading it, which the api package's stream reader drops
// (a cut stream ends there as if the server had stopped).
type replyGuard struct {
	start time.Time
	read  int64
	err   error
}

// watch returns ctx carrying a new guard for the call made with it.
func watch(ctx context.Context) (context.Context, *replyGuard) {
	g := &replyGuard{start: time.Now()}
	return context.WithValue(ctx, replyKey{}, g), g
}

// check says why the reply could not be read whole, or nil when nothing
// went wrong reading it, or something that the caller judges from what
// came (a connection reset: the reply is incomplete).
func (g *replyGuard) check(ctx context.Context, timeout time.Duration) error {
	switch {
	case g.err == nil:
		return nil
	case errors.Is(g.err, ErrReplyTooLarge):
		return fmt.Errorf("%w: the server sent more than %d MiB (llm.MaxReplyBytes), the most one reply may take; stopped reading it", ErrReplyTooLarge, MaxReplyBytes>>20)
	case ctx.Err() != nil:
		return fmt.Errorf("reply cut after %d bytes: %w", g.read, ctx.Err())
	case timeout > 0 && time.Since(g.start) >= timeout:
		// The client's timeout is the one deadline that cuts a body
		// without cancelling ctx, and it cannot cut one sooner.
		return fmt.Errorf("%w: still coming after %s, the timeout of one model call (llm.timeout in the pipeline file), with %d bytes read; stopped reading it", ErrReplyTimeout, timeout, g.read)
	}
	return nil
}

// guardedTransport hands the body of each response to a call that carries
// a replyGuard through a guardedBody; other calls pass as they are.
type guardedTransport struct{ base http.RoundTripper }

func (t guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if g, ok := req.Context().Value(replyKey{}).(*replyGuard); ok && err == nil {
		resp.Body = &guardedBody{ReadCloser: resp.Body, g: g}
	}
	return resp, err
}

// CloseIdleConnections lets Client.Close reach the base transport.
func (t guardedTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// guardedBody counts what is read of a reply and records the first error.
// Only the goroutine of the call reads it.
type guardedBody struct {
	io.ReadCloser
	g *replyGuard
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.g.err != nil {
		return 0, b.g.err
	}
	if left := MaxReplyBytes + 1 - b.g.read; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.ReadCloser.Read(p)
	b.g.read += int64(n)
	if b.g.read > MaxReplyBytes {
		err = ErrReplyTooLarge
	}
	if err != nil && !errors.Is(err, io.EOF) {
		b.g.err = err
	}
	return n, err
}
