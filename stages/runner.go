package stages

import (
	"context"
	"crypto/rand"
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
	"kgforge/extract"
	"kgforge/ingest"
	_ "kgforge/ingest/all" // every reader and table loader registers itself
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/load"
	"kgforge/pipelines"
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
	// Entities counts the grounded entity mentions the build's extraction
	// holds, from the units it ran and those it reused (Extract counts only
	// the former).
	Entities int           `json:"entities"`
	Extract  extract.Stats `json:"extract"`
	LLM      llm.Usage     `json:"llm"`
	TokensPS float64       `json:"completion_tokens_per_second"`
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
	// Plan says what the build reused and what it redid.
	Plan *Plan `json:"plan"`
	// Endpoints is each of llm.endpoints' calls, tokens, failures and busy
	// share; absent for the single server of OLLAMA_HOST.
	Endpoints []EndpointReport `json:"llm_endpoints,omitempty"`
	// Gates are the quality gates checked against the previous build (gates.go).
	Gates []Gate `json:"gates,omitempty"`
	// Shard is the shard this run was, when it was one (Runner.Shard);
	// such a run makes no bundle. Reduce is set when the run was the reduce.
	Shard  *Shard `json:"shard,omitempty"`
	Reduce bool   `json:"reduce,omitempty"`
	mu     sync.Mutex
}

// Plan says how a build compared with the one before it (the bundle
// latest pointed at) and which of its units it reused.
type Plan struct {
	// Sources by URI, against the previous build: new ones, ones whose
	// content changed, unchanged ones, and ones gone (their facts are
	// gone from the new bundle).
	Added     []string `json:"sources_added"`
	Changed   []string `json:"sources_changed"`
	Unchanged []string `json:"sources_unchanged"`
	Removed   []string `json:"sources_removed"`
	// SourcesRead counts the sources opened: an unchanged source whose
	// segment is stored is not.
	SourcesRead int `json:"sources_read"`
	// Units counts the units run and reused, by kind: "source" (read and
	// cut, or load and profile) and "extract" (a batch of chunks).
	Units map[string]*UnitCounts `json:"units"`
	// ChunksReused counts the chunks of reused extract units: not sent to
	// the extractor at all (Extract counts those that were).
	ChunksReused int `json:"chunks_reused"`
	// OtherShards counts the extract units a shard run left to the other
	// shards (Runner.Shard); 0 in any other run.
	OtherShards int `json:"extract_units_other_shards,omitempty"`
	// Retired names the bundles removed to keep the last Runner.Keep;
	// SegmentsRemoved counts the segments no kept bundle needed.
	Retired         []string `json:"bundles_retired,omitempty"`
	SegmentsRemoved int      `json:"segments_removed"`
}

// UnitCounts is how many units of a kind ran and how many were reused.
type UnitCounts struct {
	Run    int `json:"run"`
	Reused int `json:"reused"`
}

// units counts a source unit that was opened or reused.
func (p *Plan) units(u sourceUnit) {
	switch {
	case u.reject != "":
	case u.reused:
		p.Units["source"].Reused++
	default:
		p.Units["source"].Run++
	}
}

// compare sorts the sources of a build (URI to digest) against those of
// the previous one.
func (p *Plan) compare(prev, now map[string]string) {
	for _, uri := range slices.Sorted(maps.Keys(now)) {
		old, ok := prev[uri]
		switch {
		case !ok:
			p.Added = append(p.Added, uri)
		case old == "" || old != now[uri]:
			p.Changed = append(p.Changed, uri)
		default:
			p.Unchanged = append(p.Unchanged, uri)
		}
	}
	for _, uri := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := now[uri]; !ok {
			p.Removed = append(p.Removed, uri)
		}
	}
}

// isRejected reports whether err rejects one item alone.
func isRejected(err error) bool { return errors.Is(err, kg.ErrRejected) }

// reject records an item-level rejection.
func (r *Report) reject(stage, item, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Rejected = append(r.Rejected, Reject{Stage: stage, Item: item, Reason: reason})
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

// Progress hears about extraction as it goes: Sources once, with the
// number of source units this run plans; SourceDone as each has been read
// (or reused) and its chunks queued; Queued when a chunk is sent to
// extraction, Done when its extraction ended (kept, cached or rejected).
// Ingest waits for extraction, so the chunks queued so far are a small
// part of the build's: the sources done say how far ingest is. Calls come
// from several goroutines; implementations must be safe for concurrent use.
type Progress interface {
	Sources(n int)
	SourceDone()
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
	// Keep is how many bundles the output directory keeps, the newest;
	// older ones, and the segments only they needed, are removed after
	// each build. 0 keeps every bundle.
	Keep int
	// CodeVersion stands for the code in every unit's address; empty
	// means the digest of the running program, so that a new kgforge
	// never reuses what an older one made.
	CodeVersion string
	// Shard, when its N is above 0, makes Run one shard of a scaled-out
	// build (docs/scale.md): it runs the source units and only the extract
	// units whose chunks hash to shard I of N, writes their segments to
	// the state directory, and stops before the global steps. Shards of
	// one build may run at once, in any process or on any machine that
	// shares the state directory.
	Shard Shard
	// MaxTokens is the build's token budget, prompt and completion tokens
	// of extraction together; 0 means the pipeline's limits.max_build_tokens
	// (itself 0: none). A build whose plan (Forecast) is over it stops
	// before extraction, one whose counted tokens reach it stops there,
	// with a *BudgetError (ErrBudget): nothing is published, finished
	// units stay in the state directory.
	MaxTokens int64
	// Reduce makes Run the last step of a scaled-out build: it extracts
	// nothing itself, fails naming what is missing when an extract unit
	// has no segment, and runs the global steps (resolve, link, bundle,
	// load) over the segments the shards wrote.
	Reduce bool
}

// Shard is shard I (0-based) of N.
type Shard struct {
	I int `json:"index"`
	N int `json:"count"`
}

// String is "I/N", as --shard takes it.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// NewBuildID returns a build id: the UTC time and a random suffix, so ids
// sort by time and two builds in one second never collide.
func NewBuildID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Run runs the pipeline once, as a plan of units (engine.go): one per
// source, one per batch of a document's chunks, then the global steps. A
// unit whose segment the state directory holds is reused, so a build pays
// only for what changed and a killed build resumes where it stopped. A
// non-nil error is fatal and leaves no new bundle behind; item-level
// rejections end in StatusPartial instead. Run holds the output
// directory's lock (LockFile) from start to end: while it runs, another
// Run into the same directory, in this process or any other, fails at
// once with a *BusyError. Shard runs (Runner.Shard) share a lock instead,
// so that shards run together; any other run fails at once while one does.
func (rn *Runner) Run(ctx context.Context, p *pipelines.Pipeline) (_ *Report, err error) {
	if err := rn.checkScale(); err != nil {
		return nil, err
	}
	b := rn.newBuild(p)
	stopWatch := heapWatch(os.Getenv(HeapProfileEnv), 100*time.Millisecond, stagesEnded(b.rep))
	defer func() {
		err = errors.Join(err, b.close())
		if werr := stopWatch(); werr != nil {
			b.log.Warn("heap profile", "env", HeapProfileEnv, "err", werr) // a diagnostic: the build stands
		}
	}()
	if err := b.open(ctx); err != nil {
		return b.rep, err
	}
	if err := b.checkBudget(ctx); err != nil {
		return b.rep, err
	}
	units, err := b.produce(ctx)
	if err == nil {
		err = b.missingErr()
	}
	if err != nil {
		return b.rep, err
	}
	if rn.Shard.N > 0 {
		return b.finishShard(units) // the global steps are the reduce's
	}
	a, err := b.assemble(ctx, units)
	if err != nil {
		return b.rep, err
	}
	c, err := b.consolidate(ctx, &a)
	if err != nil {
		return b.rep, err
	}
	b.gate(c)
	if err := b.commit(a, &c); err != nil {
		return b.rep, err
	}
	if b.rep.gateErr() == nil { // a failed gate publishes nothing
		if err := b.loadGraph(ctx); err != nil {
			return b.rep, err
		}
		b.retain()
	}
	return b.finish(a, c)
}

// embedder returns the entity embedder, asking the server for the
// embedding model's digest.
func (rn *Runner) embedder(ctx context.Context, p *pipelines.Pipeline, digests *modelDigests) (*consolidate.ModelEmbedder, error) {
	vcache, err := OpenDiskCache(filepath.Join(rn.CacheDir, "embed"))
	if err != nil {
		return nil, err
	}
	if m, err := onnxEmbedder(p); err != nil || m != nil {
		if m == nil {
			return nil, err
		}
		if rn.Log != nil {
			rn.Log.Info("embedding entities in process through ONNX Runtime", "model", p.LLM.EmbedModel, "digest", m.Digest())
		}
		return ONNXModelEmbedder(m, vcache), nil
	}
	d, err := digests.get(ctx, p.LLM.EmbedModel)
	if err != nil {
		return nil, fmt.Errorf("resolve entities: embedding model %s: %w", p.LLM.EmbedModel, err)
	}
	return &consolidate.ModelEmbedder{Send: rn.LLM.Embed, Model: p.LLM.EmbedModel, Digest: d, Cache: vcache, Batch: ollamaEmbedBatch}, nil
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
		Sheets: s.Sheets, Numbers: s.Numbers, Tables: s.Tables, Query: s.Query, Limits: lim,
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

// WriteReport writes rep beside the bundles of outDir as reports/BUILD.json,
// replacing the one its build wrote, and returns the file's path.
func WriteReport(outDir string, rep *Report) (string, error) {
	return filepath.Join(outDir, "reports", rep.BuildID+".json"), writeReport(outDir, rep)
}

// writeReport writes the report beside the bundles as reports/BUILD.json:
// to a new temporary file (never through a name already there), then
// renamed. The reports directory must be a directory of its own, not a
// symbolic link (checkReportsDir).
func writeReport(outDir string, rep *Report) (err error) {
	dir, err := reportsDir(outDir)
	if err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+rep.BuildID+".json.tmp-*")
	if err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.Remove(f.Name()))
		}
	}()
	_, err = f.Write(append(b, '\n'))
	err = errors.Join(err, f.Chmod(0o644), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, rep.BuildID+".json"))
	}
	if err != nil {
		return fmt.Errorf("write run report: %w", err)
	}
	return nil
}

// reportsDir creates the reports directory of outDir if needed and returns
// it, refusing one that is a symbolic link or not a directory: a report is
// written beside the bundles, never where a link leads.
func reportsDir(outDir string) (string, error) {
	dir := filepath.Join(outDir, "reports")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return dir, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return dir, err
	}
	return dir, checkReportsDir(outDir)
}

// checkReportsDir refuses a reports directory of outDir that is a symbolic
// link or not a directory; one that does not exist yet is fine.
func checkReportsDir(outDir string) error {
	dir := filepath.Join(outDir, "reports")
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; kgforge writes run reports only beside the bundles: replace it with a directory", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (%s); kgforge writes run reports there: remove it", dir, fi.Mode().Type())
	}
	return nil
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
