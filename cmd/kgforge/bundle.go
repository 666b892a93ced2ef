package main

import (
	"errors"
	"fmt"

	"kgforge/bundle"
	"kgforge/internal/duck"

	"github.com/spf13/cobra"
)

func bundleCmd(*globals) *cobra.Command {
	cmd := &cobra.Command{Use: "bundle", Short: "Inspect bundles"}
	cmd.AddCommand(verifyCmd(), packCmd(), bundleDiffCmd())
	return cmd
}

// verifyCmd is `kgforge bundle verify`: everything Open checks, and the
// table digests, which need every row read.
func verifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify DIR",
		Short: "Check a bundle's format version, files, checksums and the digests of its data tables",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			b, err := bundle.Open(args[0])
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			if err := b.VerifyTables(cmd.Context(), duck.Settings{}); err != nil {
				return err
			}
			m := b.Manifest
			tables := fmt.Sprintf("%d tables by content", len(m.TableDigests))
			if !m.HasTableDigests() {
				tables = "no table digests before format 1.3"
			}
			fmt.Print(termText(fmt.Sprintf("ok: %s %s build %s, %d files, %s, %d nodes, %d edges, %d chunks\n",
				m.Format, m.Version, m.BuildID, len(m.Files), tables, m.Counts["nodes"], m.Counts["edges"], m.Counts["chunks"])))
			return nil
		},
	}
}
