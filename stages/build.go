package stages

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/extract"
	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/pipelines"
)

// build is one run of a pipeline: what Run opened, planned and produced.
// Its fields are set by open, and then read by the steps.
type build struct {
	rn     *Runner
	p      *pipelines.Pipeline
	log    *slog.Logger
	now    func() time.Time
	rep    *Report
	outDir string
	code   string // the code part of every unit's address

	lock      *outputLock
	shards    *shardLock // shared by shard runs, exclusive for the others (shardlock.go)
	sc        scaleOut   // what a shard or reduce notes (shard.go)
	st        *state
	index     *fileIndex
	root      *os.Root
	rootDir   string
	found     []ingest.Found
	bySource  map[string]pipelines.Source
	limits    ingest.Limits
	overrides *consolidate.Overrides
	digests   *modelDigests
	exOpts    extract.Options
	checked   *extract.Extractor // built without the model's digest: prompt and schema checked at start
	ex        *lazyExtractor
	w         *bundle.Writer
	db        *sql.DB
	committed bool

	mu            sync.Mutex        // guards rep.Plan while units run
	segments      []string          // the segments the bundle is made of
	sourceDigests map[string]string // each source's digest (URI to SHA-256; empty when unreadable)
	prev          map[string]string // the same of the build latest pointed at; nil when none
	// usage0 and extracted are the LLM client's counts when the build
	// started and when its extraction ended: the rate file's measure.
	usage0, extracted llm.Usage
}

// newBuild starts the report of a run of p.
func (rn *Runner) newBuild(p *pipelines.Pipeline) *build {
	b := &build{rn: rn, p: p, log: rn.Log, now: time.Now}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if rn.Now != nil {
		b.now = rn.Now
	}
	b.rep = &Report{
		BuildID: NewBuildID(b.now()), Pipeline: p.Name, Started: b.now(), Stages: map[string]StageReport{}, Rejected: []Reject{},
		Plan: &Plan{Units: map[string]*UnitCounts{"source": {}, "extract": {}}},
	}
	b.outDir = cmp.Or(rn.OutDir, p.Resolve(p.Output))
	if rn.Shard.N > 0 {
		b.rep.Shard = &rn.Shard
	}
	b.rep.Reduce = rn.Reduce
	return b
}

// count updates the plan's counts; units call it from several goroutines.
func (b *build) count(fn func(*Plan)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(b.rep.Plan)
}

// open takes the output lock (lockOut), opens the state directory, checks the
// options (a bad prompt, schema or overrides file fails at start), lists
// the sources and starts the bundle.
func (b *build) open(ctx context.Context) (err error) {
	p := b.p
	b.log.Info("build started", "pipeline", p.Name, "build_id", b.rep.BuildID)
	if err := b.lockOut(); err != nil {
		return err
	}
	if b.st, err = openState(b.outDir, b.rn.Shard.N == 0); err != nil {
		return err
	}
	if p.Resolution.Overrides != "" {
		if b.overrides, err = consolidate.LoadOverrides(p.Resolve(p.Resolution.Overrides)); err != nil {
			return err
		}
	}
	if err := b.prepare(); err != nil {
		return err
	}
	if b.rn.Shard.N > 0 {
		return nil // a shard makes no bundle
	}
	return b.openBundle(ctx)
}

// prepare reads what the state directory knows (the file index, the
// sources of the build latest points at), checks the extraction options
// and lists the sources: what a build and its plan (plan.go) both need.
func (b *build) prepare() (err error) {
	if b.code = b.rn.CodeVersion; b.code == "" {
		if b.code, err = executableDigest(); err != nil {
			return err
		}
	}
	b.index = b.st.loadIndex()
	if id, err := os.Readlink(filepath.Join(b.outDir, bundle.LatestLink)); err == nil {
		r, ok, err := b.st.readRecord(id)
		if err != nil {
			return err
		}
		if ok {
			b.prev = r.Sources
		}
	}
	if b.rn.LLM != nil {
		b.usage0 = b.rn.LLM.Usage()
	}
	if err := b.openExtract(); err != nil {
		return err
	}
	return b.listSources()
}

// openExtract checks the extraction options and prepares the extractor,
// which asks the server for the chat model only when a chunk needs it
// (models.go).
func (b *build) openExtract() error {
	p := b.p
	cache, err := OpenDiskCache(filepath.Join(b.rn.CacheDir, "extract"))
	if err != nil {
		return err
	}
	b.digests = &modelDigests{client: b.rn.LLM, want: []string{p.LLM.ChatModel}}
	if p.Resolution.EmbeddingsOn() && embedsThroughOllama(p) {
		b.digests.want = append(b.digests.want, p.LLM.EmbedModel)
	}
	b.exOpts = extract.Options{
		Model: p.LLM.ChatModel, MaxCtx: p.LLM.MaxContext, NumPredict: p.LLM.MaxOutput,
		Prompt: p.Extract.Prompt, Schema: extractSchema(p.Extract.Schema),
		Evidence: extract.EvidenceMode(p.Extract.Evidence), Gleanings: p.Extract.Gleanings,
		Mode: extract.Mode(p.Extract.Mode), Think: p.Extract.Think, Window: p.Extract.Window,
		MinConfidence: p.Extract.MinConfidence,
	}
	checkOpts := b.exOpts
	if checkOpts.Mode == extract.ModeAuto {
		checkOpts.Mode = extract.ModeChat // resolved per model when a chunk first needs it (models.go)
	}
	if b.checked, err = extract.New(b.rn.LLM, cache, checkOpts); err != nil {
		return err
	}
	b.ex = &lazyExtractor{client: b.rn.LLM, cache: cache, opts: b.exOpts, digests: b.digests}
	return nil
}

// listSources finds the sources the pipeline names, in plan order.
func (b *build) listSources() (err error) {
	p := b.p
	b.rootDir = p.Resolve(p.Root)
	if b.root, err = os.OpenRoot(b.rootDir); err != nil {
		return fmt.Errorf("open pipeline root %s: %w", b.rootDir, err)
	}
	// What builds write is never a source, wherever it lies.
	written := []string{b.outDir, p.Resolve(p.Output), b.rn.CacheDir}
	b.bySource = map[string]pipelines.Source{}
	for _, s := range p.Sources {
		b.bySource[s.Name] = s
		if s.Kind == string(kg.KindPostgres) {
			b.found = append(b.found, ingest.Found{Rel: "postgres:" + s.Name, Kind: kg.KindPostgres, Forced: true, Source: s.Name})
			continue
		}
		f, err := ingest.Discover(b.root, s.Paths, kg.SourceKind(s.Kind), written...)
		if err != nil {
			return fmt.Errorf("pipeline %s: source %s: %w", p.Name, s.Name, err)
		}
		for i := range f {
			f[i].Source = s.Name
		}
		b.found = append(b.found, f...)
	}
	b.found = dedupe(b.found)
	b.limits = ingestLimits(p.Limits)
	return nil
}

// openBundle starts the bundle and its data file.
func (b *build) openBundle(ctx context.Context) (err error) {
	if b.w, err = bundle.Create(b.outDir, b.rep.BuildID); err != nil {
		return err
	}
	for _, name := range b.w.Stale {
		b.log.Info("removed what a crashed build left", "dir", filepath.Join(b.outDir, name))
	}
	if b.w.StaleErr != nil {
		b.rep.warn("bundle", b.outDir, b.w.StaleErr.Error())
	}
	b.db, err = b.w.Data(ctx, b.duckSettings())
	return err
}

func (b *build) duckSettings() duck.Settings {
	return duck.Settings{Threads: b.p.DuckDB.Threads, MemoryLimit: b.p.DuckDB.MemoryLimit}
}

// close releases what open took: an uncommitted bundle is removed, the
// file index saved (what this build read is not read again), the lock
// released last.
func (b *build) close() error {
	var errs []error
	if b.w != nil && !b.committed {
		if err := b.w.Abort(); err != nil {
			b.log.Error("abort bundle", "err", err)
		}
	}
	if b.index != nil {
		keep := map[string]bool{}
		for _, f := range b.found {
			keep[b.indexKey(f)] = true
		}
		errs = append(errs, b.index.save(keep))
	}
	if b.root != nil {
		errs = append(errs, b.root.Close())
	}
	if b.shards != nil {
		errs = append(errs, b.shards.release())
	}
	if b.lock != nil {
		errs = append(errs, b.lock.release())
	}
	return errors.Join(errs...)
}

// assembled is everything the global steps need, read back from the
// segments in plan order. Chunks are held without their text, which
// resolution does not read (unless the build has tables: linking finds
// row entities and column rules in the text); the bundle streams the text
// from the segments (eachChunk). What a build still holds whole is the
// graph's input: every triplet and mention, since resolution compares
// every mention with every other.
type assembled struct {
	sources  []kg.Source
	chunks   []kg.Chunk // without their text, unless the build has tables
	tables   []kg.Table
	triplets []kg.Triplet
	entities []kg.Mention  // grounded entities, also those in no triplet
	docs     []*sourceUnit // the documents whose chunks the bundle holds, in plan order
	// nChunks and nTriplets count the chunks and triplets, also once
	// drop let them go.
	nChunks, nTriplets, nEntities int
}

// drop lets the chunks, triplets and mentions go once consolidation, the
// one step that reads them, is done and the bundle holds the triplets:
// the bundle's other files are written without them.
func (a *assembled) drop() {
	a.nChunks, a.nTriplets, a.nEntities = len(a.chunks), len(a.triplets), len(a.entities)
	a.chunks, a.triplets, a.entities = nil, nil, nil
}

// assemble reads the segments of the plan back, copies the tables into the
// bundle's data file under their final names, and records every rejection
// in plan order, whether the unit ran now or before.
func (b *build) assemble(ctx context.Context, units []sourceUnit) (assembled, error) {
	var a assembled
	if b.rn.LLM != nil {
		b.extracted = b.rn.LLM.Usage() // extraction ended: what the rate file keeps
	}
	start := time.Now()
	defer func() { b.rep.stage("assemble", start, len(units)) }()
	taken := map[string]bool{}
	keepText := hasTables(units)
	in := interner{}
	b.sourceDigests = map[string]string{}
	for i := range units {
		u := &units[i]
		b.sourceDigests[u.found.Rel] = u.meta.Source.SHA256
		if u.addr != "" {
			b.segments = append(b.segments, u.addr) // a rejection is kept too
		}
		if reason := cmp.Or(u.reject, u.meta.Reject); reason != "" {
			b.rep.reject("ingest", u.found.Rel, reason)
			continue
		}
		a.sources = append(a.sources, u.meta.Source)
		if u.meta.Source.Kind.IsTable() {
			ts, err := b.copyTables(ctx, u, taken)
			if err != nil {
				return a, err
			}
			a.tables = append(a.tables, ts...)
			continue
		}
		if err := b.assembleDocument(ctx, &a, u, keepText, in); err != nil {
			return a, err
		}
	}
	if err := ingest.FindKeys(ctx, b.db, a.tables); err != nil {
		return a, err
	}
	slices.SortFunc(a.triplets, func(x, y kg.Triplet) int { return strings.Compare(x.ID, y.ID) })
	b.log.Info("extraction done", "chunks", len(a.chunks), "triplets", len(a.triplets), "entities", len(a.entities))
	return a, nil
}

// assembleDocument reads back a document's chunks (their text only when
// keepText) and what its extract units found, their strings copied out of
// the reader's buffers through in. What the units found is grounded again
// in the chunks' text (verify.go): it was when the units were reused, but
// the state directory could change since.
func (b *build) assembleDocument(ctx context.Context, a *assembled, u *sourceUnit, keepText bool, in interner) error {
	a.docs = append(a.docs, u)
	var byID map[string]kg.Chunk
	if len(u.extract) > 0 {
		byID = map[string]kg.Chunk{}
	}
	err := b.eachChunkOf(ctx, u, func(c kg.Chunk) error {
		if byID != nil {
			byID[c.ID] = c
		}
		if !keepText {
			c.Text = ""
		}
		in.chunk(&c)
		a.chunks = append(a.chunks, c)
		return nil
	})
	if err != nil {
		return err
	}
	for k, addr := range u.extract {
		b.segments = append(b.segments, addr)
		bm := u.meta.Batches[k] // a build that is no shard has every unit of the document
		ex, err := b.verifier(ctx, u.asks[k], bm.Chunks[0])
		if err != nil {
			return err
		}
		err = b.readExtract(ctx, addr, func(res extract.Result, m extractMeta) {
			res, drops := verifyResult(ex, byID, bm.Chunks, res)
			for _, d := range drops {
				b.rep.warn("state", extractUnitName(u, k), fmt.Sprintf("segment %s: %s does not ground in its chunk (%s): left out", addr, d.what, d.Reason))
			}
			for _, t := range res.Triplets {
				in.triplet(&t)
				a.triplets = append(a.triplets, t)
			}
			for _, e := range res.Entities {
				in.mention(&e)
				a.entities = append(a.entities, e)
			}
			for _, r := range m.Rejected {
				if r.Stage != "extract" || !slices.Contains(bm.Chunks, r.Item) {
					b.rep.warn("state", extractUnitName(u, k), fmt.Sprintf("segment %s rejects %q, not a chunk of its unit: left out", addr, r.Item))
					continue
				}
				b.rep.reject(r.Stage, r.Item, r.Reason)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// hasTables reports whether a build has a table source that loaded.
func hasTables(units []sourceUnit) bool {
	for _, u := range units {
		if u.meta.Source.Kind.IsTable() && u.reject == "" && u.meta.Reject == "" && len(u.meta.Tables) > 0 {
			return true
		}
	}
	return false
}

// eachChunkOf yields a document's chunks, streamed from its segment (or
// from memory while the unit still holds them).
func (b *build) eachChunkOf(ctx context.Context, u *sourceUnit, fn func(kg.Chunk) error) error {
	if u.chunks != nil || u.meta.Reject != "" || len(u.meta.Batches) == 0 {
		for _, c := range u.chunks {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}
	seg, err := b.st.segment(u.addr)
	if err != nil {
		return fmt.Errorf("source %s: %w", u.found.Rel, err)
	}
	// The chunks were checked when the unit was reused; checked again as
	// they are read, since the segment could change since.
	err = bundle.ReadChunks(ctx, filepath.Join(seg, chunksFile), func(c kg.Chunk) error {
		if err := checkChunk(c, u.meta.Source.ID); err != nil {
			return err
		}
		return fn(c)
	})
	if err != nil {
		return fmt.Errorf("source %s: read its chunks: %w", u.found.Rel, err)
	}
	return nil
}

// eachChunk yields every chunk of the bundle with its text, streamed from
// the segments in plan order: what the bundle writer reads (EachChunk).
func (b *build) eachChunk(ctx context.Context, a assembled) func(fn func(kg.Chunk) error) error {
	return func(fn func(kg.Chunk) error) error {
		for _, u := range a.docs {
			if err := b.eachChunkOf(ctx, u, fn); err != nil {
				return err
			}
		}
		return nil
	}
}

// copyTables copies a table source's tables from its segment into the
// bundle's data file, each under the name it wanted made unique among the
// build's tables (taken).
func (b *build) copyTables(ctx context.Context, u *sourceUnit, taken map[string]bool) (_ []kg.Table, err error) {
	if len(u.meta.Tables) == 0 {
		return nil, nil
	}
	seg, err := b.st.segment(u.addr)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", u.found.Rel, err)
	}
	at, err := duck.AttachReadOnly(ctx, b.db, filepath.Join(seg, tablesFile))
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", u.found.Rel, err)
	}
	defer func() { err = errors.Join(err, at.Close()) }()
	out := make([]kg.Table, 0, len(u.meta.Tables))
	for _, t := range u.meta.Tables {
		final := ingest.UniqueName(taken, ingest.TableName(u.meta.Wants[t.Name]))
		if _, err := at.CopyTable(ctx, final, duck.TableRef{Schema: "main", Name: t.Name}); err != nil {
			return nil, fmt.Errorf("source %s: %w", u.found.Rel, err)
		}
		t.Name = final
		for _, w := range t.Warnings {
			b.rep.warn("ingest", u.found.Rel, fmt.Sprintf("table %s: %s", t.Name, w))
		}
		out = append(out, t)
	}
	return out, nil
}
