package main

import (
	"context"
	"fmt"

	"kgforge/consolidate/resolve"
)

// kgforgeResolver returns kgforge's own entity resolution
// (kgforge/consolidate/resolve with cfg) as a Method, to be compared with
// the baselines in the same run. It and fit.go are the places that know
// that package.
//
// Each record becomes one resolve.Entity: Key is the record id, Vector the
// embedding of the name that the baselines use too; Description (a second
// signal of the score, and what chooses canonical names), Mentions and
// Neighbours (the names it is related to: PATSTAT's co-inventors,
// DBLP-ACM's authors) go through. Evidence, the number of grounded facts
// of an entity, is 0: the benchmark sets have names, not facts.
// Record.Context has no field to go to and is left out.
func kgforgeResolver(name string, cfg resolve.Config) Method {
	return Method{Name: name, Vectors: true, Resolve: func(ctx context.Context, records []Record) ([]int, error) {
		res, err := resolve.Resolve(ctx, entitiesOf(records), cfg)
		if err != nil {
			return nil, fmt.Errorf("resolve: %w", err)
		}
		clusters := make([][]string, len(res.Clusters))
		for i, c := range res.Clusters {
			clusters[i] = c.Members
		}
		return labelsFromClusters(records, clusters)
	}, Explain: func(ctx context.Context, records []Record) (map[[2]string]string, error) {
		return explainPairs(ctx, records, cfg)
	}}
}

// explainPairs resolves the records again and says, for each pair the
// resolver decided, how: "merged: RULE" for an accepted link, "cut: REASON"
// for a link a cluster bound cut, "uncertain: RULE" for a pair left for
// review, "candidate: RULE" or "candidate" for a candidate decided apart
// without review. A pair of records that is none of these was never a
// candidate (or is joined through others).
func explainPairs(ctx context.Context, records []Record, cfg resolve.Config) (map[[2]string]string, error) {
	ents := entitiesOf(records)
	res, err := resolve.Resolve(ctx, ents, cfg)
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	cands, err := resolve.Candidates(ctx, ents, cfg)
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	why := make(map[[2]string]string)
	set := func(a, b, reason string) {
		if b < a {
			a, b = b, a
		}
		why[[2]string{a, b}] = reason
	}
	for _, c := range cands {
		if c.Decided != "" {
			set(c.A, c.B, "candidate: "+string(c.Decided))
		} else {
			set(c.A, c.B, "candidate")
		}
	}
	for _, p := range res.Uncertain {
		set(p.A, p.B, "uncertain: "+string(p.Rule))
	}
	for _, s := range res.Splits {
		for _, p := range s.Cut {
			set(p.A, p.B, "cut: "+string(s.Reason))
		}
	}
	for _, c := range res.Clusters {
		for _, p := range c.Merges {
			set(p.A, p.B, "merged: "+string(p.Rule))
		}
	}
	return why, nil
}

// entitiesOf makes each record a resolve.Entity (see kgforgeResolver).
func entitiesOf(records []Record) []resolve.Entity {
	ents := make([]resolve.Entity, len(records))
	for i, r := range records {
		ents[i] = resolve.Entity{
			Key: r.ID, Name: r.Name, Type: r.Type, Description: r.Description,
			Mentions: r.Mentions, Vector: r.Vector, Neighbours: r.Neighbours,
		}
	}
	return ents
}

// labelsFromClusters turns a resolver's clusters of record ids into labels
// in record order. A record in no cluster is an entity of its own; an id that
// is not a record's, or that is in two clusters, is an error.
func labelsFromClusters(records []Record, clusters [][]string) ([]int, error) {
	index := make(map[string]int, len(records))
	for i, r := range records {
		if _, dup := index[r.ID]; dup {
			return nil, fmt.Errorf("record id %s twice in one problem", r.ID)
		}
		index[r.ID] = i
	}
	labels := make([]int, len(records))
	for i := range labels {
		labels[i] = -1
	}
	next := 0
	for _, c := range clusters {
		if len(c) == 0 {
			continue
		}
		for _, id := range c {
			i, ok := index[id]
			if !ok {
				return nil, fmt.Errorf("resolver returned id %s, which is no record of the problem", id)
			}
			if labels[i] >= 0 {
				return nil, fmt.Errorf("resolver put id %s in two clusters", id)
			}
			labels[i] = next
		}
		next++
	}
	for i := range labels {
		if labels[i] < 0 {
			labels[i] = next
			next++
		}
	}
	return labels, nil
}

// candidateRecall is how many of a problem's true pairs kgforge's resolver
// makes candidates before any scoring.
type candidateRecall struct {
	TruePairs  int `json:"true_pairs"`
	Candidates int `json:"candidate_pairs"`
	// Found are the true pairs that are candidate pairs themselves (every
	// candidate resolve.Candidates returns, those a rule decides included).
	Found int `json:"found"`
	// Connected are the true pairs joined by a path of candidate pairs: the
	// most that union-find over the candidates could put together (a block
	// of equal names too large for all its pairs is linked as a star, so
	// its pairs are connected but not all candidates).
	Connected int `json:"connected"`
}

func (c *candidateRecall) add(o candidateRecall) {
	c.TruePairs += o.TruePairs
	c.Candidates += o.Candidates
	c.Found += o.Found
	c.Connected += o.Connected
}

// Recall is Found over TruePairs; 1 without true pairs.
func (c candidateRecall) Recall() float64 { return ratioOr1(c.Found, c.TruePairs) }

// ConnectedRecall is Connected over TruePairs; 1 without true pairs.
func (c candidateRecall) ConnectedRecall() float64 { return ratioOr1(c.Connected, c.TruePairs) }

func ratioOr1(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// candidatePairs returns the candidate pairs kgforge's resolver forms for a
// problem's records with its default configuration, as record indexes
// i < j, from the exported resolve.Candidates (the pairs Resolve decides).
func candidatePairs(ctx context.Context, records []Record) ([][2]int, error) {
	cands, err := resolve.Candidates(ctx, entitiesOf(records), resolve.Config{})
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	index := make(map[string]int, len(records))
	for i, r := range records {
		index[r.ID] = i
	}
	out := make([][2]int, 0, len(cands))
	for _, c := range cands {
		i, okA := index[c.A]
		j, okB := index[c.B]
		if !okA || !okB {
			return nil, fmt.Errorf("candidate pair %s, %s names no record of the problem", c.A, c.B)
		}
		if i > j {
			i, j = j, i
		}
		out = append(out, [2]int{i, j})
	}
	return out, nil
}

// recallOf counts the true pairs among records keep accepts (all of them
// when keep is nil) that the candidate pairs find, directly and through a
// path of candidates; pairs count only when both records are kept, and the
// path may pass through any record.
func recallOf(pairs [][2]int, gold []int, keep func(i int) bool) candidateRecall {
	in := func(i int) bool { return keep == nil || keep(i) }
	var c candidateRecall
	u := newUnionFind(len(gold))
	for _, p := range pairs {
		u.union(p[0], p[1])
		if in(p[0]) && in(p[1]) {
			c.Candidates++
			if gold[p[0]] == gold[p[1]] {
				c.Found++
			}
		}
	}
	type cell struct{ gold, comp int }
	goldSize, both := map[int]int{}, map[cell]int{}
	for i, g := range gold {
		if in(i) {
			goldSize[g]++
			both[cell{g, u.find(i)}]++
		}
	}
	for _, n := range goldSize {
		c.TruePairs += n * (n - 1) / 2
	}
	for _, n := range both {
		c.Connected += n * (n - 1) / 2
	}
	return c
}
