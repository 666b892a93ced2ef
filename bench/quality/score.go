package quality

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// Normalize folds a label for comparison: lower case, punctuation dropped,
// runs of white space made one space — the benchmarks' convention.
func Normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// Counts are the true positives, false positives and false negatives of
// one item.
type Counts struct {
	TP, FP, FN int
}

// Match scores predicted triples against an item's gold ones. A prediction
// is true when its normalised subject, relation and object equal a gold
// triple's that no earlier prediction took; for items with entity
// clusters (Re-DocRED), a subject or object matches any mention of the gold
// entity. Relation labels are compared after normalisation, so "cast member"
// matches "cast_member".
func Match(it Item, pred []Triple) (Counts, []int) {
	used := make([]bool, len(it.Gold))
	matched := make([]int, len(pred)) // index of the gold triple, or -1
	var c Counts
	for i, p := range pred {
		matched[i] = -1
		for j, g := range it.Gold {
			if used[j] || Normalize(p.Relation) != Normalize(g.Relation) {
				continue
			}
			if it.sameEntity(p.Subject, g.Subject) && it.sameEntity(p.Object, g.Object) {
				used[j], matched[i] = true, j
				break
			}
		}
		if matched[i] >= 0 {
			c.TP++
		} else {
			c.FP++
		}
	}
	for _, u := range used {
		if !u {
			c.FN++
		}
	}
	return c, matched
}

func (it Item) sameEntity(pred, gold string) bool {
	p, g := Normalize(pred), Normalize(gold)
	if p == g {
		return true
	}
	return slices.Contains(it.Aliases[g], p)
}

// Scores are micro-averaged precision, recall and F1 with the bounds of
// their 95% bootstrap confidence intervals.
type Scores struct {
	Items                 int
	TP, FP, FN            int
	Precision, Recall, F1 float64
	PrecisionCI, RecallCI [2]float64
	F1CI                  [2]float64
}

func prf(c Counts) (p, r, f float64) {
	if c.TP+c.FP > 0 {
		p = float64(c.TP) / float64(c.TP+c.FP)
	}
	if c.TP+c.FN > 0 {
		r = float64(c.TP) / float64(c.TP+c.FN)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

// Summarize micro-averages per-item counts and bootstraps 95% confidence
// intervals by resampling items (1,000 resamples, fixed seed).
func Summarize(per []Counts, seed uint64) Scores {
	var total Counts
	for _, c := range per {
		total.TP += c.TP
		total.FP += c.FP
		total.FN += c.FN
	}
	s := Scores{Items: len(per), TP: total.TP, FP: total.FP, FN: total.FN}
	s.Precision, s.Recall, s.F1 = prf(total)
	if len(per) == 0 {
		return s
	}
	const resamples = 1000
	r := rand.New(rand.NewPCG(seed, seed+1))
	ps, rs, fs := make([]float64, resamples), make([]float64, resamples), make([]float64, resamples)
	for k := range resamples {
		var c Counts
		for range per {
			x := per[r.IntN(len(per))]
			c.TP += x.TP
			c.FP += x.FP
			c.FN += x.FN
		}
		ps[k], rs[k], fs[k] = prf(c)
	}
	s.PrecisionCI, s.RecallCI, s.F1CI = interval(ps), interval(rs), interval(fs)
	return s
}

func interval(xs []float64) [2]float64 {
	slices.Sort(xs)
	lo := xs[int(math.Floor(0.025*float64(len(xs)-1)))]
	hi := xs[int(math.Ceil(0.975*float64(len(xs)-1)))]
	return [2]float64{lo, hi}
}

// EvidenceInGold reports whether a byte span of an item's text falls inside
// one of the gold evidence sentences of the gold triple it matched
// (Re-DocRED). ok is false when that triple has no evidence annotation.
func EvidenceInGold(it Item, gold int, start, end int) (in, ok bool) {
	if gold < 0 || gold >= len(it.Evidence) || len(it.Evidence[gold]) == 0 {
		return false, false
	}
	for _, s := range it.Evidence[gold] {
		if s < len(it.Sentences) && start >= it.Sentences[s][0] && end <= it.Sentences[s][1] {
			return true, true
		}
	}
	return false, true
}
