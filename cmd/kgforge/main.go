package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"kgforge/bundle"
	"kgforge/load"
	"kgforge/stages"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitPartial = 3
	exitBusy    = 4 // another build holds the output directory's lock, or another load the Neo4j graph's; nothing was done
	exitBudget  = 5 // the build stopped at its token budget; nothing was published, finished units are kept
	// exitNoAnswer: ask ended a question without an answer (its budget
	// spent, or the same call failed three times in a row); the text
	// saying why is still printed.
	exitNoAnswer = 6
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// usageArgs makes a wrong number of arguments a usage error (exit 2), like
// a wrong flag.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

type globals struct {
	logFormat string
	verbose   bool
	log       *slog.Logger
	logOut    *logSink // where log lines go: stderr, or the progress bar's writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal now ends the process at once
	}()
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string) int {
	g := &globals{logOut: &logSink{w: os.Stderr}}
	root := newRoot(g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitFailed
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if g.log != nil && g.logFormat == "json" {
		g.log.Error("kgforge failed", "err", err.Error(), "exit_code", code) // a scheduler's log stays one JSON object a line
	} else {
		fmt.Fprintln(os.Stderr, "kgforge:", termText(err.Error())) // an error may quote a document or the model
	}
	return code
}

// newRoot returns the command tree.
func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "kgforge",
		Short:         "Build hybrid knowledge graphs from documents and tables",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			level := slog.LevelInfo
			if g.verbose {
				level = slog.LevelDebug
			}
			opts := &slog.HandlerOptions{Level: level}
			switch g.logFormat {
			case "text":
				g.log = slog.New(slog.NewTextHandler(g.logOut, opts))
			case "json":
				g.log = slog.New(slog.NewJSONHandler(g.logOut, opts))
			default:
				return usageError(fmt.Errorf("--log-format %q: must be text or json", g.logFormat))
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "text", "log format on stderr: text or json")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "log debug messages")
	root.AddCommand(buildCmd(g), validateCmd(), graphDiffCmd(), askCmd(g), workerCmd(g), mcpCmd(g), queryCmd(g), loadCmd(g), bundleCmd(g), reviewCmd(g), evalCmd(g))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	return root
}

// cacheDir returns kgforge's cache directory.
func cacheDir() string { return stages.DefaultCacheDir() }

// neo4jFromEnv returns the Neo4j settings from the usual variables, or nil
// when NEO4J_URI is not set.
func neo4jFromEnv(batch int) *load.Config {
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		return nil
	}
	return &load.Config{
		URI: uri, Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"), BatchSize: batch,
	}
}

// openBundle opens the bundle a --bundle flag names.
func openBundle(dir string) (*bundle.Bundle, error) {
	if dir == "" {
		return nil, usageError(errors.New("--bundle is required"))
	}
	return bundle.Open(dir)
}
