package main

import (
	"fmt"

	"kgforge/bundle"

	"github.com/spf13/cobra"
)

// diffCmd is `kgforge bundle diff`: two bundles compared by content.
func diffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two bundles by content: files by checksum, data tables by digest; exit 1 when they differ",
		Args:  usageArgs(cobra.ExactArgs(2)),
		RunE: func(_ *cobra.Command, args []string) (err error) {
			var ms [2]bundle.Manifest
			for i, path := range args {
				b, err := bundle.Open(path)
				if err != nil {
					return err
				}
				ms[i] = b.Manifest
				if err := b.Close(); err != nil {
					return err
				}
			}
			diffs := bundle.Compare(ms[0], ms[1])
			count := map[string]int{}
			for _, d := range diffs {
				fmt.Printf("%s %s: %s\n", d.Kind, d.Name, d.Detail)
				count[d.Kind]++
			}
			if len(diffs) > 0 {
				return fmt.Errorf("bundles %s (A) and %s (B) differ: %d files, %d tables", args[0], args[1], count["file"], count["table"])
			}
			how := "data tables by digest"
			if !ms[0].HasTableDigests() || !ms[1].HasTableDigests() {
				how = bundle.DataFile + " by its bytes (a bundle before format 1.3 has no table digests)"
			}
			fmt.Printf("same content: build %s and build %s (files by checksum, %s)\n", ms[0].BuildID, ms[1].BuildID, how)
			return nil
		},
	}
}
