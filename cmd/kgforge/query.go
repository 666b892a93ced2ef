package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"kgforge/internal/duck"

	"github.com/spf13/cobra"
)

// maxStdinSQL bounds the SQL read from stdin.
const maxStdinSQL = 1 << 20

func queryCmd(*globals) *cobra.Command {
	var (
		dir     string
		maxRows int
		lim     duck.SandboxLimits
	)
	cmd := &cobra.Command{
		Use:   `query --bundle DIR "SQL" | -`,
		Short: "Run one read-only SQL statement over a bundle (graph tables and data tables)",
		Long: `Run one read-only SQL statement (DuckDB dialect) over a bundle: SELECT, WITH, FROM,
VALUES, TABLE, DESCRIBE, SHOW or SUMMARIZE. "-" reads the statement from stdin.
SQL that begins with a comment ("-- ...") is SQL, never a flag; "--" ends the flags.`,
		// pflag would read "-- comment\nSELECT 1" as a flag: RunE parses
		// the flags itself, after setting such arguments apart.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, raw []string) error {
			cmd.InheritedFlags() // merges the global flags (-v, --log-format) into cmd.Flags()
			if err := cmd.Flags().Parse(sqlAfterFlags(raw)); err != nil {
				return usageError(err)
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			q, err := sqlArg(cmd.InOrStdin(), cmd.Flags().Args())
			if err != nil {
				return usageError(err)
			}
			return runQuery(cmd, dir, q, maxRows, lim)
		},
	}
	cmd.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	cmd.Flags().IntVar(&maxRows, "max-rows", 100, "most rows to print")
	sandboxFlags(cmd, &lim)
	return cmd
}

func runQuery(cmd *cobra.Command, dir, q string, maxRows int, lim duck.SandboxLimits) (err error) {
	b, err := openBundle(dir)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	sb, err := b.SandboxWithLimits(cmd.Context(), lim)
	if err != nil {
		return sandboxError(err)
	}
	defer func() { err = errors.Join(err, sb.Close()) }()
	cols, rows, truncated, err := sb.Query(cmd.Context(), q, maxRows)
	if err != nil {
		return fmt.Errorf("query bundle %s: %w", b.Dir, sandboxError(err))
	}
	var out strings.Builder
	writeRow(&out, cols)
	for _, r := range rows {
		writeRow(&out, r)
	}
	if truncated {
		fmt.Fprintf(&out, "(first %d rows; raise --max-rows for more)\n", maxRows)
	}
	_, err = io.WriteString(cmd.OutOrStdout(), out.String())
	return err
}

// writeRow writes one line of tab-separated cells, each escaped (termCell):
// a cell holds whatever a document or the model wrote.
func writeRow(w *strings.Builder, cells []string) {
	for i, c := range cells {
		if i > 0 {
			w.WriteByte('\t')
		}
		w.WriteString(termCell(c))
	}
	w.WriteByte('\n')
}

// sandboxFlags binds the flags of the SQL sandbox's limits (query and ask).
func sandboxFlags(cmd *cobra.Command, lim *duck.SandboxLimits) {
	fs := cmd.Flags()
	fs.DurationVar(&lim.Timeout, "timeout", duck.DefaultQueryTimeout, "stop a SQL query after this long")
	fs.StringVar(&lim.MemoryLimit, "memory-limit", duck.DefaultMemoryLimit, "memory of the SQL sandbox, the bundle's graph tables included (e.g. 512MB, 4GiB)")
	fs.IntVar(&lim.Threads, "threads", duck.DefaultThreads, "DuckDB threads of the SQL sandbox")
}

// sandboxError says which flag raises a limit that stopped a query, and
// makes bad limits a usage error.
func sandboxError(err error) error {
	switch {
	case errors.Is(err, duck.ErrBadLimits):
		return usageError(err)
	case errors.Is(err, duck.ErrTimeLimit):
		return fmt.Errorf("%w (--timeout raises the limit)", err)
	case errors.Is(err, duck.ErrMemoryLimit):
		return fmt.Errorf("%w (--memory-limit raises the limit)", err)
	}
	return err
}

// sqlAfterFlags moves every argument that is SQL beginning with a line
// comment ("--" then a space or a line break) behind "--", where pflag reads
// no flags. No flag name begins with a space, so no flag is lost.
func sqlAfterFlags(raw []string) []string {
	var flags, sql []string
	for i, a := range raw {
		if a == "--" {
			sql = append(sql, raw[i+1:]...)
			break
		}
		if len(a) > 2 && strings.HasPrefix(a, "--") && unicode.IsSpace(rune(a[2])) {
			sql = append(sql, a)
		} else {
			flags = append(flags, a)
		}
	}
	return append(append(flags, "--"), sql...)
}

// sqlArg returns the one SQL statement of args, read from stdin when it is "-".
func sqlArg(stdin io.Reader, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("query takes one SQL statement, not %d arguments: quote it, or give - and write it on stdin", len(args))
	}
	if args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxStdinSQL+1))
	if err != nil {
		return "", fmt.Errorf("read SQL from stdin: %w", err)
	}
	if len(b) > maxStdinSQL {
		return "", fmt.Errorf("SQL on stdin is longer than %d bytes", maxStdinSQL)
	}
	return string(b), nil
}
