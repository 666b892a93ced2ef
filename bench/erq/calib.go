package main

import "math"

// reliabilityBins is the number of equal-width bins of predicted
// probability in a reliability table and in the expected calibration error.
const reliabilityBins = 10

// highConfidence is the score from which a pair is called near certain: the
// reliability table shows the pairs at or above it on a line of their own,
// because a reviewer reads 0.99 as "right 99 times in 100".
const highConfidence = 0.99

// scoredPair is one candidate pair's predicted probability of being one
// entity and whether the gold says it is.
type scoredPair struct {
	p    float64
	same bool
}

// Bin is one line of a reliability table: the pairs whose predicted
// probability lies in [Lo, Hi) (the last bin includes 1), their mean
// prediction and the share of them that are one entity.
type Bin struct {
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Pairs     int     `json:"pairs"`
	TruePairs int     `json:"true_pairs"`
	Predicted float64 `json:"mean_predicted"`
	Observed  float64 `json:"observed"`
}

// Calibration is a reliability table and its expected calibration error.
type Calibration struct {
	Pairs     int     `json:"pairs"`
	TruePairs int     `json:"true_pairs"`
	ECE       float64 `json:"ece"`       // Σ_bins pairs/N · |observed − predicted|
	MaxGap    float64 `json:"max_gap"`   // the largest |observed − predicted| of a non-empty bin
	Bins      []Bin   `json:"bins"`      // reliabilityBins equal-width bins over [0, 1]
	High      Bin     `json:"high"`      // the pairs scored at least highConfidence (also counted in the bins)
	Brier     float64 `json:"brier"`     // mean squared error of the predictions
	LogLoss   float64 `json:"log_loss"`  // mean negative log-likelihood, predictions clipped to [1e-12, 1−1e-12]
	BaseRate  float64 `json:"base_rate"` // share of the pairs that are one entity
	Predicted float64 `json:"mean_predicted"`
}

// calibrate bins the pairs by predicted probability and measures the gap
// between what was predicted and what was observed. No pairs give a zero
// Calibration with empty bins.
func calibrate(pairs []scoredPair) Calibration {
	c := Calibration{Bins: make([]Bin, reliabilityBins), High: Bin{Lo: highConfidence, Hi: 1}}
	for k := range c.Bins {
		c.Bins[k].Lo, c.Bins[k].Hi = float64(k)/reliabilityBins, float64(k+1)/reliabilityBins
	}
	add := func(b *Bin, p float64, same bool) {
		b.Pairs++
		b.Predicted += p
		if same {
			b.TruePairs++
		}
	}
	for _, sp := range pairs {
		p := min(max(sp.p, 0), 1)
		add(&c.Bins[binOf(p)], p, sp.same)
		if p >= highConfidence {
			add(&c.High, p, sp.same)
		}
		c.Pairs++
		c.Predicted += p
		y := 0.0
		if sp.same {
			c.TruePairs++
			y = 1
		}
		c.Brier += (p - y) * (p - y)
		q := min(max(p, 1e-12), 1-1e-12)
		c.LogLoss -= y*math.Log(q) + (1-y)*math.Log(1-q)
	}
	if c.Pairs == 0 {
		return c
	}
	n := float64(c.Pairs)
	c.Brier /= n
	c.LogLoss /= n
	c.Predicted /= n
	c.BaseRate = float64(c.TruePairs) / n
	finish := func(b *Bin) {
		if b.Pairs > 0 {
			b.Predicted /= float64(b.Pairs)
			b.Observed = float64(b.TruePairs) / float64(b.Pairs)
		}
	}
	for k := range c.Bins {
		b := &c.Bins[k]
		finish(b)
		if b.Pairs == 0 {
			continue
		}
		gap := math.Abs(b.Observed - b.Predicted)
		c.ECE += float64(b.Pairs) / n * gap
		c.MaxGap = max(c.MaxGap, gap)
	}
	finish(&c.High)
	return c
}

// binOf returns the bin of a probability in [0, 1]; 1 falls in the last.
func binOf(p float64) int {
	return min(int(p*reliabilityBins), reliabilityBins-1)
}
