package stages

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"kgforge/extract"
	"kgforge/ingest"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/pipelines"
)

// Forecast is what a build of a pipeline would do now, found without
// running it (kgforge build --plan): the sources it would read, the units
// it would run and reuse, the chunks of those units that miss the LLM
// cache, and what they would cost at the rate measured on this server.
type Forecast struct {
	Pipeline string `json:"pipeline"`
	Output   string `json:"output"`
	// Sources by URI, against the build latest points at, as Plan has them.
	Added     []string `json:"sources_added"`
	Changed   []string `json:"sources_changed"`
	Unchanged []string `json:"sources_unchanged"`
	Removed   []string `json:"sources_removed"`
	// SourcesToRead counts the sources the build would open: those the
	// file index does not vouch for, or whose segment is not stored.
	SourcesToRead int `json:"sources_to_read"`
	// Rejected are the sources the build would reject, as far as opening
	// and cutting them tells.
	Rejected []Reject `json:"rejected"`
	// Units counts the units by kind: Run those the build would run.
	Units  map[string]*UnitCounts `json:"units"`
	Chunks ChunkForecast          `json:"chunks"`
	// Documents are the documents with extract units to run, in plan order.
	Documents []DocumentForecast `json:"documents"`
	Estimate  Estimate           `json:"estimate"`

	toRun []string // the addresses of the extract units to run
}

// ChunkForecast counts the chunks of a plan.
type ChunkForecast struct {
	Reused     int `json:"reused"`          // chunks of reused extract units: not sent to the extractor
	ToExtract  int `json:"in_units_to_run"` // chunks of the extract units to run; the four below sum to it
	Misses     int `json:"cache_misses"`    // would be sent to the model
	CacheHits  int `json:"cache_hits"`      // every reply they need is in the LLM cache
	NoSentence int `json:"without_sentences"`
	TooLong    int `json:"too_long"` // would be rejected: prompt and reply over llm.max_context
}

// DocumentForecast is one document with extract units to run.
type DocumentForecast struct {
	URI          string   `json:"uri"`
	ExtractUnits int      `json:"extract_units_to_run"`
	Chunks       int      `json:"chunks"`       // in those units
	Misses       []string `json:"cache_misses"` // the ids of their chunks that miss the cache
}

// Estimate is what the chunks that miss the cache would cost.
type Estimate struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"` // 0 when no rate is measured
	// CompletionBound is the most completion tokens the first calls may
	// take: the sum of their reply bounds.
	CompletionBound int64   `json:"completion_tokens_bound"`
	PromptBytes     int64   `json:"prompt_bytes"` // of the first call of each chunk
	Seconds         float64 `json:"seconds"`      // 0 when no rate is measured
	// Rate is the measure the estimate is made at; nil when none was
	// measured yet (then the prompt tokens come from the prompts' size).
	Rate *Rate `json:"rate"`
}

// Forecast says what Run would do now, without doing it: it takes no lock
// and writes nothing under the output directory (the state directory is
// only read), reads and cuts the sources a build would read (in memory),
// and checks the LLM cache for every chunk of the extract units to run.
// It asks the LLM server only for the chat model's digest and template
// (the cache keys hold them), never for a reply.
func (rn *Runner) Forecast(ctx context.Context, p *pipelines.Pipeline) (_ *Forecast, err error) {
	b := rn.newBuild(p)
	b.st = readState(b.outDir) // read only: openState would create and clean it
	defer func() {
		if b.root != nil {
			err = errors.Join(err, b.root.Close())
		}
	}()
	if err := b.prepare(); err != nil {
		return nil, err
	}
	return b.forecast(ctx)
}

// forecast plans the build's units as produce would run them.
func (b *build) forecast(ctx context.Context) (*Forecast, error) {
	f := &Forecast{
		Pipeline: b.p.Name, Output: b.outDir, Rejected: []Reject{}, Documents: []DocumentForecast{},
		Units: map[string]*UnitCounts{"source": {}, "extract": {}},
	}
	pl := &planner{b: b, f: f}
	digests := map[string]string{}
	for _, found := range b.found {
		if !b.runsSource(found) {
			continue // another shard's (shard.go)
		}
		u, err := pl.source(ctx, found)
		if err != nil {
			return nil, err
		}
		digests[found.Rel] = u.meta.Source.SHA256
		if reason := cmp.Or(u.reject, u.meta.Reject); reason != "" {
			f.Rejected = append(f.Rejected, Reject{Stage: "ingest", Item: found.Rel, Reason: reason})
			continue
		}
		if err := pl.extract(ctx, &u); err != nil {
			return nil, err
		}
	}
	var cmpPlan Plan
	cmpPlan.compare(b.prev, digests)
	f.Added, f.Changed, f.Unchanged, f.Removed = cmpPlan.Added, cmpPlan.Changed, cmpPlan.Unchanged, cmpPlan.Removed
	rate, err := loadRate(b.rn.CacheDir, b.p.LLM.ChatModel, b.host())
	if err != nil {
		return nil, err
	}
	f.estimate(rate)
	return f, nil
}

// planner walks the units of a plan, as produce would run them.
type planner struct {
	b     *build
	f     *Forecast
	probe probe
	px    *extract.Extractor // the extractor on the probe, built for the first chunk asked about
}

// source plans one source unit: reused when the file index vouches for
// the file and its segment is stored, else read and cut (in memory) as
// readSource would.
func (pl *planner) source(ctx context.Context, f ingest.Found) (sourceUnit, error) {
	b, units := pl.b, pl.f.Units["source"]
	u := sourceUnit{found: f}
	if f.Kind == kg.KindPostgres { // always runs (readSource)
		opt := sourceOptions(b.bySource[f.Source], b.limits)
		u.meta.Source = kg.Source{URI: f.Rel, Kind: kg.KindPostgres, SHA256: ingest.ConnectionDigest(opt)}
		pl.f.SourcesToRead++
		units.Run++
		return u, nil
	}
	if info, err := b.root.Stat(f.Rel); err == nil {
		if sha, ok := b.index.lookup(b.indexKey(f), info); ok {
			if addr := b.sourceAddress(f, sha); b.st.usable(addr) {
				u.addr, u.reused = addr, true
				units.Reused++
				return u, b.st.meta(addr, &u.meta)
			}
		}
	}
	pl.f.SourcesToRead++
	o, err := ingest.Open(b.root, b.rootDir, f, b.limits)
	if err != nil {
		if !errors.Is(err, kg.ErrRejected) {
			return u, err
		}
		u.reject = err.Error()
		return u, nil
	}
	u.addr = b.sourceAddress(f, o.Source.SHA256)
	if b.st.usable(u.addr) {
		u.reused = true
		units.Reused++
		err := b.st.meta(u.addr, &u.meta)
		u.meta.Source = o.Source
		return u, err
	}
	units.Run++
	u.meta.Source = o.Source
	if o.Source.Kind.IsTable() {
		return u, nil // loaded and profiled by the build: it has no chunks
	}
	u.chunks, err = b.cutDocument(ctx, &u, o.Data)
	if err != nil {
		if !errors.Is(err, kg.ErrRejected) {
			return u, err
		}
		u.meta.Reject, u.chunks = err.Error(), nil
	}
	u.meta.Batches = batches(u.chunks)
	return u, nil
}

// extract plans the extract units of one document, as feed would: those
// whose segment is stored are reused, the chunks of the others are
// checked against the LLM cache.
func (pl *planner) extract(ctx context.Context, u *sourceUnit) error {
	b, f := pl.b, pl.f
	if b.p.Extract.Skip || len(u.meta.Batches) == 0 {
		return nil
	}
	var byID map[string]kg.Chunk
	doc := -1
	for _, bm := range u.meta.Batches {
		if !b.owns(bm) {
			continue // another shard's (shard.go)
		}
		addr, err := b.extractAddress(ctx, bm)
		if err != nil {
			return err
		}
		if b.st.usable(addr) {
			f.Units["extract"].Reused++
			f.Chunks.Reused += len(bm.Chunks)
			continue
		}
		f.Units["extract"].Run++
		f.toRun = append(f.toRun, addr)
		if byID == nil {
			chunks, err := b.chunksOf(ctx, u)
			if err != nil {
				return err
			}
			byID = make(map[string]kg.Chunk, len(chunks))
			for _, c := range chunks {
				byID[c.ID] = c
			}
			f.Documents = append(f.Documents, DocumentForecast{URI: u.found.Rel, Misses: []string{}})
			doc = len(f.Documents) - 1
		}
		f.Documents[doc].ExtractUnits++
		for _, id := range bm.Chunks {
			c, ok := byID[id]
			if !ok {
				return fmt.Errorf("extract unit %s: chunk %s is not in its source's segment", addr, id)
			}
			if err := pl.chunk(ctx, &f.Documents[doc], c); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunk checks one chunk against the LLM cache: the build's extractor
// runs on it with the probe in place of the server, so a miss is a
// request the probe records and refuses.
func (pl *planner) chunk(ctx context.Context, d *DocumentForecast, c kg.Chunk) error {
	f := pl.f
	f.Chunks.ToExtract++
	d.Chunks++
	if len(extract.Sentences(c.Text)) == 0 {
		f.Chunks.NoSentence++
		return nil
	}
	if pl.px == nil {
		if _, err := pl.b.ex.extractor(ctx, c); err != nil {
			return err
		}
		px, err := pl.b.ex.probe(&pl.probe)
		if err != nil {
			return err
		}
		pl.px = px
	}
	pl.probe = probe{}
	_, err := pl.px.Process(ctx, c)
	switch {
	case errors.Is(err, extract.ErrTooLong):
		f.Chunks.TooLong++
	case pl.probe.calls > 0:
		f.Chunks.Misses++
		d.Misses = append(d.Misses, c.ID)
		f.Estimate.PromptBytes += pl.probe.promptBytes
		f.Estimate.CompletionBound += pl.probe.predict
	case err != nil && !isRejected(err):
		return err
	default:
		f.Chunks.CacheHits++
	}
	return nil
}

// bytesPerToken is the prompt's size per token the estimate assumes when
// no rate is measured: the extractor's own over-estimate for prose.
const bytesPerToken = 3

// estimate prices the misses at r; with no rate measured, the prompt
// tokens come from the prompts' size and the completion is left at its
// bound.
func (f *Forecast) estimate(r *Rate) {
	e := &f.Estimate
	if r == nil || r.Chunks == 0 {
		e.PromptTokens = e.PromptBytes / bytesPerToken
		return
	}
	e.Rate = r
	m := float64(f.Chunks.Misses)
	e.PromptTokens = int64(m * float64(r.PromptTokens) / float64(r.Chunks))
	e.CompletionTokens = int64(m * float64(r.CompletionTokens) / float64(r.Chunks))
	e.Seconds = m * r.SecondsPerChunk
}

// probe stands in for the LLM server while a plan checks the cache: it
// records the first request of a chunk that misses and refuses it, so the
// model is never asked.
type probe struct {
	calls       int
	promptBytes int64
	predict     int64
}

var errProbe = errors.New("a plan sends nothing to the model")

// Chat records a chat request.
func (p *probe) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	p.calls++
	for _, m := range req.Messages {
		p.promptBytes += int64(len(m.Content))
	}
	p.predict += int64(req.NumPredict)
	return llm.ChatResponse{}, errProbe
}

// Generate records a completion request.
func (p *probe) Generate(_ context.Context, req llm.GenerateRequest) (llm.ChatResponse, error) {
	p.calls++
	p.promptBytes += int64(len(req.Prompt))
	p.predict += int64(req.NumPredict)
	return llm.ChatResponse{}, errProbe
}

// readOnlyCache reads the extract cache and never writes it.
type readOnlyCache struct{ c extract.Cache }

func (r readOnlyCache) Get(key string) ([]byte, bool) { return r.c.Get(key) }
func (readOnlyCache) Put(string, []byte) error        { return nil }
