package stages

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"kgforge/extract"
	"kgforge/kg"
	"kgforge/llm"
)

// A build asks the LLM server only for what it uses, when it first uses it:
// the chat model when a chunk has a sentence to ask about, the embedding
// model when there are entities to resolve, the judge (the chat model)
// when there are entities too. A build of tables alone, or of documents
// whose chunks hold no sentence, never talks to the server.
//
// A chunk served from the cache still needs the server: the cache key
// holds the model's digest, which only the server knows, so that a model
// replaced under the same name is never credited with its predecessor's
// replies. Running without a server from a warm cache would need the
// digest kept from an earlier run, which is exactly what the key is there
// not to trust.

// modelDigests asks the server for a model's digest the first time the
// build needs it and remembers it. That first request checks every model
// in want at once, so that a missing embedding model fails the build at
// its first chunk rather than after the whole extraction. It is safe for
// concurrent use.
type modelDigests struct {
	client *llm.Client
	want   []string // the models the build may use
	mu     sync.Mutex
	got    map[string]string
}

// get returns the digest of model, asking the server once.
func (m *modelDigests) get(ctx context.Context, model string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.got[model]; ok {
		return d, nil
	}
	names := []string{model}
	for _, w := range m.want {
		if m.got == nil && !slices.Contains(names, w) {
			names = append(names, w)
		}
	}
	ds, err := m.client.ModelDigests(ctx, names...)
	if err != nil {
		return "", err
	}
	if m.got == nil {
		m.got = map[string]string{}
	}
	for _, n := range names {
		m.got[n] = ds[n]
	}
	return ds[model], nil
}

// known returns the digest of model if the build asked for it, or "".
func (m *modelDigests) known(model string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.got[model]
}

// lazyExtractor builds the extractor for the first chunk that has a
// sentence to ask about, since the extractor's cache keys need the chat
// model's digest. Chunks with no sentence are counted as skipped without
// it, as the extractor itself would count them. It is safe for concurrent
// use.
type lazyExtractor struct {
	client  *llm.Client
	cache   extract.Cache
	opts    extract.Options // ModelDigest is filled in when the model is asked
	digests *modelDigests

	// budget, when set, stops extraction once the build's counted
	// tokens reach it (budget.go).
	budget *tokenBudget

	mu       sync.Mutex // guards ex, resolved and err
	ex       *extract.Extractor
	resolved extract.Options // the options ex was built with
	err      error
	skipped  atomic.Int64
}

// Process extracts from one chunk, as (*extract.Extractor).Process does.
func (l *lazyExtractor) Process(ctx context.Context, c kg.Chunk) (extract.Result, error) {
	if len(extract.Sentences(c.Text)) == 0 {
		l.skipped.Add(1)
		return extract.Result{}, nil // a heading or a fragment: nothing to state a fact
	}
	if err := l.budget.check(); err != nil {
		return extract.Result{}, err
	}
	ex, err := l.extractor(ctx, c)
	if err != nil {
		return extract.Result{}, err
	}
	return ex.Process(ctx, c)
}

// extractor returns the extractor, building it on the first call. A
// failure is fatal to the build, so it is kept and returned to every
// caller.
func (l *lazyExtractor) extractor(ctx context.Context, c kg.Chunk) (*extract.Extractor, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ex != nil || l.err != nil {
		return l.ex, l.err
	}
	opts := l.opts
	if opts.ModelDigest, l.err = l.digests.get(ctx, opts.Model); l.err != nil {
		l.err = fmt.Errorf("extract chunk %s: chat model %s: %w", c.ID, opts.Model, l.err)
		return nil, l.err
	}
	if opts.Mode == extract.ModeAuto {
		info, err := l.client.Info(ctx, opts.Model)
		if err != nil {
			l.err = fmt.Errorf("extract chunk %s: chat model %s: %w", c.ID, opts.Model, err)
			return nil, l.err
		}
		opts.Mode = extract.ModeFor(info) // a base model is driven by completion
	}
	l.ex, l.err = extract.New(l.client, l.cache, opts)
	l.resolved = opts
	return l.ex, l.err
}

// probe returns an extractor like the build's, with its options resolved
// (the model's digest and mode), that answers from the cache alone and
// sends every miss to p instead of the server; nil when no chunk has needed
// the extractor yet.
func (l *lazyExtractor) probe(p *probe) (*extract.Extractor, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ex == nil {
		return nil, l.err
	}
	return extract.New(p, readOnlyCache{l.cache}, l.resolved)
}

// promptVersion is the version of the prompt the extractor uses, once
// built (its mode resolved), else that of checked.
func (l *lazyExtractor) promptVersion(checked *extract.Extractor) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ex != nil {
		return l.ex.PromptVersion()
	}
	return checked.PromptVersion()
}

// Stats returns what extraction did so far.
func (l *lazyExtractor) Stats() extract.Stats {
	s := extract.Stats{Dropped: map[string]int{}, EntitiesDropped: map[string]int{}, Cut: map[string]int{}}
	l.mu.Lock()
	if l.ex != nil {
		s = l.ex.Stats()
	}
	l.mu.Unlock()
	n := int(l.skipped.Load())
	s.Chunks += n
	s.Skipped += n
	return s
}
