package main

import (
	"math"
	"math/rand/v2"
	"slices"

	"kgforge/bench/quality"
)

// overlap is one record's place in the contingency of a predicted and a gold
// clustering of its problem: the size of its predicted cluster, of its gold
// cluster, and of their intersection (each counting the record itself).
type overlap struct {
	pred, gold, both int
}

// overlaps returns, for every record of one problem, the sizes B³ and the
// pair counts are made of. pred and gold are labels of the same length;
// only equality of labels matters, not their values.
func overlaps(pred, gold []int) []overlap {
	type cell struct{ p, g int }
	np, ng, nb := map[int]int{}, map[int]int{}, map[cell]int{}
	for i := range pred {
		np[pred[i]]++
		ng[gold[i]]++
		nb[cell{pred[i], gold[i]}]++
	}
	out := make([]overlap, len(pred))
	for i := range pred {
		out[i] = overlap{pred: np[pred[i]], gold: ng[gold[i]], both: nb[cell{pred[i], gold[i]}]}
	}
	return out
}

// pairCounts are a record's share of the pair counts: the pairs it is in
// that both clusterings join (TP), only the prediction joins (FP), only the
// gold joins (FN). Summed over the records of a problem they count every
// pair twice.
func (o overlap) pairCounts() quality.Counts {
	return quality.Counts{TP: o.both - 1, FP: o.pred - o.both, FN: o.gold - o.both}
}

// PairCounts returns the within-problem pair counts of a predicted clustering
// against the gold one: pairs joined by both (TP), by the prediction only
// (FP), by the gold only (FN).
func PairCounts(pred, gold []int) quality.Counts {
	var c quality.Counts
	for _, o := range overlaps(pred, gold) {
		pc := o.pairCounts()
		c.TP += pc.TP
		c.FP += pc.FP
		c.FN += pc.FN
	}
	return quality.Counts{TP: c.TP / 2, FP: c.FP / 2, FN: c.FN / 2}
}

// B3 is cluster B³ precision, recall and F1 (Bagga and Baldwin 1998): the
// mean over records of |pred ∩ gold| / |pred| and |pred ∩ gold| / |gold|,
// with 95% bootstrap intervals.
type B3 struct {
	Precision, Recall, F1 float64
	PrecisionCI, RecallCI [2]float64
	F1CI                  [2]float64
}

// unit is what the bootstrap resamples: the records of one gold entity of a
// pooled set, or of one document.
type unit struct {
	pairs      quality.Counts // every pair counted twice, see pairCounts
	sumP, sumR float64        // B³ precision and recall summed over the unit's records
	records    int
}

// Scores is one method's result on one data set.
type Scores struct {
	Pairwise quality.Scores `json:"pairwise"`
	B3       B3             `json:"b3"`
}

const resamples = 1000

// score turns the units of a data set into pairwise and B³ scores with 95%
// bootstrap intervals over units (1,000 resamples, fixed seed).
func score(units []unit, seed uint64) Scores {
	per := make([]quality.Counts, len(units))
	for i, u := range units {
		per[i] = u.pairs
	}
	// Ratios do not change when every pair is counted twice, so Summarize's
	// precision, recall, F1 and intervals stand; only the totals are halved.
	pw := quality.Summarize(per, seed)
	pw.TP, pw.FP, pw.FN = pw.TP/2, pw.FP/2, pw.FN/2
	return Scores{Pairwise: pw, B3: b3Of(units, seed)}
}

func b3Of(units []unit, seed uint64) B3 {
	var b B3
	b.Precision, b.Recall, b.F1 = b3Sum(units, nil)
	if len(units) == 0 {
		return b
	}
	r := rand.New(rand.NewPCG(seed, seed+2))
	ps, rs, fs := make([]float64, resamples), make([]float64, resamples), make([]float64, resamples)
	pick := make([]int, len(units))
	for k := range resamples {
		for i := range pick {
			pick[i] = r.IntN(len(units))
		}
		ps[k], rs[k], fs[k] = b3Sum(units, pick)
	}
	b.PrecisionCI, b.RecallCI, b.F1CI = interval(ps), interval(rs), interval(fs)
	return b
}

// b3Sum averages B³ precision and recall over the records of the units
// picked (all of them when pick is nil).
func b3Sum(units []unit, pick []int) (p, r, f float64) {
	var sp, sr float64
	n := 0
	add := func(u unit) {
		sp += u.sumP
		sr += u.sumR
		n += u.records
	}
	if pick == nil {
		for _, u := range units {
			add(u)
		}
	} else {
		for _, i := range pick {
			add(units[i])
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	p, r = sp/float64(n), sr/float64(n)
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

// interval is the percentile 95% interval, as bench/quality computes it.
func interval(xs []float64) [2]float64 {
	slices.Sort(xs)
	lo := xs[int(math.Floor(0.025*float64(len(xs)-1)))]
	hi := xs[int(math.Ceil(0.975*float64(len(xs)-1)))]
	return [2]float64{lo, hi}
}

// unitsOf splits one problem's records into bootstrap units: all of them one
// unit when whole is true (a document), else one unit per gold entity.
func unitsOf(pred, gold []int, whole bool) []unit {
	ov := overlaps(pred, gold)
	byGold := map[int]int{}
	var units []unit
	for i, o := range ov {
		k := 0
		if !whole {
			var ok bool
			if k, ok = byGold[gold[i]]; !ok {
				k = len(units)
				byGold[gold[i]] = k
				units = append(units, unit{})
			}
		} else if len(units) == 0 {
			units = append(units, unit{})
		}
		u := &units[k]
		pc := o.pairCounts()
		u.pairs.TP += pc.TP
		u.pairs.FP += pc.FP
		u.pairs.FN += pc.FN
		u.sumP += float64(o.both) / float64(o.pred)
		u.sumR += float64(o.both) / float64(o.gold)
		u.records++
	}
	return units
}

// nearMissMerged counts the planted near-miss pairs of gold entities that
// the prediction puts, through any of their records, in one cluster.
func nearMissMerged(pred, gold []int, pairs [][2]int) int {
	clusters := map[int]map[int]bool{} // gold entity → predicted clusters of its records
	for i := range pred {
		if clusters[gold[i]] == nil {
			clusters[gold[i]] = map[int]bool{}
		}
		clusters[gold[i]][pred[i]] = true
	}
	n := 0
	for _, p := range pairs {
		for c := range clusters[p[0]] {
			if clusters[p[1]][c] {
				n++
				break
			}
		}
	}
	return n
}
