package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func queryCmd(*globals) *cobra.Command {
	var (
		dir     string
		maxRows int
	)
	cmd := &cobra.Command{
		Use:   `query --bundle DIR "SQL"`,
		Short: "Run one read-only SQL statement over a bundle (graph views and data tables)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			b, err := openBundle(dir)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			sb, err := b.Sandbox(cmd.Context())
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, sb.Close()) }()
			cols, rows, truncated, err := sb.Query(cmd.Context(), args[0], maxRows)
			if err != nil {
				return fmt.Errorf("query bundle %s: %w", b.Dir, err)
			}
			fmt.Println(strings.Join(cols, "\t"))
			for _, r := range rows {
				fmt.Println(strings.Join(r, "\t"))
			}
			if truncated {
				fmt.Printf("(first %d rows; raise --max-rows for more)\n", maxRows)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	cmd.Flags().IntVar(&maxRows, "max-rows", 100, "most rows to print")
	return cmd
}
