package main

import (
	"errors"
	"fmt"
	"time"

	"kgforge/bundle"
	"kgforge/load"

	"github.com/spf13/cobra"
)

func loadCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "load", Short: "Load a bundle into a database"}
	var (
		dir        string
		batch      int
		full       bool
		maxChanges int
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
			if maxChanges < 0 {
				return usageError(fmt.Errorf("--max-changes %d: must be 0 (the default, %d) or more", maxChanges, load.DefaultMaxChanges))
			}
			cfg.Full, cfg.MaxChanges = full, maxChanges
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
			if errors.Is(err, load.ErrGraphBusy) {
				return &exitError{code: exitBusy, err: err}
			}
			if err != nil {
				return err
			}
			fmt.Print(termText(fmt.Sprintf("loaded build %s: %s\n", b.Manifest.BuildID, neo4jSummary(st))))
			return nil
		},
	}
	neo.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	neo.Flags().IntVar(&batch, "batch-size", 5000, "rows per UNWIND batch")
	neo.Flags().BoolVar(&full, "full", false, "load the bundle as a new staged build even when an incremental load is possible")
	neo.Flags().IntVar(&maxChanges, "max-changes", 0,
		fmt.Sprintf("most nodes and relationships an incremental load changes in its one transaction; more load in full (0: %d)", load.DefaultMaxChanges))
	cmd.AddCommand(neo)
	return cmd
}

// neo4jSummary says in one line what a load did: in full, what it wrote;
// incrementally, what it added, removed and changed.
func neo4jSummary(st load.Stats) string {
	d := st.Duration.Round(time.Millisecond)
	switch {
	case st.AlreadyLoaded:
		return fmt.Sprintf("already loaded (%d nodes, %d relationships), nothing written, %s", st.Nodes, st.Relationships, d)
	case st.Mode == load.ModeIncremental && st.Changes != nil:
		n, r := st.Changes.Nodes, st.Changes.Relationships
		return fmt.Sprintf("incremental over build %s: nodes %d added, %d removed, %d changed, %d unchanged; "+
			"relationships %d added, %d removed, %d changed, %d unchanged; %s", st.Previous, n.Added, n.Removed, n.Changed, n.Unchanged,
			r.Added, r.Removed, r.Changed, r.Unchanged, d)
	}
	return fmt.Sprintf("full (%s): %d nodes, %d relationships, %d stale removed, %s", st.Reason, st.Nodes, st.Relationships, st.StaleRemoved, d)
}
