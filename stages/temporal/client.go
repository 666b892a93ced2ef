package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"kgforge/stages"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Server says which Temporal server and task queue to use.
type Server struct {
	Address   string // host:port of the frontend; "" is 127.0.0.1:7233
	Namespace string // "" is "default"
	TaskQueue string // "" is DefaultTaskQueue
}

// ServerFromEnv reads TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE (the
// variables the temporal CLI reads) and KGFORGE_TASK_QUEUE.
func ServerFromEnv() Server {
	return Server{Address: os.Getenv("TEMPORAL_ADDRESS"), Namespace: os.Getenv("TEMPORAL_NAMESPACE"), TaskQueue: os.Getenv("KGFORGE_TASK_QUEUE")}
}

func (s Server) withDefaults() Server {
	if s.Address == "" {
		s.Address = "127.0.0.1:7233"
	}
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if s.TaskQueue == "" {
		s.TaskQueue = DefaultTaskQueue
	}
	return s
}

// dial connects to the server, naming it in the error.
func (s Server) dial(ctx context.Context, log *slog.Logger, identity string) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{
		HostPort: s.Address, Namespace: s.Namespace, Identity: identity,
		Logger: sdklog.NewStructuredLogger(quiet(log)),
	})
	if err != nil {
		return nil, fmt.Errorf("temporal server at %s (namespace %s; set TEMPORAL_ADDRESS, or start one with scripts/temporal.sh up): %w", s.Address, s.Namespace, err)
	}
	return c, nil
}

// quiet keeps the SDK's own log lines at warnings and above: it logs
// every poll and every started worker at info.
func quiet(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(levelFilter{log.Handler(), slog.LevelWarn})
}

type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

// WorkerOptions configure RunWorker.
type WorkerOptions struct {
	Server Server
	// Activities is how many activities the worker runs at once (0: 1).
	// One shard already keeps the LLM server's slots busy (its
	// llm.concurrency); more workers, not more activities per worker,
	// spread a build.
	Activities int
	Identity   string // "" is the SDK's pid@host
	Log        *slog.Logger
}

// RunWorker hosts the build workflow and its activities on the task queue
// until ctx ends.
func RunWorker(ctx context.Context, acts *Activities, opt WorkerOptions) error {
	s := opt.Server.withDefaults()
	c, err := s.dial(ctx, opt.Log, opt.Identity)
	if err != nil {
		return err
	}
	defer c.Close()
	w := worker.New(c, s.TaskQueue, worker.Options{
		MaxConcurrentActivityExecutionSize: max(opt.Activities, 1),
		WorkerStopTimeout:                  5 * time.Second,
		// The workflow's code is a few lines; 1 s (the default) can pass
		// on a loaded machine before it yields, failing the task.
		DeadlockDetectionTimeout: 10 * time.Second,
		// The SDK sends a heartbeat at most every 0.8 × the timeout (16 s
		// of 20 s) and would leave a loaded machine 4 s of slack before the
		// server takes a live activity for dead and runs it twice.
		MaxHeartbeatThrottleInterval: 5 * time.Second,
	})
	w.RegisterWorkflowWithOptions(BuildWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(acts.Shard, activity.RegisterOptions{Name: ShardActivity})
	w.RegisterActivityWithOptions(acts.Reduce, activity.RegisterOptions{Name: ReduceActivity})
	if err := w.Start(); err != nil {
		return fmt.Errorf("worker on task queue %s at %s: %w", s.TaskQueue, s.Address, err)
	}
	if opt.Log != nil {
		opt.Log.Info("worker started", "address", s.Address, "namespace", s.Namespace, "task_queue", s.TaskQueue, "activities", max(opt.Activities, 1))
	}
	<-ctx.Done()
	w.Stop()
	return nil
}

// BuildOptions configure Run.
type BuildOptions struct {
	Server Server
	Log    *slog.Logger
	// Every is how often the client logs the build's progress (0: 30 s).
	Every time.Duration
}

// Run starts the build as a workflow, or attaches to the one running
// under the same id (WorkflowID), follows it to its end and returns its
// run report, read from the output directory (which the client must see
// too). The workflow outlives the client: a killed client, run again,
// attaches to it; cancel it with `temporal workflow cancel -w ID`.
func Run(ctx context.Context, in Build, opt BuildOptions) (*stages.Report, error) {
	s := opt.Server.withDefaults()
	c, err := s.dial(ctx, opt.Log, "")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	id := WorkflowID(in.Pipeline, in.OutDir)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: s.TaskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, WorkflowName, in)
	if err != nil {
		return nil, fmt.Errorf("start build workflow %s on %s: %w", id, s.Address, err)
	}
	log.Info("build workflow running", "workflow", id, "run", run.GetRunID(), "task_queue", s.TaskQueue, "shards", in.Shards)
	stop := follow(ctx, c, run, opt.Every, log)
	var res Result
	err = run.Get(ctx, &res)
	stop()
	if err != nil {
		return nil, fmt.Errorf("build workflow %s: %w", id, err)
	}
	rep, err := readReport(res.Report)
	if err != nil {
		return nil, err
	}
	if res.GateFailed != "" {
		return rep, fmt.Errorf("%w: %s", stages.ErrGateFailed, res.GateFailed)
	}
	return rep, nil
}

// follow logs the workflow's progress every period until stopped.
func follow(ctx context.Context, c client.Client, run client.WorkflowRun, every time.Duration, log *slog.Logger) (stop func()) {
	if every <= 0 {
		every = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), ProgressQuery)
			var p Progress
			if err == nil {
				err = v.Get(&p)
			}
			if err != nil {
				if ctx.Err() == nil {
					log.Debug("build progress not known", "err", err)
				}
				continue
			}
			log.Info("build progress", "shards_done", p.ShardsDone, "shards", p.Shards, "reducing", p.Reducing)
		}
	}()
	return func() { cancel(); <-done }
}

// readReport reads the run report the reduce wrote.
func readReport(path string) (*stages.Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the build's run report (the client reads it from the output directory): %w", err)
	}
	rep := &stages.Report{}
	if err := json.Unmarshal(raw, rep); err != nil {
		return nil, fmt.Errorf("run report %s: %w", path, err)
	}
	return rep, nil
}
