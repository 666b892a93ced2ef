package main

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/user"

	"kgforge/review"

	"github.com/spf13/cobra"
)

// reviewCmd is `kgforge review`: the merge-review page.
func reviewCmd(g *globals) *cobra.Command {
	var dir, overrides, addr, by string
	var allowHosts []string
	cmd := &cobra.Command{
		Use:   "review --bundle DIR --overrides FILE [--addr 127.0.0.1:8765] [--allow-host NAME]... [--by NAME]",
		Short: "Serve a web page to review a bundle's merges; decisions go to the overrides file that every build applies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if overrides == "" {
				return usageError(errors.New("--overrides is required: the YAML file the decisions are written to (docs/review.md)"))
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return usageError(fmt.Errorf("--addr %s: want HOST:PORT, for example 127.0.0.1:8765", addr))
			}
			if everyInterface(host) && len(allowHosts) == 0 {
				return usageError(fmt.Errorf("--addr %s listens on every interface: name the hosts a browser will use to reach the page "+
					"with --allow-host (for example --allow-host review.example.org), or listen on one address (docs/review.md)", addr))
			}
			b, err := openBundle(dir)
			if err != nil {
				return err
			}
			s, err := review.New(cmd.Context(), b, review.Options{Overrides: overrides, By: cmp.Or(by, reviewer()), AllowHosts: allowHosts, Logger: g.log})
			if err = errors.Join(err, b.Close()); err != nil { // the server holds what it needs in memory
				if errors.Is(err, review.ErrOverridesInBundle) {
					return usageError(fmt.Errorf("--overrides: %w", err))
				}
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageError(fmt.Errorf("--addr %s: %w", addr, err))
			}
			if !isLoopback(host) {
				g.log.Warn("the review page has no login: anyone who can reach the address can decide", "addr", addr)
			}
			fmt.Print(termText(fmt.Sprintf("reviewing %d items of build %s at http://%s/ (decisions go to %s; Ctrl-C to stop)\n",
				len(s.Items()), s.BuildID(), ln.Addr(), overrides)))
			return s.Serve(cmd.Context(), ln)
		},
	}
	cmd.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	cmd.Flags().StringVar(&overrides, "overrides", "", "overrides file the decisions are written to (created if missing)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8765", "address to listen on; keep it on loopback, the page has no login")
	cmd.Flags().StringSliceVar(&allowHosts, "allow-host", nil, "a host name the page answers to besides loopback and the address it listens on (repeatable; required with --addr 0.0.0.0:PORT)")
	cmd.Flags().StringVar(&by, "by", "", "who decides, recorded with each decision (default: $USER)")
	return cmd
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
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// everyInterface reports whether host, of a listen address, means every
// interface of the machine: empty, 0.0.0.0 or ::.
func everyInterface(host string) bool {
	ip, err := netip.ParseAddr(host)
	return host == "" || (err == nil && ip.IsUnspecified())
}
