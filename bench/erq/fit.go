package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"kgforge/consolidate/resolve"
)

// The fit: a logistic regression of "one entity" on the signals of
// kgforge's candidate pairs in the development sets, each set weighing the
// same, with an L2 penalty; then its bands.
const (
	fitLambda    = 0.01 // L2 penalty on the coefficients (not the intercept)
	fitPrecision = 0.95 // the merge band: the lowest score from which the pooled precision is at least this
	fitRecall    = 0.95 // the uncertain band: the lowest score above which this share of the true pairs lies
	fitMinMerge  = 0.5  // the merge band never starts below an even chance
)

// fitPairsFile is where -fit writes the pairs it fitted on, beside the
// command, so that the fit can be reproduced without the embeddings.
const fitPairsFile = "bench/erq/testdata/fitpairs.tsv"

// fitSample is one candidate pair of a development set with its gold label.
type fitSample struct {
	set    string
	a, b   string
	same   bool
	values []float64
}

// collectFitSamples returns the candidate pairs kgforge's resolver scores
// in each problem of the sets, with their gold labels, sorted by set and
// keys; pairs a rule decides whatever the score (equal names, guards) are
// left out.
func collectFitSamples(ctx context.Context, sets []Dataset) ([]fitSample, error) {
	var out []fitSample
	for _, d := range sets {
		for _, p := range d.Problems {
			gold := map[string]int{}
			for i, r := range p.Records {
				gold[r.ID] = p.Gold[i]
			}
			cands, err := resolve.Candidates(ctx, entitiesOf(p.Records), resolve.Config{})
			if err != nil {
				return nil, fmt.Errorf("candidates of %s: %w", d.Name, err)
			}
			for _, c := range cands {
				if c.Decided != "" {
					continue
				}
				v := make([]float64, len(c.Values))
				for k, x := range c.Values {
					v[k] = math.Round(x*1e4) / 1e4 // as written to the pairs file
				}
				out = append(out, fitSample{set: d.Name, a: c.A, b: c.B, same: gold[c.A] == gold[c.B], values: v})
			}
		}
	}
	slices.SortFunc(out, func(x, y fitSample) int {
		return cmp.Or(strings.Compare(x.set, y.set), strings.Compare(x.a, y.a), strings.Compare(x.b, y.b))
	})
	return out, nil
}

// writeFitPairs writes the samples as tab-separated values with a header.
func writeFitPairs(samples []fitSample) []byte {
	var b bytes.Buffer
	b.WriteString("set\ta\tb\tsame")
	for _, f := range resolve.Features {
		b.WriteString("\t" + string(f))
	}
	b.WriteByte('\n')
	for _, s := range samples {
		same := "0"
		if s.same {
			same = "1"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s", s.set, s.a, s.b, same)
		for _, v := range s.values {
			b.WriteString("\t" + strconv.FormatFloat(v, 'f', -1, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// readFitPairs reads what writeFitPairs wrote.
func readFitPairs(data []byte) ([]fitSample, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	if !sc.Scan() {
		return nil, errors.New("fit pairs: no header")
	}
	if want := 4 + len(resolve.Features); len(strings.Split(sc.Text(), "\t")) != want {
		return nil, fmt.Errorf("fit pairs: header %q: want %d columns", sc.Text(), want)
	}
	var out []fitSample
	for line := 2; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4+len(resolve.Features) {
			return nil, fmt.Errorf("fit pairs line %d: %d columns", line, len(f))
		}
		s := fitSample{set: f[0], a: f[1], b: f[2], same: f[3] == "1"}
		for _, x := range f[4:] {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, fmt.Errorf("fit pairs line %d: %w", line, err)
			}
			s.values = append(s.values, v)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// fitModel fits the logistic regression by Newton's method and sets its
// bands; the same samples give the same model on every machine.
func fitModel(samples []fitSample) (resolve.Model, error) {
	if len(samples) == 0 {
		return resolve.Model{}, errors.New("fit: no candidate pairs")
	}
	weights := setWeights(samples)
	d := len(resolve.Features) + 1 // the intercept first
	beta := make([]float64, d)
	row := func(s fitSample) []float64 { return append([]float64{1}, s.values...) }
	for iter := 0; iter < 100; iter++ {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for k := range hess {
			hess[k] = make([]float64, d)
		}
		for n, s := range samples {
			x := row(s)
			p := sigmoid(dotF(beta, x))
			y := 0.0
			if s.same {
				y = 1
			}
			w := weights[n]
			for a := range d {
				grad[a] += w * (y - p) * x[a]
				for b := range d {
					hess[a][b] += w * p * (1 - p) * x[a] * x[b]
				}
			}
		}
		for a := 1; a < d; a++ {
			grad[a] -= fitLambda * beta[a]
			hess[a][a] += fitLambda
		}
		step, err := solve(hess, grad)
		if err != nil {
			return resolve.Model{}, fmt.Errorf("fit: %w", err)
		}
		size := 0.0
		for a := range d {
			beta[a] += step[a]
			size = max(size, math.Abs(step[a]))
		}
		if size < 1e-10 {
			break
		}
	}
	m := resolve.Model{Features: resolve.Features, Intercept: beta[0], Coefficients: beta[1:]}
	m.Merge, m.Uncertain = bands(m, samples, weights)
	return m, m.Validate()
}

// setWeights gives each sample the weight that makes every set weigh the
// same in all, the weights summing to the number of samples.
func setWeights(samples []fitSample) []float64 {
	count := map[string]int{}
	for _, s := range samples {
		count[s.set]++
	}
	w := make([]float64, len(samples))
	for n, s := range samples {
		w[n] = float64(len(samples)) / float64(len(count)*count[s.set])
	}
	return w
}

// bands returns the merge band's lower end, the lowest score (at least
// fitMinMerge) from which the weighted precision of the pairs scored at or
// above it is at least fitPrecision, and the uncertain band's, the highest
// score at or above which fitRecall of the weighted true pairs lie.
func bands(m resolve.Model, samples []fitSample, weights []float64) (merge, uncertain float64) {
	type scored struct {
		p, w float64
		same bool
	}
	all := make([]scored, len(samples))
	trueW := 0.0
	for n, s := range samples {
		all[n] = scored{m.Score(s.values), weights[n], s.same}
		if s.same {
			trueW += weights[n]
		}
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(b.p, a.p) })
	merge, uncertain = 1-1e-9, 0
	tp, fp := 0.0, 0.0
	for _, s := range all {
		if s.same {
			tp += s.w
		} else {
			fp += s.w
		}
		if s.p >= fitMinMerge && tp/(tp+fp) >= fitPrecision {
			merge = s.p
		}
		if uncertain == 0 && tp >= fitRecall*trueW {
			uncertain = s.p
		}
	}
	uncertain = math.Round(min(max(uncertain, 0.01), merge)*1e6) / 1e6
	merge = math.Round(merge*1e6) / 1e6
	return merge, uncertain
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func dotF(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// solve solves a·x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	m := make([][]float64, n)
	for i := range m {
		m[i] = append(slices.Clone(a[i]), b[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-300 {
			return nil, errors.New("singular system")
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x, nil
}

// fitInfo is the model file's record of how it was fitted.
type fitInfo struct {
	Command     string            `json:"command"`
	Sets        []string          `json:"sets"`
	Sample      string            `json:"sample"`
	Pairs       int               `json:"pairs"`
	TruePairs   int               `json:"true_pairs"`
	PairsFile   string            `json:"pairs_file"`
	PairsSHA256 string            `json:"pairs_sha256"`
	Data        map[string]string `json:"data_sha256"` // dev file (relative to the benchmarks folder) → digest
	Lambda      float64           `json:"lambda"`
	Precision   float64           `json:"merge_precision"`
	Recall      float64           `json:"uncertain_recall"`
}

// fitAndWrite collects the samples of the sets, writes the pairs file and
// the model (to modelPath), and returns the model.
func fitAndWrite(ctx context.Context, o options, sets []Dataset, modelPath string) (resolve.Model, error) {
	samples, err := collectFitSamples(ctx, sets)
	if err != nil {
		return resolve.Model{}, err
	}
	pairs := writeFitPairs(samples)
	root := repoRoot()
	pairsPath := filepath.Join(root, fitPairsFile)
	if abs, err := filepath.Abs(modelPath); err != nil || abs != filepath.Join(root, "consolidate", "resolve", "model.json") {
		pairsPath = modelPath + ".pairs.tsv" // a model other than the committed one keeps its pairs beside it
	}
	m, err := fitModel(samples)
	if err != nil {
		return m, err
	}
	info := fitInfo{
		Command: fmt.Sprintf("go run ./bench/erq -fit %s -sets %s -n %d -seed %d", modelPath, strings.Join(o.sets, ","), o.n, o.seed),
		Sets:    o.sets, Sample: fmt.Sprintf("-n %d -seed %d", o.n, o.seed), Pairs: len(samples),
		PairsFile: filepathRel(root, pairsPath), PairsSHA256: digest(pairs), Lambda: fitLambda, Precision: fitPrecision, Recall: fitRecall,
		Data: map[string]string{},
	}
	for _, s := range samples {
		if s.same {
			info.TruePairs++
		}
	}
	for _, f := range devFiles(o.sets) {
		b, err := os.ReadFile(filepath.Join(o.data, f))
		if err != nil {
			return m, fmt.Errorf("digest of the dev data: %w", err)
		}
		info.Data[f] = digest(b)
	}
	if m.Fit, err = json.Marshal(info); err != nil {
		return m, err
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	if err := os.WriteFile(pairsPath, pairs, 0o644); err != nil {
		return m, fmt.Errorf("write fit pairs: %w", err)
	}
	if err := os.WriteFile(modelPath, append(out, '\n'), 0o644); err != nil {
		return m, fmt.Errorf("write model: %w", err)
	}
	return m, nil
}

// devFiles are the files of the sets, relative to the benchmarks folder.
func devFiles(sets []string) []string {
	files := map[string][]string{
		"patstat":  {"entity-resolution/patstat/patstat_dev.csv"},
		"abt-buy":  {"entity-resolution/abt-buy/abt.csv", "entity-resolution/abt-buy/buy.csv", "entity-resolution/abt-buy/gt.csv"},
		"dblp-acm": {"entity-resolution/dblp-acm/dblp.csv", "entity-resolution/dblp-acm/acm.csv", "entity-resolution/dblp-acm/gt.csv"},
	}
	var out []string
	for _, s := range sets {
		out = append(out, files[s]...)
	}
	return out
}

// filepathRel returns path relative to root, or path when it is not under it.
func filepathRel(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
