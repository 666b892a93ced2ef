package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kgforge/consolidate/resolve"
	"kgforge/llm"
	"kgforge/onnxembed"
)

// The reports -report takes.
const (
	reportOutOfSample = "oos"
	reportTable       = "table"
)

// allSets are the set names -sets takes, in report order.
var allSets = []string{"patstat", "abt-buy", "dblp-acm", "redocred", "synthetic"}

type options struct {
	data, cache, out string
	errors           string
	sets, methods    []string
	n, docs, draws   int
	full             bool
	seed             uint64
	fuzzy, cosine    float64
	model            string
	batch            int
	fit              string
	scoreModel       string
	embedder         string
	report           string
}

func main() {
	var o options
	var sets, methods string
	flag.StringVar(&o.data, "data", "", "the benchmarks folder (default: ../shared/benchmarks beside the repository root)")
	flag.StringVar(&sets, "sets", strings.Join(allSets, ","), "comma-separated sets to run")
	flag.StringVar(&methods, "methods", "exact,fuzzy,cosine,kgforge-cosine,kgforge", "comma-separated methods to run (kgforge-cosine: kgforge's rules before calibration)")
	flag.StringVar(&o.scoreModel, "score-model", "", "kgforge's score model file for the kgforge method and the report's committed model (default: the committed consolidate/resolve/model.json), e.g. one fitted without the set measured")
	flag.StringVar(&o.fit, "fit", "", "fit kgforge's score on the sets instead (default patstat,abt-buy,dblp-acm) and write the model to this file (consolidate/resolve/model.json) and the pairs to "+fitPairsFile)
	flag.IntVar(&o.n, "n", 500, "gold entities sampled from each pooled set (PATSTAT, Abt-Buy, DBLP-ACM); 0: all")
	flag.IntVar(&o.docs, "docs", 100, "Re-DocRED documents sampled; 0: all 500")
	flag.BoolVar(&o.full, "full", false, "run every set whole (-n 0 -docs 0)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the samples, the synthetic set and the bootstrap")
	flag.IntVar(&o.draws, "draws", 3, "draws of each near-miss template in the synthetic set")
	flag.Float64Var(&o.fuzzy, "fuzzy", 0.8, "threshold of the fuzzy method (normalised Levenshtein similarity)")
	flag.Float64Var(&o.cosine, "cosine", 0.8, "threshold of the cosine method")
	flag.StringVar(&o.model, "model", llm.EmbedModelForTests, "embedding model")
	flag.StringVar(&o.embedder, "embedder", embedderAuto, "what embeds the names: onnx (in process, scripts/onnx.sh), ollama (OLLAMA_HOST), auto (onnx when its files are there)")
	flag.StringVar(&o.report, "report", reportOutOfSample, "oos: every configuration out-of-sample (leave one set out, the records outside the committed model's fit sample), in-sample beside; table: the -methods on the -sets as they are")
	flag.IntVar(&o.batch, "batch", 64, "texts per embedding call")
	flag.StringVar(&o.cache, "cache", filepath.Join(userCache(), "kgforge", "bench", "embed"), "embedding cache shared by runs")
	flag.StringVar(&o.out, "out", "", "also write the results as JSON to this file")
	flag.StringVar(&o.errors, "errors", "", "-report table: also write every gold pair a method missed and every pair it joined wrongly, by name, to this TSV file")
	flag.Parse()
	o.sets, o.methods = splitList(sets), splitList(methods)
	if o.fit != "" && !flagSet("sets") {
		o.sets = []string{"patstat", "abt-buy", "dblp-acm"}
	}
	if o.full {
		o.n, o.docs = 0, 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, o, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "erq:", err)
		os.Exit(1)
	}
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func userCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return os.TempDir()
	}
	return d
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// repoRoot returns the nearest directory at or above the working directory
// whose go.mod declares module kgforge, or the working directory.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; d = filepath.Dir(d) {
		if f, err := os.Open(filepath.Join(d, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			isOurs := sc.Scan() && strings.TrimSpace(sc.Text()) == "module kgforge"
			_ = f.Close() // read-only; nothing to lose
			if isOurs {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

// setInfo describes a set as run, for the report.
type setInfo struct {
	Name          string `json:"name"`
	Sample        string `json:"sample"`
	Problems      int    `json:"problems"`
	Records       int    `json:"records"`
	Entities      int    `json:"gold_entities"`
	GoldPairs     int    `json:"gold_pairs"`
	NearMissPairs int    `json:"near_miss_pairs,omitempty"`
}

// result is one method on one set.
type result struct {
	Dataset string `json:"dataset"`
	Method  string `json:"method"`
	Scores
	Clusters       int     `json:"predicted_clusters"`
	NearMissMerged int     `json:"near_miss_merged"`
	Seconds        float64 `json:"seconds"`
}

// loadWhole reads a set whole; the synthetic set is generated with o's
// seed and draws.
func loadWhole(data, name string, o options) (Dataset, error) {
	er := filepath.Join(data, "entity-resolution")
	var d Dataset
	var err error
	switch name {
	case "patstat":
		d, err = LoadPatstat(filepath.Join(er, "patstat", "patstat_dev.csv"))
	case "abt-buy":
		d, err = LoadPairs(filepath.Join(er, "abt-buy"), abtBuy)
	case "dblp-acm":
		d, err = LoadPairs(filepath.Join(er, "dblp-acm"), dblpACM)
	case "redocred":
		d, err = LoadReDocRED(filepath.Join(data, "redocred", "dev_revised.json"))
	case "synthetic":
		d = Synthetic(o.seed, o.draws)
		d.Sample = fmt.Sprintf("generated, seed %d, %d draws per template", o.seed, o.draws)
		return d, nil
	default:
		return Dataset{}, fmt.Errorf("unknown set %q (one of %s)", name, strings.Join(allSets, ", "))
	}
	if err != nil {
		return Dataset{}, fmt.Errorf("load %s (is -data the benchmarks folder?): %w", name, err)
	}
	return d, nil
}

// loadSet reads a set and draws its seeded sample (-n, -docs).
func loadSet(data, name string, o options) (Dataset, error) {
	d, err := loadWhole(data, name, o)
	if err != nil || name == "synthetic" {
		return d, err
	}
	if d.PerDocument() {
		all := len(d.Problems)
		d.Problems = sampleProblems(d.Problems, o.docs, o.seed)
		d.Sample = fmt.Sprintf("%d of %d documents, seed %d", len(d.Problems), all, o.seed)
		if len(d.Problems) == all {
			d.Sample = fmt.Sprintf("all %d documents", all)
		}
		return d, nil
	}
	all, _ := d.goldStats()
	d.Problems[0] = sampleEntities(d.Problems[0], o.n, o.seed)
	if got, _ := d.goldStats(); got < all {
		d.Sample = fmt.Sprintf("%d of %d gold entities, seed %d", got, all, o.seed) + d.Sample
	} else {
		d.Sample = fmt.Sprintf("all %d gold entities", all) + d.Sample
	}
	return d, nil
}

func methodsOf(o options) ([]Method, error) {
	var ms []Method
	for _, name := range o.methods {
		switch name {
		case "exact":
			ms = append(ms, Method{Name: "exact", Resolve: Exact})
		case "fuzzy":
			ms = append(ms, Fuzzy(o.fuzzy))
		case "cosine":
			ms = append(ms, Cosine(o.cosine))
		case "kgforge":
			cfg := resolve.Config{}
			if o.scoreModel != "" {
				b, err := os.ReadFile(o.scoreModel)
				if err != nil {
					return nil, fmt.Errorf("score model: %w", err)
				}
				m, err := resolve.ParseModel(b)
				if err != nil {
					return nil, fmt.Errorf("score model %s: %w", o.scoreModel, err)
				}
				cfg.Model = &m
			}
			ms = append(ms, kgforgeResolver("kgforge", cfg))
		case "kgforge-cosine":
			ms = append(ms, kgforgeResolver("kgforge-cosine", resolve.Config{Rules: resolve.RulesCosine}))
		default:
			return nil, fmt.Errorf("unknown method %q (exact, fuzzy, cosine, kgforge, kgforge-cosine)", name)
		}
	}
	return ms, nil
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if o.data == "" {
		o.data = filepath.Join(repoRoot(), "..", "shared", "benchmarks")
	}
	switch {
	case o.fit != "" || o.report == reportTable:
	case o.report == reportOutOfSample:
		return runOutOfSample(ctx, o, stdout, stderr)
	default:
		return fmt.Errorf("unknown -report %q (oos, table)", o.report)
	}
	methods, err := methodsOf(o)
	if err != nil {
		return err
	}
	var sets []Dataset
	var infos []setInfo
	for _, name := range o.sets {
		d, err := loadSet(o.data, name, o)
		if err != nil {
			return err
		}
		sets = append(sets, d)
		ents, pairs := d.goldStats()
		info := setInfo{Name: d.Name, Sample: d.Sample, Problems: len(d.Problems), Records: d.Records(), Entities: ents, GoldPairs: pairs}
		for _, p := range d.Problems {
			info.NearMissPairs += len(p.NearMiss)
		}
		infos = append(infos, info)
	}
	var emb *embedStats
	if o.fit != "" || slices.ContainsFunc(methods, func(m Method) bool { return m.Vectors }) {
		st, err := embed(ctx, o, sets, stderr)
		if err != nil {
			return err
		}
		emb = &st
	}
	if o.fit != "" {
		m, err := fitAndWrite(ctx, o, sets, o.fit)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(stdout, "model written to %s: intercept %.4f, coefficients %v, merge ≥ %.4f, uncertain ≥ %.4f\n%s\n",
			o.fit, m.Intercept, m.Coefficients, m.Merge, m.Uncertain, m.Fit)
		return nil
	}
	var results []result
	var errs *errorLog
	if o.errors != "" {
		errs = &errorLog{}
	}
	for _, d := range sets {
		for _, m := range methods {
			r, err := evaluate(ctx, d, m, o.seed, errs)
			if err != nil {
				return err
			}
			note(stderr, "%s %s pairs F1 %.3f B³ F1 %.3f (%.1fs)", d.Name, m.Name, r.Pairwise.F1, r.B3.F1, r.Seconds)
			results = append(results, r)
		}
	}
	report(stdout, o, infos, results, emb)
	if errs != nil {
		if err := os.WriteFile(o.errors, errs.tsv(), 0o644); err != nil {
			return fmt.Errorf("write the pairs missed and joined wrongly: %w", err)
		}
	}
	if o.out != "" {
		b, err := json.MarshalIndent(map[string]any{
			"date": time.Now().UTC().Format(time.DateOnly), "seed": o.seed, "n": o.n, "docs": o.docs,
			"fuzzy_threshold": o.fuzzy, "cosine_threshold": o.cosine, "embedding": emb, "sets": infos, "results": results,
		}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.out, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	return nil
}

// note writes a progress line to stderr; a failed write has nowhere to be
// reported.
func note(stderr io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(stderr, "erq: "+format+"\n", args...)
}

// The embedders -embedder takes.
const (
	embedderAuto   = "auto"   // onnx when scripts/onnx.sh has put its files in place, else ollama
	embedderONNX   = "onnx"   // all-minilm through ONNX Runtime, in process (onnxembed)
	embedderOllama = "ollama" // the Ollama server at OLLAMA_HOST
)

// embed fills every record's vector from the cache and the embedder.
func embed(ctx context.Context, o options, sets []Dataset, stderr io.Writer) (embedStats, error) {
	which := o.embedder
	if which == "" || which == embedderAuto {
		which = embedderOllama
		if onnxembed.UserFiles().Present() && o.model == onnxembed.ModelName {
			which = embedderONNX
		}
	}
	var fn Embedder
	var digest string
	switch which {
	case embedderONNX:
		if o.model != onnxembed.ModelName {
			return embedStats{}, fmt.Errorf("-embedder onnx runs only %s, not %s", onnxembed.ModelName, o.model)
		}
		m, err := onnxembed.Open(onnxembed.UserFiles(), 0)
		if err != nil {
			return embedStats{}, err
		}
		defer func() { _ = m.Close() }() // the vectors are already cached; nothing to lose
		fn, digest = m.Embed, m.Digest()
	case embedderOllama:
		client, err := llm.New(llm.Options{})
		if err != nil {
			return embedStats{}, err
		}
		defer client.Close()
		digests, err := client.ModelDigests(ctx, o.model)
		if err != nil {
			return embedStats{}, fmt.Errorf("embedding model (is the server up? scripts/ollama.sh up): %w", err)
		}
		fn, digest = client.Embed, digests[o.model]
	default:
		return embedStats{}, fmt.Errorf("unknown -embedder %q (auto, onnx, ollama)", o.embedder)
	}
	cache, err := openVectorCache(o.cache)
	if err != nil {
		return embedStats{}, err
	}
	last := time.Now()
	st, err := fillVectors(ctx, fn, cache, o.model, digest, o.batch, sets, func(done, total int) {
		if time.Since(last) > 5*time.Second || done == total {
			last = time.Now()
			note(stderr, "embedded %d/%d texts not in the cache", done, total)
		}
	})
	if err != nil {
		return st, fmt.Errorf("embed names: %w", err)
	}
	st.Embedder = which
	note(stderr, "%d distinct texts, %d from the cache, %s, %.1fs", st.Texts, st.Cached, which, st.Seconds)
	return st, nil
}

// evaluate runs one method on every problem of a set and scores it.
// When errs is not nil, every gold pair the method missed and every pair
// it joined wrongly is added to it.
func evaluate(ctx context.Context, d Dataset, m Method, seed uint64, errs *errorLog) (result, error) {
	res := result{Dataset: d.Name, Method: m.Name}
	var units []unit
	var took time.Duration
	for _, p := range d.Problems {
		start := time.Now()
		labels, err := m.Resolve(ctx, p.Records)
		took += time.Since(start)
		if err != nil {
			return res, fmt.Errorf("%s on %s %s: %w", m.Name, d.Name, p.ID, err)
		}
		if len(labels) != len(p.Records) {
			return res, fmt.Errorf("%s on %s %s: %d labels for %d records", m.Name, d.Name, p.ID, len(labels), len(p.Records))
		}
		units = append(units, unitsOf(labels, p.Gold, d.PerDocument())...)
		var why map[[2]string]string
		if errs != nil && m.Explain != nil {
			if why, err = m.Explain(ctx, p.Records); err != nil {
				return res, fmt.Errorf("%s on %s %s: explain: %w", m.Name, d.Name, p.ID, err)
			}
		}
		errs.add(d.Name, m.Name, p, labels, why)
		distinct := map[int]bool{}
		for _, l := range labels {
			distinct[l] = true
		}
		res.Clusters += len(distinct)
		res.NearMissMerged += nearMissMerged(labels, p.Gold, p.NearMiss)
	}
	res.Seconds = took.Seconds()
	res.Scores = score(units, seed)
	return res, nil
}

// report prints the sets and the results as Markdown tables.
func report(w io.Writer, o options, infos []setInfo, results []result, emb *embedStats) {
	p := func(format string, args ...any) { _, _ = fmt.Fprintf(w, format, args...) } // stdout: a failed write has nowhere to go
	p("## Entity resolution quality\n\n")
	p("| set | sample | problems | records | gold entities | gold pairs |\n|---|---|---|---|---|---|\n")
	for _, s := range infos {
		p("| %s | %s | %d | %d | %d | %d |\n", s.Name, s.Sample, s.Problems, s.Records, s.Entities, s.GoldPairs)
	}
	p("\n| set | method | pairs P | pairs R | pairs F1 [95%% CI] | B³ P | B³ R | B³ F1 [95%% CI] | clusters | near-misses merged | resolve s |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|\n")
	near := map[string]int{}
	for _, s := range infos {
		near[s.Name] = s.NearMissPairs
	}
	for _, r := range results {
		nm := "—"
		if n := near[r.Dataset]; n > 0 {
			nm = fmt.Sprintf("%d / %d", r.NearMissMerged, n)
		}
		pw, b := r.Pairwise, r.B3
		p("| %s | %s | %s | %.3f | %.3f [%.3f, %.3f] | %.3f | %.3f | %.3f [%.3f, %.3f] | %d | %s | %.2f |\n",
			r.Dataset, r.Method, precision(pw.Precision, pw.TP+pw.FP), pw.Recall, pw.F1, pw.F1CI[0], pw.F1CI[1],
			b.Precision, b.Recall, b.F1, b.F1CI[0], b.F1CI[1], r.Clusters, nm, r.Seconds)
	}
	p("\nfuzzy threshold %.2f, cosine threshold %.2f; bootstrap seed %d", o.fuzzy, o.cosine, o.seed)
	if emb != nil {
		p("; embeddings: %s (%s, %d dims), %d distinct texts, %d from the cache, %.1fs", emb.Model, emb.Embedder, emb.Dims, emb.Texts, emb.Cached, emb.Seconds)
	}
	p("\n")
}

// precision prints pairwise precision, or a dash when the method predicted
// no pair at all.
func precision(p float64, predicted int) string {
	if predicted == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", p)
}
