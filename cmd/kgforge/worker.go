package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"
	"kgforge/stages/temporal"

	"github.com/spf13/cobra"
)

func workerCmd(g *globals) *cobra.Command {
	var (
		srv        temporal.Server
		activities int
	)
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run the units of `build --engine temporal` builds as Temporal activities (docs/temporal.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if activities < 1 {
				return usageError(fmt.Errorf("--activities %d: run at least one activity at once", activities))
			}
			host, _ := os.Hostname()
			id := fmt.Sprintf("%d@%s", os.Getpid(), host)
			acts := &temporal.Activities{NewRunner: unitRunner(g), Log: g.log, Identity: id}
			return temporal.RunWorker(cmd.Context(), acts, temporal.WorkerOptions{Server: srv, Activities: activities, Identity: id, Log: g.log})
		},
	}
	env := temporal.ServerFromEnv()
	cmd.Flags().StringVar(&srv.Address, "address", cmp.Or(env.Address, "127.0.0.1:7233"), "Temporal frontend host:port (default: $TEMPORAL_ADDRESS)")
	cmd.Flags().StringVar(&srv.Namespace, "namespace", cmp.Or(env.Namespace, "default"), "Temporal namespace (default: $TEMPORAL_NAMESPACE)")
	cmd.Flags().StringVar(&srv.TaskQueue, "task-queue", cmp.Or(env.TaskQueue, temporal.DefaultTaskQueue), "task queue (default: $KGFORGE_TASK_QUEUE)")
	cmd.Flags().IntVar(&activities, "activities", 1, "activities run at once; one shard keeps the LLM server's llm.concurrency slots busy")
	return cmd
}

// unitRunner makes each activity's runner as `kgforge build` makes its
// own: a new LLM client (so its usage is the activity's), the cache
// directory, and Neo4j by the pipeline's neo4j.mode and this process's
// NEO4J_URI.
func unitRunner(g *globals) func(p *pipelines.Pipeline) (*stages.Runner, func(), error) {
	return func(p *pipelines.Pipeline) (*stages.Runner, func(), error) {
		client, err := llm.New(llmOptions(p))
		if err != nil {
			return nil, nil, err
		}
		rn := &stages.Runner{LLM: client, CacheDir: cacheDir(), Log: g.log}
		switch p.Neo4j.Mode {
		case pipelines.Neo4jAuto:
			rn.Neo4j = neo4jFromEnv(p.Neo4j.BatchSize)
		case pipelines.Neo4jAlways:
			if rn.Neo4j = neo4jFromEnv(p.Neo4j.BatchSize); rn.Neo4j == nil {
				client.Close()
				return nil, nil, errors.New("pipeline " + p.Path + ": neo4j.mode is always but the worker's NEO4J_URI is not set")
			}
		case pipelines.Neo4jNever:
		}
		return rn, client.Close, nil
	}
}

// engineRun returns how a build runs: in this process (local), or as a
// workflow on `kgforge worker` processes (temporal), followed to its end.
func engineRun(engine string, rn *stages.Runner, shards int, g *globals) (func(context.Context, *pipelines.Pipeline) (*stages.Report, error), error) {
	switch engine {
	case "local":
		return rn.Run, nil
	case "temporal":
	default:
		return nil, fmt.Errorf("--engine %q: must be local or temporal", engine)
	}
	if shards < 1 {
		return nil, fmt.Errorf("--shards %d: split the build into at least one shard", shards)
	}
	return func(ctx context.Context, p *pipelines.Pipeline) (*stages.Report, error) {
		in, err := temporalBuild(p, rn.OutDir, shards, rn.Keep)
		if err != nil {
			return nil, usageError(err)
		}
		return temporal.Run(ctx, in, temporal.BuildOptions{Server: temporal.ServerFromEnv(), Log: g.log})
	}, nil
}

// temporalBuild is the workflow's input: absolute paths, which the
// workers must see as they are (a shared volume mounted at one path).
func temporalBuild(p *pipelines.Pipeline, outDir string, shards, keep int) (temporal.Build, error) {
	pl, err := filepath.Abs(p.Path)
	if err != nil {
		return temporal.Build{}, fmt.Errorf("pipeline %s: %w", p.Path, err)
	}
	out, err := filepath.Abs(cmp.Or(outDir, p.Resolve(p.Output)))
	if err != nil {
		return temporal.Build{}, fmt.Errorf("output directory: %w", err)
	}
	return temporal.Build{Pipeline: pl, PipelineSHA256: p.SHA256, OutDir: out, Shards: shards, Keep: keep}, nil
}
