package consolidate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kgforge/consolidate/resolve"
)

// predicateMap sends each extracted predicate to the one the graph uses.
type predicateMap struct {
	canon  map[string]string
	merged map[string]string // only the predicates that changed, for the report
}

func (p predicateMap) of(pred string) string {
	if c, ok := p.canon[pred]; ok {
		return c
	}
	if n := resolve.NormalizePredicate(pred); n != "" {
		return n
	}
	return pred
}

// canonicalPredicates normalises predicates to lower snake case and, unless
// a schema fixed them, clusters synonymous ones by the embeddings of their
// words with the thresholds of entity resolution. Overrides name entities,
// not predicates, so none apply here.
func canonicalPredicates(ctx context.Context, in Input, cfg resolve.Config) (predicateMap, error) {
	counts := map[string]int{}
	for _, t := range in.Triplets {
		counts[t.Predicate]++
	}
	m := predicateMap{canon: map[string]string{}, merged: map[string]string{}}
	if in.FixedPredicates || in.Embedder == nil || len(counts) == 0 {
		for p := range counts {
			if n := m.of(p); n != p {
				m.merged[p] = n
			}
		}
		return m, nil
	}
	names := make([]string, 0, len(counts))
	for p := range counts {
		names = append(names, p)
	}
	slices.Sort(names)
	texts := make([]string, len(names))
	for i, p := range names {
		texts[i] = strings.ReplaceAll(resolve.NormalizePredicate(p), "_", " ")
	}
	vecs, err := in.Embedder.Embed(ctx, texts)
	if err != nil {
		return m, fmt.Errorf("embed %d predicates: %w", len(texts), err)
	}
	preds := make([]resolve.Predicate, len(names))
	for i, p := range names {
		preds[i] = resolve.Predicate{Name: p, Count: counts[p], Vector: vecs[i]}
	}
	cfg.Overrides = resolve.Overrides{}
	canon, _, err := resolve.ClusterPredicates(ctx, preds, cfg)
	if err != nil {
		return m, fmt.Errorf("cluster predicates: %w", err)
	}
	m.canon = canon
	for _, p := range names {
		if c := m.of(p); c != p {
			m.merged[p] = c
		}
	}
	return m, nil
}
