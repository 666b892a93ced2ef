package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kgforge/bench/quality"
)

// The peers are other systems' own extractors, run as their users run them
// (bench/extractq/peers: a Python driver per peer, in a virtual environment
// that peers/setup.sh makes), against the same Ollama server and model on
// the same sampled items. Each driver writes one JSON line per item
// (peerItem); this file runs them, reads what they wrote and scores it with
// bench/quality's scorer, beside kgforge's own extractor scored the same way.

// peerItem is what a system extracted from one item, with what it cost.
// The peers' drivers write it (peers/common.py); kgforge's rows fill it in
// Go. Costs are Ollama's own counters, read by the drivers' counting proxy
// (prompt_eval_count and eval_count, or the /v1 usage).
type peerItem struct {
	ID               string         `json:"id"`
	System           string         `json:"system"`
	Version          string         `json:"version"`
	Entities         []peerEntity   `json:"entities"`
	Relations        []peerRelation `json:"relations"`
	Calls            int            `json:"llm_calls"`
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	CutAtBound       int            `json:"cut_at_bound"` // replies cut at the output bound
	EmbedCalls       int            `json:"embed_calls"`
	Seconds          float64        `json:"seconds"`
	Cached           bool           `json:"cached"` // costs are those of the run that made it
	Error            string         `json:"error"`
}

type peerEntity struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// peerRelation is one relation as a system states it. Predicate is a
// relation label (kgforge), keywords (LightRAG) or a description
// (GraphRAG): free text for the peers.
type peerRelation struct {
	Subject     string `json:"subject"`
	Predicate   string `json:"predicate"`
	Object      string `json:"object"`
	Description string `json:"description"`
}

// readPeerItems reads a driver's JSONL output, keyed by item id. A line
// that is not a peerItem, or has no id, is an error naming the line.
func readPeerItems(r io.Reader, name string) (map[string]peerItem, error) {
	out := map[string]peerItem{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var it peerItem
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		if it.ID == "" {
			return nil, fmt.Errorf("%s line %d: no item id", name, n)
		}
		out[it.ID] = it
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return out, nil
}

// peerScores is one system's row of the side-by-side table.
type peerScores struct {
	System    string         `json:"system"`
	Version   string         `json:"version,omitempty"`
	Relations quality.Scores `json:"relations"` // endpoints and predicate match a gold triple
	Pairs     quality.Scores `json:"pairs"`     // endpoints match a gold triple, predicate ignored
	Entities  quality.Scores `json:"entities"`  // entity names against the gold entities
	// Grounded counts the relations whose subject and object both occur
	// in the item's text, of all relations.
	Grounded         [2]int   `json:"endpoints_in_text"`
	Calls            int      `json:"llm_calls"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CutAtBound       int      `json:"cut_at_bound"`
	EmbedCalls       int      `json:"embed_calls"`
	Seconds          float64  `json:"seconds"`
	Cached           int      `json:"items_cached"`
	Failed           []string `json:"items_failed,omitempty"` // "id: error"
}

// scorePeer scores a system's output on the sampled items. An item the
// system has no line for, or failed on, counts as predicting nothing.
// undirected: the system stores relations without direction (the peers'
// graphs), so a relation also matches with subject and object swapped.
func scorePeer(system string, items []quality.Item, got map[string]peerItem, undirected bool, seed uint64) peerScores {
	s := peerScores{System: system}
	rel, pair, ent := make([]quality.Counts, len(items)), make([]quality.Counts, len(items)), make([]quality.Counts, len(items))
	for i, it := range items {
		p, ok := got[it.ID]
		if !ok {
			p = peerItem{Error: "no output"}
		}
		if p.Error != "" {
			s.Failed = append(s.Failed, it.ID+": "+p.Error)
		}
		if p.Version != "" {
			s.Version = p.Version
		}
		rel[i] = matchRelations(it, relationVariants(p.Relations, undirected, false))
		pair[i] = matchRelations(unlabelled(it), relationVariants(p.Relations, undirected, true))
		ent[i] = matchEntities(it, entityNames(p))
		for _, r := range p.Relations {
			s.Grounded[1]++
			if inText(it.Text, r.Subject) && inText(it.Text, r.Object) {
				s.Grounded[0]++
			}
		}
		s.Calls += p.Calls
		s.PromptTokens += p.PromptTokens
		s.CompletionTokens += p.CompletionTokens
		s.CutAtBound += p.CutAtBound
		s.EmbedCalls += p.EmbedCalls
		s.Seconds += p.Seconds
		if p.Cached {
			s.Cached++
		}
	}
	s.Relations, s.Pairs, s.Entities = quality.Summarize(rel, seed), quality.Summarize(pair, seed), quality.Summarize(ent, seed)
	return s
}

// relationVariants gives, for each relation, the triples that may state
// it: each predicate candidate (the predicate, each of its comma- or
// semicolon-separated parts, the description), and with undirected the
// same swapped. unlabelled drops the predicate (for the pair score).
func relationVariants(rels []peerRelation, undirected, unlabelled bool) [][]quality.Triple {
	out := make([][]quality.Triple, 0, len(rels))
	for _, r := range rels {
		preds := []string{""}
		if !unlabelled {
			preds = append(preds[:0], r.Predicate)
			preds = append(preds, strings.FieldsFunc(r.Predicate, func(c rune) bool { return c == ',' || c == ';' })...)
			if r.Description != "" {
				preds = append(preds, r.Description)
			}
		}
		var vs []quality.Triple
		for _, p := range preds {
			vs = append(vs, quality.Triple{Subject: r.Subject, Relation: p, Object: r.Object})
			if undirected {
				vs = append(vs, quality.Triple{Subject: r.Object, Relation: p, Object: r.Subject})
			}
		}
		out = append(out, vs)
	}
	return out
}

// unlabelled is the item with every gold predicate blanked, for scoring
// endpoints alone.
func unlabelled(it quality.Item) quality.Item {
	it.Gold = slices.Clone(it.Gold)
	for i := range it.Gold {
		it.Gold[i].Relation = ""
	}
	return it
}

// matchRelations scores relations against an item's gold triples with
// quality.Match: a relation is true when one of its variants matches a gold
// triple that no earlier relation took.
func matchRelations(it quality.Item, rels [][]quality.Triple) quality.Counts {
	left := it
	left.Gold = slices.Clone(it.Gold)
	var c quality.Counts
	for _, vs := range rels {
		hit := -1
		for _, v := range vs {
			if _, m := quality.Match(left, []quality.Triple{v}); m[0] >= 0 {
				hit = m[0]
				break
			}
		}
		if hit < 0 {
			c.FP++
			continue
		}
		c.TP++
		left.Gold = slices.Delete(left.Gold, hit, hit+1)
	}
	c.FN = len(left.Gold)
	return c
}

// entityNames are a system's entity names and its relations' endpoints.
func entityNames(p peerItem) []string {
	var names []string
	for _, e := range p.Entities {
		names = append(names, e.Name)
	}
	for _, r := range p.Relations {
		names = append(names, r.Subject, r.Object)
	}
	return names
}

// goldEntities are an item's gold entities, each the set of its
// normalised names: Re-DocRED's annotated entities with all their
// mentions; for Text2KGBench, which annotates only its triples, the gold
// triples' subjects and objects.
func goldEntities(it quality.Item) [][]string {
	seen := map[string]bool{}
	var out [][]string
	add := func(names []string) {
		k := strings.Join(names, "\x00")
		if len(names) > 0 && !seen[k] {
			seen[k] = true
			out = append(out, names)
		}
	}
	if len(it.Aliases) > 0 {
		keys := make([]string, 0, len(it.Aliases))
		for k := range it.Aliases {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			add(it.Aliases[k])
		}
		return out
	}
	for _, g := range it.Gold {
		add([]string{quality.Normalize(g.Subject)})
		add([]string{quality.Normalize(g.Object)})
	}
	return out
}

// matchEntities scores entity names against the gold entities after
// quality.Normalize: a name is true when it names a gold entity no earlier
// name took; a second name of an entity already found is neither right nor
// wrong (systems differ in whether they merge aliases), and a name repeated
// counts once.
func matchEntities(it quality.Item, names []string) quality.Counts {
	gold := goldEntities(it)
	found := make([]bool, len(gold))
	seen := map[string]bool{}
	var c quality.Counts
	for _, n := range names {
		n = quality.Normalize(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		hit, again := -1, false
		for j, g := range gold {
			if slices.Contains(g, n) {
				if !found[j] {
					hit = j
					break
				}
				again = true
			}
		}
		switch {
		case hit >= 0:
			found[hit] = true
			c.TP++
		case !again:
			c.FP++
		}
	}
	for _, f := range found {
		if !f {
			c.FN++
		}
	}
	return c
}

// inText reports whether a name occurs in a text as whole words, after
// quality.Normalize of both.
func inText(text, name string) bool {
	n := quality.Normalize(name)
	return n != "" && strings.Contains(" "+quality.Normalize(text)+" ", " "+n+" ")
}

// peerDriver is how to run one peer: its driver script and virtual
// environment.
type peerDriver struct {
	name, script string
	undirected   bool
}

var peerDrivers = map[string]peerDriver{
	"lightrag": {"lightrag", "lightrag_extract.py", true},
	"graphrag": {"graphrag", "graphrag_extract.py", true},
}

// peerOptions are the flags of a peers run.
type peerOptions struct {
	dir, venv, work string // driver scripts, virtual environments (setup.sh), the drivers' caches
	model, embed    string
}

// runDriver runs a peer's driver on the items and reads what it wrote.
// The driver's progress goes to stderr.
func runDriver(ctx context.Context, d peerDriver, opts peerOptions, items []quality.Item) (map[string]peerItem, error) {
	python := filepath.Join(opts.venv, d.name, "bin", "python")
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Errorf("peer %s: no virtual environment at %s (run bench/extractq/peers/setup.sh): %w", d.name, filepath.Dir(filepath.Dir(python)), err)
	}
	tmp, err := os.MkdirTemp("", "extractq-peers-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a leftover temporary directory is harmless
	in, out := filepath.Join(tmp, "items.jsonl"), filepath.Join(tmp, d.name+".jsonl")
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, it := range items {
		if err := enc.Encode(map[string]string{"id": it.ID, "text": it.Text}); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	args := []string{filepath.Join(opts.dir, d.script), "--in", in, "--out", out, "--model", opts.model, "--embed-model", opts.embed}
	if opts.work != "" {
		args = append(args, "--work", opts.work)
	}
	tiktoken := filepath.Join(opts.venv, "tiktoken")
	if err := writeTiktokenFiles(tiktoken); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "TIKTOKEN_CACHE_DIR="+tiktoken, "LITELLM_LOCAL_MODEL_COST_MAP=True", "PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1")
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("peer %s: driver %s: %w", d.name, d.script, err)
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("peer %s: %w", d.name, err)
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	return readPeerItems(f, out)
}

// printPeer prints one row of the side-by-side table.
func printPeer(w io.Writer, set string, s peerScores) error {
	var b strings.Builder
	r, e := s.Relations, s.Entities
	fmt.Fprintf(&b, "%-22s %s n=%d  relations %d/%d P %.3f R %.3f F1 %.3f [%.3f, %.3f]  pairs F1 %.3f [%.3f, %.3f]  entities P %.3f R %.3f F1 %.3f [%.3f, %.3f]",
		s.System, set, r.Items, r.TP, r.TP+r.FP, r.Precision, r.Recall, r.F1, r.F1CI[0], r.F1CI[1],
		s.Pairs.F1, s.Pairs.F1CI[0], s.Pairs.F1CI[1], e.Precision, e.Recall, e.F1, e.F1CI[0], e.F1CI[1])
	fmt.Fprintf(&b, "  endpoints in text %d/%d  calls %d  tokens %d+%d  cut %d  %.0fs", s.Grounded[0], s.Grounded[1],
		s.Calls, s.PromptTokens, s.CompletionTokens, s.CutAtBound, s.Seconds)
	if s.Cached > 0 {
		fmt.Fprintf(&b, "  (%d items cached: costs of the run that made them)", s.Cached)
	}
	if len(s.Failed) > 0 {
		fmt.Fprintf(&b, "  failed %d: %s", len(s.Failed), strings.Join(s.Failed, "; "))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// errNoPeers is returned for an empty or unknown -peers list.
var errNoPeers = errors.New("no such system")

// timeSince is time.Since in seconds.
func timeSince(t time.Time) float64 { return time.Since(t).Seconds() }
