package main

import (
	"errors"
	"fmt"

	"kgforge/bundle"
	"kgforge/load"

	"github.com/spf13/cobra"
)

func loadCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "load", Short: "Load a bundle into a database"}
	var (
		dir   string
		batch int
	)
	neo := &cobra.Command{
		Use:   "neo4j --bundle DIR",
		Short: "Load a bundle into Neo4j (NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if dir == "" {
				return usageError(errors.New("--bundle is required"))
			}
			cfg := neo4jFromEnv(batch)
			if cfg == nil {
				return usageError(errors.New("NEO4J_URI is not set"))
			}
			b, err := bundle.Open(dir)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			l, err := load.New(cmd.Context(), *cfg, g.log)
			if err != nil {
				return err
			}
			st, err := l.Load(cmd.Context(), b)
			err = errors.Join(err, l.Close(cmd.Context()))
			if err != nil {
				return err
			}
			fmt.Printf("loaded build %s: %d nodes, %d relationships, %d stale removed in %s\n",
				b.Manifest.BuildID, st.Nodes, st.Relationships, st.StaleRemoved, st.Duration.Round(1e6))
			return nil
		},
	}
	neo.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	neo.Flags().IntVar(&batch, "batch-size", 5000, "rows per UNWIND batch")
	cmd.AddCommand(neo)
	return cmd
}
