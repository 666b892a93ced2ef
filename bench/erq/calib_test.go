package main

import (
	"math"
	"testing"
)

func TestCalibrate(t *testing.T) {
	repeat := func(n int, p float64, same bool) []scoredPair {
		out := make([]scoredPair, n)
		for i := range out {
			out[i] = scoredPair{p: p, same: same}
		}
		return out
	}
	cat := func(parts ...[]scoredPair) []scoredPair {
		var out []scoredPair
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name              string
		pairs             []scoredPair
		wantECE, wantHigh float64 // wantHigh: observed share of the pairs ≥ 0.99
		wantHighPairs     int
	}{
		{"calibrated", cat(repeat(2, 0.25, true), repeat(6, 0.25, false), repeat(6, 0.75, true), repeat(2, 0.75, false)), 0, 0, 0},
		{"sure and wrong", repeat(10, 0.995, false), 0.995, 0, 10},
		// bin 0: predicted 0.05, observed 0.5; bin 9: predicted 0.95,
		// observed 1; each half of the pairs: (0.45 + 0.05) / 2.
		{"mixed", []scoredPair{{0.05, true}, {0.05, false}, {0.95, true}, {0.95, true}}, 0.25, 0, 0},
		{"none", nil, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := calibrate(tt.pairs)
			if math.Abs(c.ECE-tt.wantECE) > 1e-9 {
				t.Errorf("ECE %v, want %v", c.ECE, tt.wantECE)
			}
			if c.High.Pairs != tt.wantHighPairs || math.Abs(c.High.Observed-tt.wantHigh) > 1e-9 {
				t.Errorf("≥ %.2f: %d pairs observed %v, want %d observed %v", highConfidence, c.High.Pairs, c.High.Observed, tt.wantHighPairs, tt.wantHigh)
			}
			if len(c.Bins) != reliabilityBins {
				t.Fatalf("%d bins", len(c.Bins))
			}
			n := 0
			for _, b := range c.Bins {
				n += b.Pairs
			}
			if n != len(tt.pairs) || c.Pairs != len(tt.pairs) {
				t.Errorf("bins hold %d pairs, calibration %d, want %d", n, c.Pairs, len(tt.pairs))
			}
		})
	}
}

func TestCalibrate_Bins(t *testing.T) {
	c := calibrate([]scoredPair{{0, false}, {0.1, true}, {0.55, true}, {0.55, false}, {1, true}})
	want := map[int][2]float64{0: {0, 0}, 1: {0.1, 1}, 5: {0.55, 0.5}, 9: {1, 1}} // bin → mean predicted, observed
	for k, b := range c.Bins {
		w, ok := want[k]
		if !ok {
			if b.Pairs != 0 {
				t.Errorf("bin %d: %d pairs, want none", k, b.Pairs)
			}
			continue
		}
		if b.Pairs == 0 || math.Abs(b.Predicted-w[0]) > 1e-9 || math.Abs(b.Observed-w[1]) > 1e-9 {
			t.Errorf("bin %d [%v, %v): %d pairs, predicted %v observed %v, want predicted %v observed %v", k, b.Lo, b.Hi, b.Pairs, b.Predicted, b.Observed, w[0], w[1])
		}
	}
	if c.BaseRate != 0.6 {
		t.Errorf("base rate %v, want 0.6", c.BaseRate)
	}
	if math.Abs(c.Brier-(0+0.81+0.2025+0.3025+0)/5) > 1e-9 {
		t.Errorf("Brier %v", c.Brier)
	}
}
