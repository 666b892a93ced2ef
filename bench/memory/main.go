package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}

func run() error {
	chunks := flag.Int("chunks", 100_000, "chunks in the corpus (100 a document)")
	dir := flag.String("dir", "", "work directory, one per -chunks (default: a new temporary one, removed at the end); a cache an earlier run left there is reused without a fill")
	flag.Parse()
	if flag.NArg() == 0 {
		return fmt.Errorf("name at least one binary as LABEL=PATH")
	}
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "kgforge-memory-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(d) }()
		work = d
	}
	pipeline, err := corpus(work, *chunks)
	if err != nil {
		return err
	}
	host, err := fakeOllama()
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("chunks %d, model: simulated (fake Ollama, fault-free), load average %s\n", *chunks, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Println("| binary | fill build | measured build (cache warm) | peak RSS of the measured build | chunks | cache hits |")
	fmt.Println("|---|---|---|---|---|---|")
	filled := map[string]bool{}
	for _, arg := range flag.Args() {
		label, bin, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("%q: want LABEL=PATH[,CACHE]", arg)
		}
		bin, group, _ := strings.Cut(bin, ",")
		group = cmp.Or(group, label)
		cache := filepath.Join(work, "cache-"+group)
		fillWall := "(cache " + group + " filled before)"
		if !filled[group] && filledBefore(cache) {
			filled[group], fillWall = true, "(cache "+group+" kept in -dir from an earlier run)"
		}
		if !filled[group] {
			fill, err := build(bin, pipeline, filepath.Join(work, "fill-"+label), cache, host)
			if err != nil {
				return fmt.Errorf("%s: fill: %w", label, err)
			}
			filled[group], fillWall = true, fill.wall.Round(time.Second).String()
		}
		out := filepath.Join(work, "out-"+label)
		if err := os.RemoveAll(out); err != nil { // a fresh state directory: every unit runs
			return err
		}
		m, err := build(bin, pipeline, out, cache, host)
		if err != nil {
			return fmt.Errorf("%s: measured build: %w", label, err)
		}
		fmt.Printf("| %s | %s | %s | %.0f MiB | %d | %d |\n", label, fillWall, m.wall.Round(time.Second), float64(m.rssKiB)/1024, m.chunks, m.hits)
	}
	return nil
}

// filledBefore reports whether an earlier run with the same -dir left a
// filled LLM cache there: its measured builds need no fill again.
func filledBefore(cache string) bool {
	entries, err := os.ReadDir(filepath.Join(cache, "extract"))
	return err == nil && len(entries) > 0
}

// corpus writes documents of 100 one-paragraph chunks each and the
// pipeline over them (no embeddings, no Neo4j), and returns its path.
func corpus(dir string, chunks int) (string, error) {
	docs := (chunks + 99) / 100
	for d := range docs {
		var b strings.Builder
		for p := range min(100, chunks-d*100) {
			n := d*100 + p
			fmt.Fprintf(&b, "Plant%d supplies Part%d to Assembler%d in the northern region. "+
				"The shipment of Part%d leaves every Monday with a quality report attached. "+
				"Assembler%d keeps a record of every batch it receives from Plant%d.\n\n", n%997, n, n%101, n, n%101, n%997)
		}
		p := filepath.Join(dir, "docs", fmt.Sprintf("doc-%05d.md", d))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if have, err := os.ReadFile(p); err == nil && string(have) == b.String() {
			continue // left by an earlier run in -dir: its cache stays warm, its file untouched
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return "", err
		}
	}
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: memory\nsources:\n  - {name: docs, paths: [\"docs/*.md\"]}\nchunking: {size: 60, overlap: 0}\n" +
		"llm: {chat_model: m, concurrency: 4}\nresolve: {embeddings: false}\nneo4j: {mode: never}\n"
	return pf, os.WriteFile(pf, []byte(raw), 0o644)
}

type result struct {
	wall         time.Duration
	rssKiB       int64
	chunks, hits int
}

// build runs one build under /usr/bin/time -v and reads its report.
func build(bin, pipeline, out, cache, host string) (result, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("/usr/bin/time", "-v", bin, "build", "-p", pipeline, "-o", out, "--json")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+host, "KGFORGE_CACHE_DIR="+cache)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start)}
	if err != nil && cmd.ProcessState.ExitCode() != 3 {
		return r, fmt.Errorf("%w\n%s", err, tail(stderr.String()))
	}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Maximum resident set size (kbytes): "); ok {
			_, _ = fmt.Sscan(v, &r.rssKiB)
		}
	}
	var rep struct {
		Chunks  int `json:"chunks"`
		Extract struct {
			CacheHits int `json:"cache_hits"`
		} `json:"extract"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return r, fmt.Errorf("report: %w", err)
	}
	r.chunks, r.hits = rep.Chunks, rep.Extract.CacheHits
	return r, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// fakeOllama serves the three calls a build makes, at once and without
// fault: the model list, the model's template, and chats answered with
// one triplet from the first evidence sentence the reply schema offers.
func fakeOllama() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			_, _ = io.WriteString(w, `{"models":[{"name":"m","model":"m","digest":"d1"}]}`)
		case "/api/show":
			_, _ = io.WriteString(w, `{"template":"{{ range .Messages }}{{ .Content }}{{ end }}","capabilities":["completion"]}`)
		case "/api/chat":
			chat(w, r)
		default:
			http.NotFound(w, r)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

func chat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Format struct {
			Properties struct {
				Triplets struct {
					Items struct {
						Properties struct{ Evidence struct{ Enum []string } }
					}
				}
			}
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	enum := req.Format.Properties.Triplets.Items.Properties.Evidence.Enum
	reply := map[string]any{"triplets": []any{}}
	if len(enum) > 0 {
		words := strings.Fields(strings.Trim(enum[0], ".# "))
		reply["triplets"] = []map[string]string{{
			"evidence": enum[0], "subject": words[0], "subject_type": "thing", "predicate": "supplies",
			"object": words[len(words)-1], "object_type": "thing",
		}}
	}
	content, _ := json.Marshal(reply)
	out, _ := json.Marshal(map[string]any{
		"model": "m", "done": true, "done_reason": "stop", "eval_count": 20, "prompt_eval_count": 400,
		"total_duration": int64(time.Millisecond), "eval_duration": int64(time.Millisecond),
		"message": map[string]string{"role": "assistant", "content": string(content)},
	})
	_, _ = w.Write(append(out, '\n'))
}
