package review

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"kgforge/internal/httpstop"
)

// Serve serves the page on ln until ctx ends, then shuts it down, giving
// requests in flight five seconds. It bounds every connection: the
// headers of a request must arrive within DefaultReadHeaderTimeout (or
// Options.ReadTimeout if shorter) and be at most 16 KiB, the whole request
// within Options.ReadTimeout, an answer must be written within a minute,
// and an idle connection is closed after two. A client that sends its
// body too slowly gets 408 and nothing is written. A connection that has
// sent nothing yet when the page stops (a browser opens spare ones ahead
// of time) is closed at once: it holds no request to wait for.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: min(DefaultReadHeaderTimeout, s.opts.ReadTimeout),
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	httpstop.Track(srv)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve review page: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("stop review page: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve review page: %w", err)
	}
	return nil
}
