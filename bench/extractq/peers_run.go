package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"kgforge/bench/quality"
	"kgforge/extract"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/stages"
)

// runPeers runs each named system on the same sample and prints the
// side-by-side table: "kgforge" (kgforge's default configuration),
// "kgforge:<config>" (any of configs), "lightrag", "graphrag".
func runPeers(ctx context.Context, data, set string, n int, seed uint64, model, cacheDir, out, list string, opts peerOptions) error {
	items, schemas, err := load(data, set, false)
	if err != nil {
		return err
	}
	items = quality.Sample(items, n, seed)
	opts.model = model
	var rows []peerScores
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		var got map[string]peerItem
		undirected := false
		switch {
		case name == "kgforge" || strings.HasPrefix(name, "kgforge:"):
			cfg, ok := configNamed(strings.TrimPrefix(strings.TrimPrefix(name, "kgforge"), ":"))
			if !ok {
				return fmt.Errorf("-peers %s: %w (kgforge configurations: %s)", name, errNoPeers, names())
			}
			got, err = kgforgeItems(ctx, cfg, items, schemas, model, cacheDir)
		case peerDrivers[name].name != "":
			d := peerDrivers[name]
			undirected = d.undirected
			got, err = runDriver(ctx, d, opts, items)
		default:
			return fmt.Errorf("-peers %q: %w (kgforge, kgforge:<config>, lightrag, graphrag)", name, errNoPeers)
		}
		if err != nil {
			return err
		}
		s := scorePeer(name, items, got, undirected, seed)
		rows = append(rows, s)
		if err := printPeer(os.Stdout, set, s); err != nil {
			return err
		}
	}
	if out == "" {
		return nil
	}
	b, err := json.MarshalIndent(map[string]any{"set": set, "n": len(items), "seed": seed, "model": model, "embed_model": opts.embed, "systems": rows}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// configNamed returns a kgforge configuration by name; "" is the default.
func configNamed(name string) (config, bool) {
	if name == "" {
		return configs[0], true
	}
	for _, c := range configs {
		if c.name == name {
			return c, true
		}
	}
	return config{}, false
}

// cutCounter counts the replies the output bound cut (done_reason
// "length"); every other method is the client's own.
type cutCounter struct {
	*llm.Client
	cut int
}

func (c *cutCounter) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	r, err := c.Client.Chat(ctx, req)
	if err == nil && r.DoneReason == "length" {
		c.cut++
	}
	return r, err
}

// itemCost is what extracting one item cost kgforge, kept beside its
// cached replies so a rerun reports the run that made them, like the
// peers' drivers do.
type itemCost struct {
	Calls, PromptTokens, CompletionTokens, CutAtBound int
	Seconds                                           float64
}

// kgforgeItems runs kgforge's extractor in one configuration on each item,
// one at a time (so each item's costs are its own), and returns what it
// kept as peerItems: the grounded triplets and entities.
func kgforgeItems(ctx context.Context, cfg config, items []quality.Item, schemas map[string]extract.Schema, model, cacheDir string) (map[string]peerItem, error) {
	client, err := llm.New(llm.Options{})
	if err != nil {
		return nil, err
	}
	defer client.Close()
	digests, err := client.ModelDigests(ctx, model)
	if err != nil {
		return nil, err
	}
	cache, err := stages.OpenDiskCache(cacheDir)
	if err != nil {
		return nil, err
	}
	chat := &cutCounter{Client: client}
	extractors := map[string]*extract.Extractor{}
	for id, s := range schemas {
		ex, err := extract.New(chat, cache, extract.Options{
			Model: model, ModelDigest: digests[model], Schema: s, Evidence: cfg.evidence, Ungrounded: !cfg.ground,
			Gleanings: cfg.gleanings, Mode: cfg.mode, Format: cfg.format,
		})
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", id, err)
		}
		extractors[id] = ex
	}
	out := map[string]peerItem{}
	for _, it := range items {
		ex := extractors[it.Ontology]
		if ex == nil {
			return nil, fmt.Errorf("item %s: no ontology %q", it.ID, it.Ontology)
		}
		p, err := kgforgeItem(ctx, ex, chat, cache, cfg, it)
		if err != nil {
			return nil, err
		}
		out[it.ID] = p
		fmt.Fprintf(os.Stderr, "kgforge %s: %d entities, %d relations, %d calls, %.0fs\n", it.ID, len(p.Entities), len(p.Relations), p.Calls, p.Seconds)
	}
	return out, nil
}

func kgforgeItem(ctx context.Context, ex *extract.Extractor, chat *cutCounter, cache *stages.DiskCache, cfg config, it quality.Item) (peerItem, error) {
	p := peerItem{ID: it.ID, System: "kgforge"}
	sum := sha256.Sum256([]byte(strings.Join([]string{"extractq peers cost", cfg.name, ex.PromptVersion(), it.Text}, "\x00")))
	costKey := hex.EncodeToString(sum[:])
	before, cut, hits, start := chat.Usage(), chat.cut, ex.Stats().CacheHits, time.Now()
	c := kg.Chunk{ID: kg.ChunkID("bench:"+it.ID, it.Text), SourceID: "bench:" + it.ID, Text: it.Text, Span: kg.Span{End: len(it.Text)}}
	res, err := ex.Process(ctx, c)
	switch {
	case errors.Is(err, kg.ErrRejected):
		p.Error = err.Error()
	case err != nil:
		return p, fmt.Errorf("item %s: %w", it.ID, err)
	}
	for _, m := range res.Entities {
		p.Entities = append(p.Entities, peerEntity{Name: m.Surface, Type: m.Type})
	}
	for _, t := range res.Triplets {
		p.Relations = append(p.Relations, peerRelation{Subject: t.Subject.Surface, Predicate: t.Predicate, Object: t.Object.Surface})
	}
	u := chat.Usage()
	cost := itemCost{
		Calls: int(u.Calls - before.Calls), PromptTokens: int(u.PromptTokens - before.PromptTokens),
		CompletionTokens: int(u.CompletionTokens - before.CompletionTokens), CutAtBound: chat.cut - cut, Seconds: timeSince(start),
	}
	if ex.Stats().CacheHits > hits {
		p.Cached = true
		if raw, ok := cache.Get(costKey); ok {
			_ = json.Unmarshal(raw, &cost) // a damaged record leaves this run's (cached) costs
		}
	} else if raw, err := json.Marshal(cost); err == nil {
		if err := cache.Put(costKey, raw); err != nil {
			return p, fmt.Errorf("item %s: keep its cost: %w", it.ID, err)
		}
	}
	p.Calls, p.PromptTokens, p.CompletionTokens, p.CutAtBound, p.Seconds = cost.Calls, cost.PromptTokens, cost.CompletionTokens, cost.CutAtBound, cost.Seconds
	return p, nil
}
