package main

import (
	"context"
	"fmt"
	"unicode/utf8"

	"kgforge/kg"
)

// ruleGrid are the thresholds at which the out-of-sample evaluation runs
// the fuzzy and cosine rules; picking one of them on data is a fit.
var ruleGrid = []float64{0.70, 0.75, 0.80, 0.85, 0.90}

// simPair is a same-type pair of records of one problem, i < j, with the
// similarity a rule compares with its threshold.
type simPair struct {
	i, j int32
	s    float64
}

// cosinePairs returns every same-type pair whose cosine is at least floor,
// the cosine as float32 arithmetic gives it (what Cosine compares), so that
// labelsAt(pairs, cosineCut(t)) is Cosine(t)'s clustering for every t ≥
// floor.
func cosinePairs(ctx context.Context, records []Record, floor float64) ([]simPair, error) {
	unit := make([][]float32, len(records))
	for i, r := range records {
		if len(r.Vector) == 0 {
			return nil, fmt.Errorf("record %s has no embedding", r.ID)
		}
		if len(r.Vector) != len(records[0].Vector) {
			return nil, fmt.Errorf("record %s: embedding of %d dimensions, %s has %d", r.ID, len(r.Vector), records[0].ID, len(records[0].Vector))
		}
		unit[i] = normalized(r.Vector)
	}
	cut := cosineCut(floor)
	return typedPairs(ctx, records, func(i, j int) (float64, bool) {
		s := float64(dot(unit[i], unit[j]))
		return s, s >= cut
	})
}

// cosineCut is the threshold t as Cosine compares it: in float32.
func cosineCut(t float64) float64 { return float64(float32(t)) }

// fuzzyPairs returns every same-type pair whose folded names have a
// normalised Levenshtein similarity of at least floor (what Fuzzy
// compares), so that labelsAt(pairs, t) is Fuzzy(t)'s clustering for every
// t ≥ floor.
func fuzzyPairs(ctx context.Context, records []Record, floor float64) ([]simPair, error) {
	names := make([]string, len(records))
	lens := make([]int, len(records))
	for i, r := range records {
		names[i] = kg.NormalizeName(r.Name)
		lens[i] = utf8.RuneCountInString(names[i])
	}
	return typedPairs(ctx, records, func(i, j int) (float64, bool) {
		// The distance is at least the difference of lengths.
		if m := max(lens[i], lens[j]); m > 0 && 1-float64(abs(lens[i]-lens[j]))/float64(m) < floor {
			return 0, false
		}
		s := Similarity(names[i], names[j])
		return s, s >= floor
	})
}

// typedPairs returns the same-type pairs that sim keeps, with their
// similarity.
func typedPairs(ctx context.Context, records []Record, sim func(i, j int) (float64, bool)) ([]simPair, error) {
	var out []simPair
	for _, g := range byType(records) {
		for a, i := range g {
			if a%256 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, j := range g[a+1:] {
				if s, ok := sim(i, j); ok {
					out = append(out, simPair{i: int32(min(i, j)), j: int32(max(i, j)), s: s})
				}
			}
		}
	}
	return out, nil
}

// labelsAt clusters n records by the transitive closure of the pairs whose
// similarity is at least cut, labelled as unionFind.labels does.
func labelsAt(n int, pairs []simPair, cut float64) []int {
	u := newUnionFind(n)
	for _, p := range pairs {
		if p.s >= cut {
			u.union(int(p.i), int(p.j))
		}
	}
	return u.labels()
}

// cosineName and fuzzyName are the names Cosine and Fuzzy give their
// methods.
func cosineName(t float64) string { return fmt.Sprintf("cosine-%.2g", t) }
func fuzzyName(t float64) string  { return fmt.Sprintf("fuzzy-%.2g", t) }

// simpleRules are the names of the rules without a learned part, in report
// order: exact, then fuzzy and cosine at every threshold of ruleGrid.
func simpleRules() []string {
	out := []string{"exact"}
	for _, t := range ruleGrid {
		out = append(out, fuzzyName(t))
	}
	for _, t := range ruleGrid {
		out = append(out, cosineName(t))
	}
	return out
}

// simpleLabels runs exact and every fuzzy and cosine threshold of ruleGrid
// on one problem, computing each similarity once; vectors says the
// records have embeddings (without them the cosine rules are left out).
func simpleLabels(ctx context.Context, records []Record, vectors bool) (map[string][]int, error) {
	out := map[string][]int{}
	ex, err := Exact(ctx, records)
	if err != nil {
		return nil, err
	}
	out["exact"] = ex
	floor := ruleGrid[0]
	for _, t := range ruleGrid {
		floor = min(floor, t)
	}
	fz, err := fuzzyPairs(ctx, records, floor)
	if err != nil {
		return nil, err
	}
	for _, t := range ruleGrid {
		out[fuzzyName(t)] = labelsAt(len(records), fz, t)
	}
	if !vectors {
		return out, nil
	}
	cs, err := cosinePairs(ctx, records, floor)
	if err != nil {
		return nil, err
	}
	for _, t := range ruleGrid {
		out[cosineName(t)] = labelsAt(len(records), cs, cosineCut(t))
	}
	return out, nil
}
