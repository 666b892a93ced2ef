package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kgforge/consolidate/resolve"
)

// TestFitReproducesTheCommittedModel refits the committed pairs file (what
// `go run ./bench/erq -fit consolidate/resolve/model.json` wrote) and
// checks that it gives the committed model, and that the file is the one
// the model names by digest.
func TestFitReproducesTheCommittedModel(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), fitPairsFile))
	if err != nil {
		t.Fatal(err)
	}
	committed := resolve.DefaultModel()
	var info fitInfo
	if err := json.Unmarshal(committed.Fit, &info); err != nil {
		t.Fatalf("model.json fit: %v", err)
	}
	if got := digest(data); got != info.PairsSHA256 {
		t.Errorf("%s digest %s, model.json names %s", fitPairsFile, got, info.PairsSHA256)
	}
	samples, err := readFitPairs(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != info.Pairs {
		t.Errorf("%d pairs, model.json says %d", len(samples), info.Pairs)
	}
	m, err := fitModel(samples)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	if !near(m.Intercept, committed.Intercept) || m.Merge != committed.Merge || m.Uncertain != committed.Uncertain {
		t.Errorf("refit intercept %v merge %v uncertain %v, committed %v %v %v", m.Intercept, m.Merge, m.Uncertain,
			committed.Intercept, committed.Merge, committed.Uncertain)
	}
	for k := range m.Coefficients {
		if !near(m.Coefficients[k], committed.Coefficients[k]) {
			t.Errorf("coefficient of %s: refit %v, committed %v", resolve.Features[k], m.Coefficients[k], committed.Coefficients[k])
		}
	}
}

func TestFitPairsRoundTrip(t *testing.T) {
	in := []fitSample{
		{set: "patstat", a: "x", b: "y", same: true, values: []float64{0.9, 1, 0, 1, 0.5, 0.25, 0, 0, 0.125, 1, 1, 0.5, 0.45, 0.5, 1}},
		{set: "abt-buy", a: "p", b: "q", values: make([]float64, len(resolve.Features))},
	}
	out, err := readFitPairs(writeFitPairs(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip: %+v, want %+v", out, in)
	}
	if _, err := readFitPairs([]byte("set\ta\n")); err == nil {
		t.Error("a short header: no error")
	}
}

// TestFitLearnsTheSignalThatSeparates: on pairs where only containment
// tells the true ones, the fit weighs containment and the bands put the
// true pairs in the merge band.
func TestFitLearnsTheSignalThatSeparates(t *testing.T) {
	var samples []fitSample
	for n := range 200 {
		v := make([]float64, len(resolve.Features))
		v[0] = 0.8 + 0.001*float64(n%50) // cosine: no information
		same := n%2 == 0
		if same {
			v[3] = 1
		} else {
			v[3] = 0.2 * float64(n%3)
		}
		samples = append(samples, fitSample{set: []string{"a", "b"}[n%4/2], a: "x", b: "y", same: same, values: v})
	}
	m, err := fitModel(samples)
	if err != nil {
		t.Fatal(err)
	}
	if m.Coefficients[3] <= 1 {
		t.Errorf("containment coefficient %v, want large and positive", m.Coefficients[3])
	}
	for _, s := range samples {
		if p := m.Score(s.values); s.same != (p >= m.Merge) {
			t.Fatalf("pair same=%v scored %v against merge band %v", s.same, p, m.Merge)
		}
	}
}
