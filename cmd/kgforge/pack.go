package main

import (
	"errors"
	"fmt"
	"strings"

	"kgforge/bundle"

	"github.com/spf13/cobra"
)

// packCmd is `kgforge bundle pack`: a bundle as one .tar file.
func packCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "pack DIR [--out FILE.tar]",
		Short: "Write a bundle as one uncompressed .tar archive that bundle verify, load and ask accept",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) (err error) {
			if out != "" && !strings.HasSuffix(out, bundle.ArchiveExt) {
				return usageError(fmt.Errorf("--out %s: the archive's name must end in %s", out, bundle.ArchiveExt))
			}
			b, err := bundle.Open(args[0])
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			if out == "" {
				out = b.Manifest.BuildID + bundle.ArchiveExt
			}
			if err := b.Pack(out); err != nil {
				return err
			}
			fmt.Print(termText(fmt.Sprintf("packed build %s into %s\n", b.Manifest.BuildID, out)))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "archive to write (default: BUILD_ID.tar in the current directory)")
	return cmd
}
