package stages

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/extract"
	"kgforge/ingest"
	_ "kgforge/ingest/all" // every reader and table loader registers itself
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/load"
	"kgforge/pipelines"

	"golang.org/x/sync/errgroup"
)

// Status is how a run ended.
type Status string

// Run statuses; cmd/kgforge maps them to exit codes.
const (
	StatusOK      Status = "ok"
	StatusPartial Status = "partial" // some items were rejected; the bundle holds the rest
)

// Reject is one item that failed alone.
type Reject struct {
	Stage  string `json:"stage"`
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

// StageReport is what one stage did.
type StageReport struct {
	Duration time.Duration `json:"duration_ns"`
	Items    int           `json:"items"`
}

// Report is the machine-readable account of one run.
type Report struct {
	BuildID  string                 `json:"build_id"`
	Pipeline string                 `json:"pipeline"`
	Status   Status                 `json:"status"`
	Bundle   string                 `json:"bundle"`
	Started  time.Time              `json:"started"`
	Finished time.Time              `json:"finished"`
	Stages   map[string]StageReport `json:"stages"`
	Sources  int                    `json:"sources"`
	Chunks   int                    `json:"chunks"`
	Tables   int                    `json:"tables"`
	Triplets int                    `json:"triplets"`
	Extract  extract.Stats          `json:"extract"`
	LLM      llm.Usage              `json:"llm"`
	TokensPS float64                `json:"completion_tokens_per_second"`
	// ServerBusy is the share of the extract stage's wall time, times its
	// parallel slots, that the LLM server spent answering: 1 means the
	// pipeline never kept it waiting.
	ServerBusy float64 `json:"server_busy"`
	Nodes      int     `json:"nodes"`
	Edges      int     `json:"edges"`
	Merges     int     `json:"merges"`
	// Resolution says how entities were resolved: candidate pairs, merges,
	// uncertain pairs, splits, overrides that matched nothing.
	Resolution *consolidate.Resolution `json:"resolution,omitempty"`
	// Link says, per table, whether its rows became entities and why.
	Link     []link.Decision `json:"link_tables,omitempty"`
	Neo4j    *load.Stats     `json:"neo4j,omitempty"`
	Rejected []Reject        `json:"rejected"`
	Warnings []Reject        `json:"warnings,omitempty"` // items kept with a problem, such as skipped CSV rows
	mu       sync.Mutex
}

// rejectOrFail records an item-level rejection and returns nil, or returns
// err unchanged when it is fatal.
func (r *Report) rejectOrFail(stage, item string, err error) error {
	if !errors.Is(err, kg.ErrRejected) {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Rejected = append(r.Rejected, Reject{Stage: stage, Item: item, Reason: err.Error()})
	return nil
}

// warn records a problem with an item that was still kept.
func (r *Report) warn(stage, item, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Warnings = append(r.Warnings, Reject{Stage: stage, Item: item, Reason: reason})
}

func (r *Report) stage(name string, start time.Time, items int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Stages[name] = StageReport{Duration: time.Since(start), Items: items}
}

// Progress hears about extraction as it goes: Queued when a chunk is cut,
// Done when its extraction ended (kept, cached or rejected). Calls come from
// several goroutines; implementations must be safe for concurrent use.
type Progress interface {
	Queued()
	Done()
}

// Runner runs pipelines. Its fields are set once before Run.
type Runner struct {
	LLM      *llm.Client
	CacheDir string       // content-addressed cache shared by runs
	OutDir   string       // overrides the pipeline's output directory when set
	Neo4j    *load.Config // nil: do not load Neo4j
	Log      *slog.Logger // nil: discard
	Progress Progress     // nil: none
	Now      func() time.Time
}

// NewBuildID returns a build id: the UTC time and a random suffix, so ids
// sort by time and two builds in one second never collide.
func NewBuildID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Run runs the pipeline once. A non-nil error is fatal and leaves no new
// bundle behind; item-level rejections end in StatusPartial instead. Run
// holds the output directory's lock (LockFile) from start to end: while
// it runs, another Run into the same directory, in this process or any
// other, fails at once with a *BusyError.
func (rn *Runner) Run(ctx context.Context, p *pipelines.Pipeline) (_ *Report, err error) {
	log := rn.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := time.Now
	if rn.Now != nil {
		now = rn.Now
	}
	rep := &Report{BuildID: NewBuildID(now()), Pipeline: p.Name, Started: now(), Stages: map[string]StageReport{}, Rejected: []Reject{}}
	log.Info("build started", "pipeline", p.Name, "build_id", rep.BuildID)
	outDir := rn.OutDir
	if outDir == "" {
		outDir = p.Resolve(p.Output)
	}
	lock, err := lockOutput(outDir, newHolder(rep.BuildID, rep.Started))
	if err != nil {
		return rep, err
	}
	defer func() { err = errors.Join(err, lock.release()) }()
	if h := lock.Stale; h != nil {
		log.Warn("took over the lock of a build that stopped without releasing it", "out", outDir,
			"holder_build_id", h.BuildID, "holder_host", h.Host, "holder_pid", h.PID, "holder_started", h.Started)
		rep.warn("build", outDir, fmt.Sprintf("took over the lock left by %s, which stopped without releasing it", h))
	}

	var overrides *consolidate.Overrides
	if p.Resolution.Overrides != "" {
		// Read before anything runs: a broken overrides file fails at start.
		if overrides, err = consolidate.LoadOverrides(p.Resolve(p.Resolution.Overrides)); err != nil {
			return rep, err
		}
	}
	cache, err := OpenDiskCache(filepath.Join(rn.CacheDir, "extract"))
	if err != nil {
		return rep, err
	}
	// The server is asked for a model only when the build first needs it
	// (models.go); the options are checked now, so that a bad prompt or
	// schema fails at start.
	digests := &modelDigests{client: rn.LLM, want: []string{p.LLM.ChatModel}}
	if p.Resolution.EmbeddingsOn() {
		digests.want = append(digests.want, p.LLM.EmbedModel)
	}
	exOpts := extract.Options{
		Model: p.LLM.ChatModel, MaxCtx: p.LLM.MaxContext, NumPredict: p.LLM.MaxOutput,
		Prompt: p.Extract.Prompt, Schema: extractSchema(p.Extract.Schema),
		Evidence: extract.EvidenceMode(p.Extract.Evidence), Gleanings: p.Extract.Gleanings,
	}
	checked, err := extract.New(rn.LLM, cache, exOpts)
	if err != nil {
		return rep, err
	}
	ex := &lazyExtractor{client: rn.LLM, cache: cache, opts: exOpts, digests: digests}
	rootDir := p.Resolve(p.Root)
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return rep, fmt.Errorf("open pipeline root %s: %w", rootDir, err)
	}
	defer func() { err = errors.Join(err, root.Close()) }()
	// What builds write is never a source, wherever it lies.
	written := []string{outDir, p.Resolve(p.Output), rn.CacheDir}
	var found []ingest.Found
	bySource := map[string]pipelines.Source{}
	for _, s := range p.Sources {
		bySource[s.Name] = s
		if s.Kind == string(kg.KindPostgres) {
			found = append(found, ingest.Found{Rel: "postgres:" + s.Name, Kind: kg.KindPostgres, Forced: true, Source: s.Name})
			continue
		}
		f, err := ingest.Discover(root, s.Paths, kg.SourceKind(s.Kind), written...)
		if err != nil {
			return rep, fmt.Errorf("pipeline %s: source %s: %w", p.Name, s.Name, err)
		}
		for i := range f {
			f[i].Source = s.Name
		}
		found = append(found, f...)
	}
	found = dedupe(found)
	limits := ingestLimits(p.Limits)

	w, err := bundle.Create(outDir, rep.BuildID)
	if err != nil {
		return rep, err
	}
	for _, name := range w.Stale {
		log.Info("removed what a crashed build left", "dir", filepath.Join(outDir, name))
	}
	if w.StaleErr != nil {
		rep.warn("bundle", outDir, w.StaleErr.Error())
	}
	committed := false
	defer func() {
		if !committed {
			if aerr := w.Abort(); aerr != nil {
				log.Error("abort bundle", "err", aerr)
			}
		}
	}()
	db, err := w.Data(ctx, duck.Settings{Threads: p.DuckDB.Threads, MemoryLimit: p.DuckDB.MemoryLimit})
	if err != nil {
		return rep, err
	}

	var (
		sources  []kg.Source
		chunks   []kg.Chunk
		tables   []kg.Table
		triplets []kg.Triplet
		entities []kg.Mention // grounded entities, also those in no triplet
	)
	g, gctx := errgroup.WithContext(ctx)
	chunkCh := make(chan kg.Chunk, 4*p.LLM.Concurrency)
	resultCh := make(chan extract.Result, p.LLM.Concurrency)

	// Ingest: reads sources one by one, loads tables and feeds chunks to
	// extraction as soon as each document is cut.
	g.Go(func() error {
		defer close(chunkCh)
		start := time.Now()
		taken := map[string]bool{}
		for _, f := range found {
			ps := bySource[f.Source]
			opt := sourceOptions(ps, limits)
			src, loaded, doc, err := ingestSource(gctx, root, rootDir, db, f, opt, taken)
			if err != nil {
				if err := rep.rejectOrFail("ingest", f.Rel, err); err != nil {
					return err
				}
				continue
			}
			if src.Kind.IsTable() {
				sources = append(sources, src)
				for _, t := range loaded {
					for _, w := range t.Warnings {
						rep.warn("ingest", f.Rel, fmt.Sprintf("table %s: %s", t.Name, w))
					}
				}
				tables = append(tables, loaded...)
				continue
			}
			chunking := p.Chunking
			if ps.Chunking != nil {
				chunking = *ps.Chunking
			}
			// A source over its budget is rejected before any of its
			// chunks reaches the model.
			cs, err := ingest.ChunkWithin(doc, ingest.ChunkOptions{Size: chunking.Size, Overlap: chunking.Overlap}, opt.Limits)
			if err != nil {
				if err := rep.rejectOrFail("ingest", f.Rel, err); err != nil {
					return err
				}
				continue
			}
			sources = append(sources, src)
			for _, c := range cs {
				chunks = append(chunks, c)
				if p.Extract.Skip {
					continue
				}
				if rn.Progress != nil {
					rn.Progress.Queued()
				}
				select {
				case chunkCh <- c:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
		}
		if err := ingest.FindKeys(gctx, db, tables); err != nil {
			return err
		}
		rep.stage("ingest", start, len(sources))
		return nil
	})

	// Extract: as many workers as the Ollama server has parallel slots.
	g.Go(func() error {
		defer close(resultCh)
		start := time.Now()
		workers, wctx := errgroup.WithContext(gctx)
		for range p.LLM.Concurrency {
			workers.Go(func() error {
				for c := range chunkCh {
					res, err := ex.Process(wctx, c)
					if rn.Progress != nil {
						rn.Progress.Done()
					}
					if err != nil {
						if err := rep.rejectOrFail("extract", c.ID, err); err != nil {
							return err
						}
						continue
					}
					select {
					case resultCh <- res:
					case <-wctx.Done():
						return wctx.Err()
					}
				}
				return nil
			})
		}
		err := workers.Wait()
		rep.stage("extract", start, ex.Stats().Chunks)
		return err
	})

	g.Go(func() error {
		for res := range resultCh {
			triplets = append(triplets, res.Triplets...)
			entities = append(entities, res.Entities...)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return rep, err
	}
	log.Info("extraction done", "chunks", len(chunks), "triplets", len(triplets), "entities", len(entities))

	start := time.Now()
	// Workers finish in any order; sort so the bundle is the same every run.
	slices.SortFunc(triplets, func(a, b kg.Triplet) int { return strings.Compare(a.ID, b.ID) })
	in := consolidate.Input{
		Sources: sources, Chunks: chunks, Triplets: triplets, Entities: entities, Tables: tables,
		Resolve: resolve.Config{
			High: p.Resolution.High, Low: p.Resolution.Low, ShortHigh: p.Resolution.ShortHigh,
			MinClusterSim: p.Resolution.MinClusterSim, MaxClusterSize: p.Resolution.MaxClusterSize,
			Compatible: p.Resolution.CompatibleTypes,
		},
		Overrides: overrides, FixedPredicates: p.Extract.Schema != nil,
		Data: db, Link: linkConfig(p.Link),
	}
	// Only entities are embedded and judged: without any, neither model
	// is asked for.
	hasEntities := len(triplets) > 0 || len(entities) > 0
	var embedder *consolidate.ModelEmbedder
	if p.Resolution.EmbeddingsOn() && hasEntities {
		if embedder, err = rn.embedder(ctx, p, digests); err != nil {
			return rep, err
		}
		in.Embedder = embedder
	}
	var judge *consolidate.LLMJudge
	if p.Resolution.LLMJudge && hasEntities {
		if judge, err = rn.judge(ctx, p, digests); err != nil {
			return rep, err
		}
		in.Judge, in.MaxJudged = judge, p.Resolution.MaxJudged
	}
	cons, err := consolidate.Build(ctx, in)
	if err != nil {
		return rep, err
	}
	graph := cons.Graph
	rep.Resolution = &cons.Resolution
	rep.Link = cons.Tables
	warnUnknownTables(rep, p.Link, tables)
	for _, o := range cons.Resolution.UnmatchedOverrides {
		rep.warn("consolidate", fmt.Sprintf("%s %s", o.Kind, strings.Join(o.Refs, " / ")), "override not applied: "+o.Reason)
	}
	if embedder != nil {
		log.Info("entities resolved", "embedded", cons.Resolution.Embedded, "embed_requests", embedder.Calls, "embed_cache_hits", embedder.Hits,
			"merged", cons.Resolution.Stats.Merged, "uncertain", cons.Resolution.Stats.Uncertain)
	}
	rep.stage("consolidate", start, len(graph.Nodes))

	start = time.Now()
	m := bundle.Manifest{
		Created: now().UTC(), Pipeline: p.Name, PipelineSHA256: p.SHA256,
		// The chat model's digest is empty when the build asked it nothing.
		Models:  map[string]bundle.Model{"chat": {Name: p.LLM.ChatModel, Digest: digests.known(p.LLM.ChatModel)}},
		Prompts: map[string]string{p.Extract.Prompt: checked.PromptVersion()},
	}
	if judge != nil {
		m.Prompts["judge.tmpl"] = judge.PromptVersion()
	}
	contents := bundle.Contents{
		Sources: sources, Chunks: chunks, Triplets: triplets, Tables: tables, Graph: graph,
		MergeReport: consolidate.MergeReport(graph, cons.Resolution),
		LinkReport:  consolidate.LinkReport(graph, cons.Tables),
	}
	if embedder != nil {
		m.Models["embed"] = bundle.Model{Name: p.LLM.EmbedModel, Digest: embedder.Digest}
		if len(cons.EntityIDs) > 0 {
			vs := bundle.VectorSet{Name: "entities", Model: p.LLM.EmbedModel, Dim: len(cons.EntityVectors[0]), IDs: cons.EntityIDs}
			for _, v := range cons.EntityVectors {
				vs.Data = append(vs.Data, v...)
			}
			contents.Vectors = append(contents.Vectors, vs)
		}
	}
	dir, err := w.Commit(contents, m)
	if err != nil {
		return rep, err
	}
	committed = true
	rep.stage("bundle", start, len(graph.Nodes)+len(graph.Edges))
	rep.Bundle = dir
	log.Info("bundle written", "dir", dir, "nodes", len(graph.Nodes), "edges", len(graph.Edges))

	if rn.Neo4j != nil {
		start = time.Now()
		st, err := loadNeo4j(ctx, *rn.Neo4j, dir, log)
		if err != nil {
			return rep, err
		}
		rep.Neo4j = &st
		rep.stage("neo4j", start, st.Nodes+st.Relationships)
	}

	rep.Sources, rep.Chunks, rep.Tables, rep.Triplets = len(sources), len(chunks), len(tables), len(triplets)
	rep.Nodes, rep.Edges, rep.Merges = len(graph.Nodes), len(graph.Edges), len(graph.Merges)
	rep.Extract = ex.Stats()
	rep.LLM = rn.LLM.Usage()
	rep.TokensPS = rep.LLM.TokensPerSecond()
	if d := rep.Stages["extract"].Duration; d > 0 && rep.LLM.Calls > 0 {
		rep.ServerBusy = rep.LLM.ServerDuration.Seconds() / (d.Seconds() * float64(p.LLM.Concurrency))
	}
	rep.Status = StatusOK
	if len(rep.Rejected) > 0 {
		rep.Status = StatusPartial
	}
	rep.Finished = now()
	log.Info("build finished", "status", rep.Status, "build_id", rep.BuildID, "rejected", len(rep.Rejected))
	return rep, writeReport(outDir, rep)
}

// embedder returns the entity embedder, asking the server for the
// embedding model's digest.
func (rn *Runner) embedder(ctx context.Context, p *pipelines.Pipeline, digests *modelDigests) (*consolidate.ModelEmbedder, error) {
	d, err := digests.get(ctx, p.LLM.EmbedModel)
	if err != nil {
		return nil, fmt.Errorf("resolve entities: embedding model %s: %w", p.LLM.EmbedModel, err)
	}
	vcache, err := OpenDiskCache(filepath.Join(rn.CacheDir, "embed"))
	if err != nil {
		return nil, err
	}
	return &consolidate.ModelEmbedder{Send: rn.LLM.Embed, Model: p.LLM.EmbedModel, Digest: d, Cache: vcache}, nil
}

// judge returns the LLM judge of uncertain pairs, asking the server for
// the chat model's digest (known already when extraction asked for it).
func (rn *Runner) judge(ctx context.Context, p *pipelines.Pipeline, digests *modelDigests) (*consolidate.LLMJudge, error) {
	d, err := digests.get(ctx, p.LLM.ChatModel)
	if err != nil {
		return nil, fmt.Errorf("resolve entities: judge model %s: %w", p.LLM.ChatModel, err)
	}
	jcache, err := OpenDiskCache(filepath.Join(rn.CacheDir, "judge"))
	if err != nil {
		return nil, err
	}
	return consolidate.NewLLMJudge(rn.LLM.Chat, p.LLM.ChatModel, d, jcache)
}

// extractSchema converts the pipeline's extraction schema; nil is the zero
// (free) schema.
func extractSchema(s *pipelines.Schema) extract.Schema {
	var out extract.Schema
	if s == nil {
		return out
	}
	for _, t := range s.EntityTypes {
		out.EntityTypes = append(out.EntityTypes, extract.EntityType{Name: t.Name, Description: t.Description})
	}
	for _, r := range s.RelationTypes {
		out.RelationTypes = append(out.RelationTypes, extract.RelationType{Name: r.Name, Description: r.Description, Domain: r.Domain, Range: r.Range})
	}
	return out
}

// ingestSource reads one source: a table-like source is loaded into db and
// returned as its tables, a text-like one is returned as a document.
func ingestSource(ctx context.Context, root *os.Root, rootDir string, db *sql.DB, f ingest.Found, opt ingest.Options, taken map[string]bool) (kg.Source, []kg.Table, ingest.Document, error) {
	name := func(want string) string { return ingest.UniqueName(taken, ingest.TableName(want)) }
	if f.Kind == kg.KindPostgres {
		src := kg.Source{ID: kg.ID("source", f.Rel), URI: f.Rel, Kind: kg.KindPostgres, SHA256: ingest.ConnectionDigest(opt)}
		ts, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: src, Base: f.Source, Options: opt, Name: name})
		return src, ts, ingest.Document{}, err
	}
	o, err := ingest.Open(root, rootDir, f, opt.Limits)
	if err != nil {
		return o.Source, nil, ingest.Document{}, err
	}
	if o.Source.Kind.IsTable() {
		ts, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: o.Source, Path: o.Path, Base: ingest.TableName(f.Rel), Options: opt, Name: name})
		return o.Source, ts, ingest.Document{}, err
	}
	doc, err := ingest.ReadDocument(ctx, o.Source, o.Data, opt)
	return o.Source, nil, doc, err
}

// warnUnknownTables warns of every table the pipeline's link block names
// that the build does not have (a name is the DuckDB table's, which ingest
// derives from the file, sheet or database table).
func warnUnknownTables(rep *Report, l pipelines.Link, tables []kg.Table) {
	have := make([]string, len(tables))
	for i, t := range tables {
		have[i] = t.Name
	}
	slices.Sort(have)
	for _, name := range slices.Sorted(maps.Keys(l.Tables)) {
		if !slices.Contains(have, name) {
			rep.warn("consolidate", "link.tables."+name, "the build has no table of this name; its tables are: "+strings.Join(have, ", "))
		}
	}
}

// linkConfig turns the pipeline's link block into the link step's settings.
func linkConfig(l pipelines.Link) link.Config {
	c := link.Config{MaxRowEntities: l.MaxRowEntities, High: l.High, Low: l.Low}
	if len(l.Tables) > 0 {
		c.Tables = map[string]link.TableConfig{}
	}
	for name, t := range l.Tables {
		c.Tables[name] = link.TableConfig{Entity: t.Entity, Type: t.Type, Name: t.Name, Key: t.Key}
	}
	return c
}

// sourceOptions turns a pipeline source's settings into reading options; a
// postgres source's connection string is read from its environment variable.
func sourceOptions(s pipelines.Source, lim ingest.Limits) ingest.Options {
	opt := ingest.Options{
		TextFields: s.TextFields, RecordStart: s.RecordStart, TimeLayout: s.TimeLayout,
		Sheets: s.Sheets, Tables: s.Tables, Query: s.Query, Limits: lim,
	}
	if s.ConnectionEnv != "" {
		opt.DSN = os.Getenv(s.ConnectionEnv)
	}
	return opt
}

func ingestLimits(l pipelines.Limits) ingest.Limits {
	return ingest.Limits{
		MaxTextBytes: l.MaxTextBytes, MaxTableBytes: l.MaxTableBytes, MaxUnzipped: l.MaxUnzipped,
		MaxRatio: l.MaxRatio, MaxRecords: l.MaxRecords,
		MaxChunks: l.MaxChunks, MaxTokens: l.MaxTokens, MaxWordBytes: l.MaxWordBytes,
	}.WithDefaults()
}

func loadNeo4j(ctx context.Context, cfg load.Config, dir string, log *slog.Logger) (_ load.Stats, err error) {
	b, err := bundle.Open(dir)
	if err != nil {
		return load.Stats{}, err
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	l, err := load.New(ctx, cfg, log)
	if err != nil {
		return load.Stats{}, err
	}
	st, err := l.Load(ctx, b)
	return st, errors.Join(err, l.Close(ctx))
}

// writeReport writes the report beside the bundles as reports/BUILD.json.
func writeReport(outDir string, rep *Report) error {
	dir := filepath.Join(outDir, "reports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	p := filepath.Join(dir, rep.BuildID+".json")
	if err := os.WriteFile(p+".tmp", append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	return os.Rename(p+".tmp", p)
}

func dedupe(found []ingest.Found) []ingest.Found {
	seen := map[string]bool{}
	out := found[:0]
	for _, f := range found {
		if !seen[f.Rel] {
			seen[f.Rel] = true
			out = append(out, f)
		}
	}
	return out
}
