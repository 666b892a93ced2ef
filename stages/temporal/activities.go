package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kgforge/pipelines"
	"kgforge/stages"

	"go.temporal.io/sdk/activity"
	sdk "go.temporal.io/sdk/temporal"
)

// Activities are the units of a build as Temporal activities. Each runs a
// stages.Runner in the worker's process over the shared output directory:
// a retried attempt reuses every segment and cached reply its earlier
// attempts left, so no chunk is sent to the model twice.
type Activities struct {
	// NewRunner makes one activity's runner for p, as `kgforge build`
	// would make it (LLM client, cache directory, Neo4j settings); the
	// activity sets OutDir, Shard, Reduce, Keep and Progress. The returned
	// func releases what the runner holds.
	NewRunner func(p *pipelines.Pipeline) (*stages.Runner, func(), error)
	Log       *slog.Logger
	Identity  string // the worker's, for the shards' results
	// Beat is how often a running activity heartbeats besides once per
	// chunk (0: every 5 s): a chunk can take longer than the heartbeat
	// timeout, a live process cannot miss a beat.
	Beat time.Duration
}

// Shard runs shard in.I of in.Build.Shards: the source units and the
// extract units whose chunks hash to it.
func (a *Activities) Shard(ctx context.Context, in ShardInput) (ShardResult, error) {
	sh := stages.Shard{I: in.I, N: in.Build.Shards}
	p, rn, release, err := a.prepare(in.Build)
	if err != nil {
		return ShardResult{}, err
	}
	defer release()
	rn.Shard = sh
	info := activity.GetInfo(ctx)
	log := a.log().With("shard", sh.String(), "workflow", info.WorkflowExecution.ID, "attempt", info.Attempt)
	hb := startHeartbeat(ctx, a.Beat, log)
	defer hb.stop()
	rn.Progress = hb
	log.Info("shard started")
	start := time.Now()
	rep, err := rn.Run(ctx, p)
	if err != nil {
		log.Warn("shard failed", "err", err)
		return ShardResult{}, fmt.Errorf("shard %s of %s: %w", sh, in.Build.Pipeline, err)
	}
	res := ShardResult{
		Shard: sh.String(), Attempt: info.Attempt, Worker: a.Identity, Duration: time.Since(start),
		LLM: rep.LLM, Extract: rep.Extract, Chunks: rep.Chunks,
	}
	if rep.Plan != nil {
		res.Units, res.ChunksReused = rep.Plan.Units, rep.Plan.ChunksReused
	}
	log.Info("shard done", "chunks", rep.Extract.Chunks, "llm_calls", rep.LLM.Calls, "took", res.Duration.Round(time.Millisecond))
	return res, nil
}

// Reduce runs the global steps over the shards' segments and rewrites
// the run report with what the shards did.
func (a *Activities) Reduce(ctx context.Context, in ReduceInput) (Result, error) {
	p, rn, release, err := a.prepare(in.Build)
	if err != nil {
		return Result{}, err
	}
	defer release()
	rn.Reduce, rn.Keep = true, in.Build.Keep
	info := activity.GetInfo(ctx)
	log := a.log().With("workflow", info.WorkflowExecution.ID, "attempt", info.Attempt)
	hb := startHeartbeat(ctx, a.Beat, log)
	defer hb.stop()
	log.Info("reduce started", "shards", len(in.Shards))
	rep, err := rn.Run(ctx, p)
	var res Result
	switch {
	case errors.Is(err, stages.ErrGateFailed) && rep != nil:
		res.GateFailed = err.Error() // the bundle is written, latest is not: no retry changes that
	case err != nil:
		log.Warn("reduce failed", "err", err)
		return Result{}, fmt.Errorf("reduce of %s: %w", in.Build.Pipeline, err)
	}
	addShards(rep, in.Shards)
	res.BuildID, res.Bundle, res.Status = rep.BuildID, rep.Bundle, rep.Status
	if res.Report, err = stages.WriteReport(in.Build.OutDir, rep); err != nil {
		return Result{}, err
	}
	log.Info("reduce done", "build", rep.BuildID, "status", rep.Status)
	return res, nil
}

// prepare loads the build's pipeline, refusing one whose file changed
// since the build started, and makes the activity's runner.
func (a *Activities) prepare(in Build) (*pipelines.Pipeline, *stages.Runner, func(), error) {
	p, err := pipelines.Load(in.Pipeline)
	if err != nil {
		return nil, nil, nil, sdk.NewNonRetryableApplicationError(err.Error(), errBadInput, nil)
	}
	if p.SHA256 != in.PipelineSHA256 {
		return nil, nil, nil, sdk.NewNonRetryableApplicationError(
			fmt.Sprintf("pipeline %s changed since the build started (sha256 %.12s, now %.12s); start the build again", in.Pipeline, in.PipelineSHA256, p.SHA256),
			errBadInput, nil)
	}
	rn, release, err := a.NewRunner(p)
	if err != nil {
		return nil, nil, nil, sdk.NewNonRetryableApplicationError(err.Error(), errBadInput, nil)
	}
	rn.OutDir = in.OutDir
	return p, rn, release, nil
}

func (a *Activities) log() *slog.Logger {
	if a.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Log
}

// heartbeat is a running activity's stages.Progress: it records a
// heartbeat with the chunks done and queued at each chunk, and every beat
// period until stopped.
type heartbeat struct {
	record func(beatDetails) // records a heartbeat of the activity
	log    *slog.Logger
	stages.ProgressCounts
	quit chan struct{}
	wg   sync.WaitGroup
}

// beatDetails are a heartbeat's details, shown by `temporal workflow
// describe` for the pending activity.
type beatDetails struct {
	Queued      int64 `json:"chunks_queued"`
	Done        int64 `json:"chunks_done"`
	SourcesDone int64 `json:"sources_done"`
	Sources     int64 `json:"sources"`
}

func startHeartbeat(ctx context.Context, every time.Duration, log *slog.Logger) *heartbeat {
	if every <= 0 {
		every = 5 * time.Second
	}
	h := &heartbeat{log: log, quit: make(chan struct{})}
	h.record = func(d beatDetails) { activity.RecordHeartbeat(ctx, d) }
	h.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				h.beat()
			case <-h.quit:
				return
			case <-ctx.Done():
				return
			}
		}
	})
	return h
}

func (h *heartbeat) beat() {
	c := h.Counts()
	h.record(beatDetails{Queued: c.Queued, Done: c.Done, SourcesDone: c.SourcesDone, Sources: c.Sources})
}

func (h *heartbeat) stop() { close(h.quit); h.wg.Wait() }

// Done is stages.Progress's: a chunk's extraction ended.
func (h *heartbeat) Done() {
	h.ProgressCounts.Done()
	h.beat()
	c := h.Counts()
	h.log.Debug("chunk extracted", "done", c.Done, "queued", c.Queued)
}

// addShards adds what the shards did to the reduce's report: their model
// usage and extraction counts, the extract units they ran (which the
// reduce found stored and counted as reused) and, as the "shards" stage,
// the longest shard's time. (Rejected chunks are in the report already:
// the reduce reads them from the shards' segments.)
func addShards(rep *stages.Report, shards []ShardResult) {
	var longest time.Duration
	for _, s := range shards {
		rep.LLM = addUsage(rep.LLM, s.LLM)
		rep.Extract = addStats(rep.Extract, s.Extract)
		longest = max(longest, s.Duration)
		if rep.Plan == nil || rep.Plan.Units["extract"] == nil || s.Units["extract"] == nil {
			continue
		}
		ran := s.Units["extract"].Run
		rep.Plan.Units["extract"].Run += ran
		rep.Plan.Units["extract"].Reused -= ran
		rep.Plan.ChunksReused -= s.Chunks - s.ChunksReused
	}
	if rep.Stages == nil {
		rep.Stages = map[string]stages.StageReport{}
	}
	rep.Stages["shards"] = stages.StageReport{Duration: longest, Items: len(shards)}
	rep.TokensPS = rep.LLM.TokensPerSecond()
}
