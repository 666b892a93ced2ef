package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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
	pipeline, err := writeCorpus(root, *docs, *paras)
	if err != nil {
		return err
	}
	old := time.Now().Add(-time.Hour) // older than the file index's racy window
	if err := ageAll(root, old); err != nil {
		return err
	}
	b := &bench{exe: exe, pipeline: pipeline, out: filepath.Join(work, "out"), cache: filepath.Join(work, "cache")}
	fmt.Printf("corpus: %d documents of %d paragraphs, 2 CSV tables; extract.skip (no model)\n\n", *docs, *paras)
	fmt.Println("| build | wall | ingest / consolidate / bundle | peak RSS | sources read | source units run/reused | chunks | nodes |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	changed := filepath.Join(root, "docs", docName(*docs/2))
	steps := []struct {
		name   string
		before func() error
	}{
		{"first", nil},
		{"unchanged", nil},
		{"one document changed", func() error {
			if err := os.WriteFile(changed, []byte(document(*docs/2, *paras, 7)), 0o600); err != nil {
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
	return nil
}

type bench struct{ exe, pipeline, out, cache string }

// run builds once and prints a row of the table.
func (b *bench) run(name string) error {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(b.exe, "build", "--pipeline", b.pipeline, "--out", b.out, "--json")
	cmd.Env = append(os.Environ(), "KGFORGE_CACHE_DIR="+b.cache)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
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
	u := rep.Plan.Units["source"]
	sec := func(stage string) float64 { return rep.Stages[stage].Duration.Seconds() }
	fmt.Printf("| %s | %.2f s | %.2f / %.2f / %.2f s | %d MiB | %d | %d/%d | %d | %d |\n", name, wall.Seconds(),
		sec("ingest"), sec("consolidate"), sec("bundle"), rss/1024, rep.Plan.SourcesRead, u.Run, u.Reused, rep.Chunks, rep.Nodes)
	if len(rep.Plan.Changed)+len(rep.Plan.Removed) > 0 {
		fmt.Printf("|  | changed %v, removed %v |  |  |  |  |  |  |\n", rep.Plan.Changed, rep.Plan.Removed)
	}
	return nil
}

func docName(i int) string { return fmt.Sprintf("doc-%05d.md", i) }

var words = strings.Fields(`alpine amber apex arc atlas aurora basalt beacon birch bolt cedar cobalt comet
	copper coral crest delta drift ember falcon flint forge frontier garnet glacier granite harbor hawk
	helix horizon iron jade juniper keystone lumen maple marble meridian nimbus oak onyx orbit pine prism
	quartz raven ridge river sable sierra silver solar spruce steel summit terra timber titan vale vector`)

var verbs = []string{"supplies", "assembles", "ships", "tests", "paints", "welds", "inspects", "stores"}

// document writes the text of document i; seed varies its content.
func document(i, paras int, seed uint64) string {
	r := rand.New(rand.NewPCG(uint64(i), seed))
	name := func() string {
		return strings.ToUpper(words[r.IntN(len(words))][:1]) + words[r.IntN(len(words))][1:] + " " + []string{"Works", "Cycles", "Alloys", "Logistics"}[r.IntN(4)]
	}
	var w strings.Builder
	fmt.Fprintf(&w, "# Report %d\n\n", i)
	for p := range paras {
		fmt.Fprintf(&w, "## Section %d\n\n", p)
		for range 4 {
			fmt.Fprintf(&w, "%s %s the %s %s for %s. ", name(), verbs[r.IntN(len(verbs))], words[r.IntN(len(words))], words[r.IntN(len(words))], name())
		}
		w.WriteString("\n\n")
	}
	return w.String()
}

// writeCorpus writes the documents, two tables and the pipeline, and
// returns the pipeline's path.
func writeCorpus(root string, docs, paras int) (string, error) {
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(root, "data"), 0o755); err != nil {
		return "", err
	}
	for i := range docs {
		if err := os.WriteFile(filepath.Join(root, "docs", docName(i)), []byte(document(i, paras, 1)), 0o600); err != nil {
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
	raw := `name: bench-engine
root: .
output: out
sources:
  - {name: docs, paths: ["docs/*.md"]}
  - {name: tables, paths: ["data/*.csv"]}
chunking: {size: 200, overlap: 20}
llm: {chat_model: gemma3:270m}
extract: {skip: true}
resolve: {embeddings: false}
neo4j: {mode: never}
`
	return pipeline, os.WriteFile(pipeline, []byte(raw), 0o600)
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
