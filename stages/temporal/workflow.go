package temporal

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"kgforge/extract"
	"kgforge/llm"
	"kgforge/stages"

	sdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names under which the worker registers the workflow and its activities.
const (
	WorkflowName   = "kgforge.build"
	ShardActivity  = "kgforge.shard"
	ReduceActivity = "kgforge.reduce"
	ProgressQuery  = "progress"
	// DefaultTaskQueue is the task queue of workers and builds unless set.
	DefaultTaskQueue = "kgforge"
	// errBadInput is the type of the errors no retry can mend (a changed
	// pipeline file, one that does not parse): the workflow fails at once.
	errBadInput = "kgforge.BadInput"
)

// Build is the workflow's input: references to what every worker reads
// from the shared volume, never the data.
type Build struct {
	// Pipeline is the pipeline file's absolute path, as the workers see
	// it; PipelineSHA256 its digest when the build started, which every
	// activity checks, so that no shard runs a file edited meanwhile.
	Pipeline       string `json:"pipeline"`
	PipelineSHA256 string `json:"pipeline_sha256"`
	// OutDir is the absolute output directory (bundles and state).
	OutDir string `json:"out_dir"`
	Shards int    `json:"shards"`
	Keep   int    `json:"keep"` // Runner.Keep of the reduce
}

// WorkflowID is the build's workflow id: a digest of the pipeline's path
// and the output directory, so that running the same build again while
// one runs attaches to it, and two builds into one directory never run at
// once.
func WorkflowID(pipeline, outDir string) string {
	h := sha256.Sum256([]byte(pipeline + "\x00" + outDir))
	return "kgforge-build-" + hex.EncodeToString(h[:10])
}

// ShardInput is one shard activity's input.
type ShardInput struct {
	Build Build `json:"build"`
	I     int   `json:"i"`
}

// ShardResult is what a shard did: counts only, for the run report; its
// segments are in the state directory.
type ShardResult struct {
	Shard        string                        `json:"shard"`
	Attempt      int32                         `json:"attempt"`
	Worker       string                        `json:"worker"`
	Duration     time.Duration                 `json:"duration_ns"`
	LLM          llm.Usage                     `json:"llm"`
	Extract      extract.Stats                 `json:"extract"`
	Units        map[string]*stages.UnitCounts `json:"units"`
	Chunks       int                           `json:"chunks"` // of the shard's extract units
	ChunksReused int                           `json:"chunks_reused"`
}

// ReduceInput is the reduce activity's input.
type ReduceInput struct {
	Build  Build         `json:"build"`
	Shards []ShardResult `json:"shards"`
}

// Result is the workflow's result: where the run report and the bundle
// are, and a failed gate's message (the bundle is written, latest is not
// moved), not the report itself, which can outgrow a payload.
type Result struct {
	BuildID    string        `json:"build_id"`
	Bundle     string        `json:"bundle"`
	Report     string        `json:"report"`
	Status     stages.Status `json:"status"`
	GateFailed string        `json:"gate_failed,omitempty"`
}

// Progress is what the progress query answers.
type Progress struct {
	Shards     int  `json:"shards"`
	ShardsDone int  `json:"shards_done"`
	Reducing   bool `json:"reducing"`
}

// activityOptions bound every activity: a dead worker is noticed by its
// missing heartbeats (the activities beat every few seconds, and per
// chunk), and an attempt that failed is retried with bounded backoff.
func activityOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy: &sdk.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        8,
			NonRetryableErrorTypes: []string{errBadInput},
		},
	}
}

// BuildWorkflow runs the shards at once, then the reduce.
func BuildWorkflow(ctx workflow.Context, in Build) (Result, error) {
	if in.Shards < 1 {
		return Result{}, sdk.NewNonRetryableApplicationError(fmt.Sprintf("build of %s: %d shards; want at least 1", in.Pipeline, in.Shards), errBadInput, nil)
	}
	prog := Progress{Shards: in.Shards}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) { return prog, nil }); err != nil {
		return Result{}, err
	}
	ctx = workflow.WithActivityOptions(ctx, activityOptions())
	// Shards are counted as they end, in any order; the first that fails
	// for good fails the build (the others' segments stay for a rerun).
	shards := make([]ShardResult, in.Shards)
	sel := workflow.NewSelector(ctx)
	var failed error
	for i := range shards {
		f := workflow.ExecuteActivity(ctx, ShardActivity, ShardInput{Build: in, I: i})
		sel.AddFuture(f, func(f workflow.Future) {
			if err := f.Get(ctx, &shards[i]); err != nil {
				failed = cmp.Or(failed, fmt.Errorf("shard %d/%d: %w", i, in.Shards, err))
				return
			}
			prog.ShardsDone++
		})
	}
	for range shards {
		if sel.Select(ctx); failed != nil {
			return Result{}, failed
		}
	}
	prog.Reducing = true
	var res Result
	if err := workflow.ExecuteActivity(ctx, ReduceActivity, ReduceInput{Build: in, Shards: shards}).Get(ctx, &res); err != nil {
		return Result{}, fmt.Errorf("reduce: %w", err)
	}
	return res, nil
}
