package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"kgforge/bench/quality"
	"kgforge/extract"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/stages"
)

type config struct {
	name      string
	evidence  extract.EvidenceMode
	ground    bool
	gleanings int
	mode      extract.Mode   // how the model is driven
	format    extract.Format // the completion mode's reply form
}

// configs are the ways the same model is asked and checked: kgforge's
// default (evidence is one of the chunk's sentences, grounded), a free
// quote grounded exactly, folded or fuzzily, and the same free quote taken
// as the model says it (no grounding), the plain prompt of other systems;
// and kgforge's default with one gleaning turn, whose first turn is the
// default's (cached), so its extra calls are what gleaning costs. The
// completion configurations drive the model as a base model: a raw
// few-shot pattern on /api/generate, the reply as fact lines or as the
// schema's JSON, grounded like the default.
var configs = []config{
	{"sentences+grounding", extract.EvidenceSentences, true, 0, extract.ModeChat, ""},
	{"sentences+grounding+glean", extract.EvidenceSentences, true, 1, extract.ModeChat, ""},
	{"quote+grounding", extract.EvidenceQuote, true, 0, extract.ModeChat, ""},
	{"quote, no grounding", extract.EvidenceQuote, false, 0, extract.ModeChat, ""},
	{"completion lines+grounding", extract.EvidenceSentences, true, 0, extract.ModeCompletion, extract.FormatLines},
	{"completion json+grounding", extract.EvidenceSentences, true, 0, extract.ModeCompletion, extract.FormatJSON},
	{"specialist+grounding", extract.EvidenceSentences, true, 0, extract.ModeSpecialist, extract.FormatLines},
}

type result struct {
	Config     string         `json:"config"`
	Scores     quality.Scores `json:"scores"`
	Calls      int64          `json:"llm_calls"`
	Rejected   int            `json:"chunks_rejected"`
	Dropped    map[string]int `json:"triplets_dropped,omitempty"`
	Gleaned    int            `json:"triplets_gleaned,omitempty"` // kept triplets only a gleaning turn found
	Kept       int            `json:"triplets_kept"`
	Cut        map[string]int `json:"replies_cut,omitempty"`      // replies cut before the model finished them, by reason
	Tokens     [2]int64       `json:"tokens"`                     // prompt and completion tokens of the calls made (not of cached replies)
	EvidenceIn [2]int         `json:"evidence_in_gold,omitempty"` // correct triplets whose evidence is in a gold evidence sentence, of those with annotated evidence
	Seconds    float64        `json:"seconds"`
}

func main() {
	data := flag.String("data", filepath.Join("..", "shared", "benchmarks"), "the benchmarks folder")
	set := flag.String("set", "text2kg", "text2kg (Wikidata-TekGen validation), webnlg (DBpedia-WebNLG, evaluation only: CC BY-NC-SA) or redocred")
	split := flag.String("split", "", "training/split.json: keep only what kgforge-extract never trained on (held-out TekGen ontologies, held-out Re-DocRED documents)")
	free := flag.Bool("free", false, "give the model no schema (free types and predicates, normalised)")
	detok := flag.Bool("detok", false, "redocred: the documents as running text (quality.Detok), as kgforge-extract was trained on them; default: tokens joined by spaces")
	n := flag.Int("n", 200, "items to sample (sentences or documents); 0: all")
	seed := flag.Uint64("seed", 1, "sampling seed")
	model := flag.String("model", llm.ChatModelForTests, "Ollama chat model")
	conc := flag.Int("concurrency", 1, "parallel calls; the server's OLLAMA_NUM_PARALLEL")
	cacheDir := flag.String("cache", filepath.Join(userCache(), "kgforge", "bench", "extract"), "reply cache shared by runs")
	out := flag.String("out", "", "write the results as JSON to this file")
	only := flag.String("configs", "", "comma-separated subset of: "+names())
	dump := flag.String("dump", "", "write each item's text, gold, kept and dropped triplets as JSON lines to this file (one configuration)")
	peers := flag.String("peers", "", "side-by-side table of these systems instead: kgforge, kgforge:<config>, lightrag, graphrag (peers.go)")
	var po peerOptions
	flag.StringVar(&po.venv, "peers-venv", filepath.Join(userCache(), "kgforge", "bench", "peers-venv"), "the peers' virtual environments (bench/extractq/peers/setup.sh)")
	flag.StringVar(&po.dir, "peers-dir", filepath.Join("bench", "extractq", "peers"), "the peers' driver scripts")
	flag.StringVar(&po.embed, "embed-model", llm.EmbedModelForTests, "Ollama embedding model, for the peers that embed")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	var err error
	if *peers != "" {
		err = runPeers(ctx, *data, *set, *n, *seed, *model, *cacheDir, *out, *peers, po)
	} else {
		err = run(ctx, *data, *set, *split, *free, *detok, *n, *seed, *model, *conc, *cacheDir, *out, *only, *dump)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractq:", err)
		os.Exit(1)
	}
}

func userCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return os.TempDir()
	}
	return d
}

func names() string {
	var s []string
	for _, c := range configs {
		s = append(s, c.name)
	}
	return strings.Join(s, ", ")
}

func run(ctx context.Context, data, set, split string, free, detok bool, n int, seed uint64, model string, conc int, cacheDir, out, only, dump string) error {
	items, schemas, err := load(data, set, detok)
	if err != nil {
		return err
	}
	if split != "" {
		if items, err = heldOut(items, set, split); err != nil {
			return err
		}
	}
	if free {
		for k := range schemas {
			schemas[k] = extract.Schema{}
		}
	}
	items = quality.Sample(items, n, seed)
	client, err := llm.New(llm.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	digests, err := client.ModelDigests(ctx, model)
	if err != nil {
		return err
	}
	cache, err := stages.OpenDiskCache(cacheDir)
	if err != nil {
		return err
	}
	var results []result
	var d *dumper
	for _, cfg := range configs {
		if only != "" && !strings.Contains(","+only+",", ","+cfg.name+",") {
			continue
		}
		if dump != "" {
			if d != nil {
				return fmt.Errorf("-dump needs one configuration (-configs)")
			}
			d = newDumper(items)
		}
		res, err := evaluate(ctx, client, cache, cfg, items, schemas, model, digests[model], conc, seed, d)
		if err != nil {
			return err
		}
		results = append(results, res)
		s := res.Scores
		fmt.Printf("%-26s %s n=%d  P %.3f [%.3f, %.3f]  R %.3f [%.3f, %.3f]  F1 %.3f [%.3f, %.3f]  kept %d  calls %d  tokens %d+%d  cut %v  %.0fs",
			cfg.name, set, s.Items, s.Precision, s.PrecisionCI[0], s.PrecisionCI[1], s.Recall, s.RecallCI[0], s.RecallCI[1],
			s.F1, s.F1CI[0], s.F1CI[1], res.Kept, res.Calls, res.Tokens[0], res.Tokens[1], res.Cut, res.Seconds)
		if res.EvidenceIn[1] > 0 {
			fmt.Printf("  evidence in gold %d/%d", res.EvidenceIn[0], res.EvidenceIn[1])
		}
		if cfg.gleanings > 0 {
			fmt.Printf("  gleaned %d", res.Gleaned)
		}
		fmt.Printf("  dropped %v", res.Dropped)
		fmt.Println()
	}
	if d != nil {
		if err := d.write(dump); err != nil {
			return err
		}
	}
	if out != "" {
		b, err := json.MarshalIndent(map[string]any{"set": set, "n": len(items), "seed": seed, "model": model, "results": results}, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(out, append(b, '\n'), 0o644)
	}
	return nil
}

// load reads a benchmark and the extraction schema of each item's domain.
func load(data, set string, detok bool) ([]quality.Item, map[string]extract.Schema, error) {
	schemas := map[string]extract.Schema{}
	switch set {
	case "text2kg", "webnlg":
		dir, part := filepath.Join(data, "text2kgbench", "wikidata_tekgen"), "validation"
		if set == "webnlg" {
			dir, part = filepath.Join(data, "text2kgbench", "dbpedia_webnlg"), "train"
		}
		files, err := filepath.Glob(filepath.Join(dir, part, "*.jsonl"))
		if err != nil || len(files) == 0 {
			return nil, nil, fmt.Errorf("no Text2KGBench files under %s", dir)
		}
		sort.Strings(files)
		var items []quality.Item
		for _, f := range files {
			its, err := quality.LoadText2KG(f)
			if err != nil {
				return nil, nil, err
			}
			items = append(items, its...)
		}
		onts, _ := filepath.Glob(filepath.Join(dir, "ontologies", "*.json"))
		for _, f := range onts {
			o, err := quality.LoadOntology(f)
			if err != nil {
				return nil, nil, err
			}
			schemas[o.ID] = schemaOf(o)
		}
		return items, schemas, nil
	case "redocred":
		items, err := quality.LoadReDocRED(filepath.Join(data, "redocred", "dev_revised.json"), detok)
		if err != nil {
			return nil, nil, err
		}
		raw, err := os.ReadFile(filepath.Join(data, "redocred", "rel_info.json"))
		if err != nil {
			return nil, nil, err
		}
		var rel map[string]string
		if err := json.Unmarshal(raw, &rel); err != nil {
			return nil, nil, err
		}
		var s extract.Schema
		for _, t := range []string{"person", "organization", "location", "time", "number", "miscellaneous"} {
			s.EntityTypes = append(s.EntityTypes, extract.EntityType{Name: t})
		}
		var labels []string
		for _, l := range rel {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		for _, l := range labels {
			s.RelationTypes = append(s.RelationTypes, extract.RelationType{Name: l})
		}
		schemas[""] = s
		return items, schemas, nil
	}
	return nil, nil, fmt.Errorf("unknown set %q (text2kg, webnlg or redocred)", set)
}

// schemaOf turns an ontology into an extraction schema: concepts are the
// entity types, relations the relation types with their domain and range.
func schemaOf(o quality.Ontology) extract.Schema {
	var s extract.Schema
	known := map[string]bool{}
	for _, c := range o.Concepts {
		if !known[c] {
			known[c] = true
			s.EntityTypes = append(s.EntityTypes, extract.EntityType{Name: c})
		}
	}
	seen := map[string]bool{}
	for _, r := range o.Relations {
		if seen[r.Label] {
			continue
		}
		seen[r.Label] = true
		rt := extract.RelationType{Name: r.Label}
		if known[r.Domain] {
			rt.Domain = r.Domain
		}
		if known[r.Range] {
			rt.Range = r.Range
		}
		s.RelationTypes = append(s.RelationTypes, rt)
	}
	return s
}

func evaluate(ctx context.Context, client *llm.Client, cache extract.Cache, cfg config, items []quality.Item, schemas map[string]extract.Schema,
	model, digest string, conc int, seed uint64, d *dumper,
) (result, error) {
	start := time.Now()
	before := client.Usage()
	extractors := map[string]*extract.Extractor{}
	for id, s := range schemas {
		ex, err := extract.New(client, cache, extract.Options{
			Model: model, ModelDigest: digest, Schema: s, Evidence: cfg.evidence, Ungrounded: !cfg.ground,
			Gleanings: cfg.gleanings, Mode: cfg.mode, Format: cfg.format, OnDrop: d.onDrop(),
		})
		if err != nil {
			return result{}, fmt.Errorf("schema %s: %w", id, err)
		}
		extractors[id] = ex
	}
	per := make([]quality.Counts, len(items))
	evIn := make([][2]int, len(items))
	rejected := make([]bool, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i, it := range items {
		ex := extractors[it.Ontology]
		if ex == nil {
			return result{}, fmt.Errorf("item %s: no ontology %q", it.ID, it.Ontology)
		}
		g.Go(func() error {
			c := chunkOf(it)
			res, err := ex.Process(gctx, c)
			if errors.Is(err, kg.ErrRejected) {
				rejected[i] = true
				per[i] = quality.Counts{FN: len(it.Gold)}
				return nil
			}
			if err != nil {
				return fmt.Errorf("item %s: %w", it.ID, err)
			}
			var pred []quality.Triple
			var conf []float64
			for _, t := range res.Triplets {
				pred = append(pred, quality.Triple{Subject: t.Subject.Surface, Relation: t.Predicate, Object: t.Object.Surface})
				conf = append(conf, t.Confidence)
			}
			counts, matched := quality.Match(it, pred)
			per[i] = counts
			d.kept(i, pred, conf, matched)
			for k, gi := range matched {
				if gi < 0 {
					continue
				}
				sp := res.Triplets[k].EvidenceSpan
				if in, ok := quality.EvidenceInGold(it, gi, sp.Start, sp.End); ok {
					evIn[i][1]++
					if in {
						evIn[i][0]++
					}
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return result{}, err
	}
	after := client.Usage()
	r := result{
		Config: cfg.name, Scores: quality.Summarize(per, seed), Calls: after.Calls - before.Calls, Dropped: map[string]int{}, Cut: map[string]int{},
		Tokens: [2]int64{after.PromptTokens - before.PromptTokens, after.CompletionTokens - before.CompletionTokens}, Seconds: time.Since(start).Seconds(),
	}
	for i := range items {
		if rejected[i] {
			r.Rejected++
		}
		r.EvidenceIn[0] += evIn[i][0]
		r.EvidenceIn[1] += evIn[i][1]
	}
	for _, ex := range extractors {
		st := ex.Stats()
		for k, v := range st.Dropped {
			r.Dropped[k] += v
		}
		r.Gleaned += st.Gleaned
		r.Kept += st.Kept
		for k, v := range st.Cut {
			r.Cut[k] += v
		}
	}
	return r, nil
}

// chunkOf is the one chunk an item is extracted as.
func chunkOf(it quality.Item) kg.Chunk {
	return kg.Chunk{ID: kg.ChunkID("bench:"+it.ID, it.Text), SourceID: "bench:" + it.ID, Text: it.Text, Span: kg.Span{End: len(it.Text)}}
}
