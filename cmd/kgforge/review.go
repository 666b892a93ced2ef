package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/user"
	"time"

	"kgforge/review"

	"github.com/spf13/cobra"
)

// reviewCmd is `kgforge review`: the merge-review page.
func reviewCmd(g *globals) *cobra.Command {
	var dir, overrides, addr, by string
	cmd := &cobra.Command{
		Use:   "review --bundle DIR --overrides FILE [--addr 127.0.0.1:8765] [--by NAME]",
		Short: "Serve a web page to review a bundle's merges; decisions go to the overrides file that every build applies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if overrides == "" {
				return usageError(errors.New("--overrides is required: the YAML file the decisions are written to (docs/review.md)"))
			}
			b, err := openBundle(dir)
			if err != nil {
				return err
			}
			s, err := review.New(cmd.Context(), b, review.Options{Overrides: overrides, By: cmp.Or(by, reviewer()), Logger: g.log})
			if err = errors.Join(err, b.Close()); err != nil { // the server holds what it needs in memory
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageError(fmt.Errorf("--addr %s: %w", addr, err))
			}
			if host, _, _ := net.SplitHostPort(addr); !isLoopback(host) {
				g.log.Warn("the review page has no login: anyone who can reach the address can decide", "addr", addr)
			}
			fmt.Printf("reviewing %d items of build %s at http://%s/ (decisions go to %s; Ctrl-C to stop)\n",
				len(s.Items()), s.BuildID(), ln.Addr(), overrides)
			return serve(cmd.Context(), ln, s)
		},
	}
	cmd.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	cmd.Flags().StringVar(&overrides, "overrides", "", "overrides file the decisions are written to (created if missing)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8765", "address to listen on; keep it on loopback, the page has no login")
	cmd.Flags().StringVar(&by, "by", "", "who decides, recorded with each decision (default: $USER)")
	return cmd
}

// serve runs the page until ctx ends, then shuts it down.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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

// reviewer is who decides when --by is not given.
func reviewer() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
