package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kgforge/stages"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	docs := flag.Int("docs", 300, "documents in the corpus")
	paras := flag.Int("paragraphs", 12, "paragraphs per document")
	dir := flag.String("dir", "", "work directory (default: a new temporary one, removed at the end)")
	bin := flag.String("kgforge", "", "kgforge binary (default: built from this tree)")
	sentences := flag.Int("sentences", 4, "sentences per paragraph")
	model := flag.String("model", "", "Ollama chat model to extract with (OLLAMA_HOST names the server); empty: extract.skip, no model asked")
	embed := flag.String("embed-model", "all-minilm:l6-v2", "Ollama embedding model of resolution, with -model")
	logs := flag.Bool("logs", false, "copy each build's log lines (its progress per stage) to standard error")
	conc := flag.Int("concurrency", 1, "llm.concurrency: extraction calls in flight, with -model (the server needs as many OLLAMA_NUM_PARALLEL slots)")
	flag.Parse()
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "kgforge-bench-engine-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(d) }() // scratch space
		work = d
	}
	exe := *bin
	if exe == "" {
		exe = filepath.Join(work, "kgforge")
		if out, err := exec.Command("go", "build", "-o", exe, "./cmd/kgforge").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %w\n%s", err, out)
		}
	}
	root := filepath.Join(work, "corpus")
	c := corpus{docs: *docs, paras: *paras, sentences: *sentences, model: *model, embed: *embed, concurrency: *conc}
	pipeline, err := c.write(root)
	if err != nil {
		return err
	}
	old := time.Now().Add(-time.Hour) // older than the file index's racy window
	if err := ageAll(root, old); err != nil {
		return err
	}
	b := &bench{exe: exe, pipeline: pipeline, out: filepath.Join(work, "out"), cache: filepath.Join(work, "cache"), model: *model != ""}
	if *logs {
		b.logs = os.Stderr
	}
	how := "extract.skip (no model)"
	if b.model {
		how = fmt.Sprintf("extracted with %s at %s, embeddings %s", *model, os.Getenv("OLLAMA_HOST"), *embed)
	}
	fmt.Printf("corpus: %d documents of %d paragraphs of %d sentences, 2 CSV tables; %s\n\n", *docs, *paras, *sentences, how)
	b.header()
	changed := filepath.Join(root, "docs", docName(*docs/2))
	steps := []struct {
		name   string
		before func() error
	}{
		{"first", nil},
		{"unchanged", nil},
		{"one document changed", func() error {
			if err := os.WriteFile(changed, []byte(c.document(*docs/2, 7)), 0o600); err != nil {
				return err
			}
			return os.Chtimes(changed, old.Add(time.Minute), old.Add(time.Minute))
		}},
		{"one document deleted", func() error { return os.Remove(filepath.Join(root, "docs", docName(*docs/3))) }},
	}
	for _, s := range steps {
		if s.before != nil {
			if err := s.before(); err != nil {
				return err
			}
		}
		if err := b.run(s.name); err != nil {
			return err
		}
	}
	return b.diffs()
}

type bench struct {
	exe, pipeline, out, cache string
	logs                      io.Writer // where each build's log lines go too (-logs); nil: kept for errors only
	model                     bool      // extracted with the model: the LLM columns
	first                     float64   // the first build's wall seconds
	bundles, names            []string  // each build's bundle, and its row's name
}

func (b *bench) header() {
	if !b.model {
		fmt.Println("| build | wall | ingest / consolidate / bundle | peak RSS | sources read | source units run/reused | chunks | nodes | load |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|")
		return
	}
	fmt.Println("| build | wall | of first | ingest / extract / consolidate / bundle | peak RSS | sources read | source units run/reused | extract units run/reused | chunks to extractor | LLM chat calls | prompt / completion tokens | embed inputs | chunks | nodes | edges | load |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
}

// diffs runs kgforge diff between each build's bundle and the one before.
func (b *bench) diffs() error {
	for i := 1; i < len(b.bundles); i++ {
		out, err := exec.Command(b.exe, "diff", "--limit", "5", b.bundles[i-1], b.bundles[i]).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) { // 1: they differ
			return fmt.Errorf("diff %s: %w\n%s", b.names[i], err, out)
		}
		fmt.Printf("\nkgforge diff, %s against the build before:\n%s", b.names[i], out)
	}
	return nil
}

// load is the load average over the last minute, as uptime shows it.
func load() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}

// run builds once and prints a row of the table.
func (b *bench) run(name string) error {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(b.exe, "build", "--pipeline", b.pipeline, "--out", b.out, "--json")
	cmd.Env = append(os.Environ(), "KGFORGE_CACHE_DIR="+b.cache)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if b.logs != nil { // the build's progress lines, as a scheduler's log shows them
		cmd.Stderr = io.MultiWriter(&stderr, b.logs)
	}
	ld := load()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", name, err, stderr.String())
	}
	wall := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	var rep stages.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return fmt.Errorf("build %s: report: %w", name, err)
	}
	if rep.Plan == nil { // a kgforge from before the engine: no plan to report
		rep.Plan = &stages.Plan{SourcesRead: -1, Units: map[string]*stages.UnitCounts{"source": {Run: -1, Reused: -1}}}
	}
	if rep.Status != stages.StatusOK {
		fmt.Printf("(build %s: status %s, rejected %v)\n", name, rep.Status, rep.Rejected)
	}
	b.bundles, b.names = append(b.bundles, rep.Bundle), append(b.names, name)
	u := units(rep.Plan, "source")
	sec := func(stage string) float64 { return rep.Stages[stage].Duration.Seconds() }
	if !b.model {
		fmt.Printf("| %s | %.2f s | %.2f / %.2f / %.2f s | %d MiB | %d | %d/%d | %d | %d | %s |\n", name, wall.Seconds(),
			sec("ingest"), sec("consolidate"), sec("bundle"), rss/1024, rep.Plan.SourcesRead, u.Run, u.Reused, rep.Chunks, rep.Nodes, ld)
	} else {
		if b.first == 0 {
			b.first = wall.Seconds()
		}
		x := units(rep.Plan, "extract")
		fmt.Printf("| %s | %.1f s | %.1f %% | %.1f / %.1f / %.1f / %.1f s | %d MiB | %d | %d/%d | %d/%d | %d | %d | %d / %d | %d | %d | %d | %d | %s |\n",
			name, wall.Seconds(), 100*wall.Seconds()/b.first, sec("ingest"), sec("extract"), sec("consolidate"), sec("bundle"), rss/1024,
			rep.Plan.SourcesRead, u.Run, u.Reused, x.Run, x.Reused, rep.Extract.Chunks-rep.Extract.CacheHits, rep.Extract.Calls,
			rep.LLM.PromptTokens, rep.LLM.CompletionTokens, rep.LLM.EmbedInputs, rep.Chunks, rep.Nodes, rep.Edges, ld)
	}
	if len(rep.Plan.Changed)+len(rep.Plan.Removed) > 0 {
		fmt.Printf("|  | changed %v, removed %v |  |  |  |  |  |  |\n", rep.Plan.Changed, rep.Plan.Removed)
	}
	return nil
}

// units is the plan's count of one kind of unit; none ran when absent.
func units(p *stages.Plan, kind string) stages.UnitCounts {
	if u := p.Units[kind]; u != nil {
		return *u
	}
	return stages.UnitCounts{}
}

func docName(i int) string { return fmt.Sprintf("doc-%05d.md", i) }

var words = strings.Fields(`alpine amber apex arc atlas aurora basalt beacon birch bolt cedar cobalt comet
	copper coral crest delta drift ember falcon flint forge frontier garnet glacier granite harbor hawk
	helix horizon iron jade juniper keystone lumen maple marble meridian nimbus oak onyx orbit pine prism
	quartz raven ridge river sable sierra silver solar spruce steel summit terra timber titan vale vector`)

var verbs = []string{"supplies", "assembles", "ships", "tests", "paints", "welds", "inspects", "stores"}

// corpus is the synthetic corpus: its size, and the model (none:
// extract.skip).
type corpus struct {
	docs, paras, sentences, concurrency int
	model, embed                        string
}

// document writes the text of document i; seed varies its content.
func (c corpus) document(i int, seed uint64) string {
	r := rand.New(rand.NewPCG(uint64(i), seed))
	name := func() string {
		return strings.ToUpper(words[r.IntN(len(words))][:1]) + words[r.IntN(len(words))][1:] + " " + []string{"Works", "Cycles", "Alloys", "Logistics"}[r.IntN(4)]
	}
	var w strings.Builder
	if c.paras == 1 { // one paragraph, no headings: one chunk
		fmt.Fprintf(&w, "Report %d. ", i)
	} else {
		fmt.Fprintf(&w, "# Report %d\n\n", i)
	}
	for p := range c.paras {
		if c.paras > 1 {
			fmt.Fprintf(&w, "## Section %d\n\n", p)
		}
		for range c.sentences {
			fmt.Fprintf(&w, "%s %s the %s %s for %s. ", name(), verbs[r.IntN(len(verbs))], words[r.IntN(len(words))], words[r.IntN(len(words))], name())
		}
		w.WriteString("\n\n")
	}
	return w.String()
}

// write writes the documents, two tables and the pipeline under root, and
// returns the pipeline's path.
func (c corpus) write(root string) (string, error) {
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(root, "data"), 0o755); err != nil {
		return "", err
	}
	for i := range c.docs {
		if err := os.WriteFile(filepath.Join(root, "docs", docName(i)), []byte(c.document(i, 1)), 0o600); err != nil {
			return "", err
		}
	}
	var parts, orders strings.Builder
	parts.WriteString("part_id,name,supplier\n")
	orders.WriteString("order_id,part_id,qty\n")
	for i := range 2000 {
		fmt.Fprintf(&parts, "P%d,%s %s,%s Works\n", i, words[i%len(words)], words[(i/7)%len(words)], words[(i/3)%len(words)])
		fmt.Fprintf(&orders, "O%d,P%d,%d\n", i, (i*13)%2000, i%17+1)
	}
	if err := os.WriteFile(filepath.Join(root, "data", "parts.csv"), []byte(parts.String()), 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, "data", "orders.csv"), []byte(orders.String()), 0o600); err != nil {
		return "", err
	}
	pipeline := filepath.Join(root, "pipeline.yaml")
	return pipeline, os.WriteFile(pipeline, []byte(c.pipeline()), 0o600)
}

// pipeline is the corpus's pipeline file: without a model, extract.skip
// and no embeddings; with one, extraction and resolution as a user runs
// them, concurrency calls at a time.
func (c corpus) pipeline() string {
	head := `name: bench-engine
root: .
output: out
sources:
  - {name: docs, paths: ["docs/*.md"]}
  - {name: tables, paths: ["data/*.csv"]}
chunking: {size: 200, overlap: 20}
neo4j: {mode: never}
`
	if c.model == "" {
		return head + "llm: {chat_model: gemma3:270m}\nextract: {skip: true}\nresolve: {embeddings: false}\n"
	}
	return head + fmt.Sprintf("llm: {chat_model: %q, embed_model: %q, concurrency: %d}\n", c.model, c.embed, max(1, c.concurrency))
}

// ageAll dates every file under root at t.
func ageAll(root string, t time.Time) error {
	return filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		return os.Chtimes(p, t, t)
	})
}
