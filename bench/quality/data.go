package quality

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Triple is a fact as the benchmarks state it, by labels.
type Triple struct {
	Subject, Relation, Object string
}

// Item is one unit of evaluation: a sentence or a document, its gold
// triples and, for schema-guided extraction, its ontology.
type Item struct {
	ID       string
	Text     string
	Gold     []Triple
	Ontology string // ontology id for Text2KGBench items; empty for Re-DocRED

	// Re-DocRED only: the byte span of every sentence in Text, each gold
	// triple's evidence sentences, and every surface form of each entity.
	Sentences [][2]int
	Evidence  [][]int
	Aliases   map[string][]string // normalised name → every normalised mention of its entity
}

// Ontology is the schema of a Text2KGBench domain.
type Ontology struct {
	ID        string
	Title     string
	Concepts  []string
	Relations []Relation
}

// Relation is one relation of an ontology, with its domain and range concept
// labels (empty when the ontology leaves them open).
type Relation struct {
	Label, Domain, Range string
}

// LoadOntology reads a Text2KGBench ontology file.
func LoadOntology(path string) (Ontology, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Ontology{}, fmt.Errorf("read ontology: %w", err)
	}
	var f struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Concepts []struct {
			QID   string `json:"qid"`
			Label string `json:"label"`
		} `json:"concepts"`
		Relations []struct {
			Label  string `json:"label"`
			Domain string `json:"domain"`
			Range  string `json:"range"`
		} `json:"relations"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return Ontology{}, fmt.Errorf("ontology %s: %w", path, err)
	}
	byID := map[string]string{}
	o := Ontology{ID: f.ID, Title: f.Title}
	for _, c := range f.Concepts {
		byID[c.QID] = c.Label
		o.Concepts = append(o.Concepts, c.Label)
	}
	for _, r := range f.Relations {
		dom, rng := byID[r.Domain], byID[r.Range]
		if dom == "" {
			dom = r.Domain
		}
		if rng == "" {
			rng = r.Range
		}
		o.Relations = append(o.Relations, Relation{Label: r.Label, Domain: dom, Range: rng})
	}
	if o.ID == "" || len(o.Relations) == 0 {
		return Ontology{}, fmt.Errorf("ontology %s: no id or no relations", path)
	}
	return o, nil
}

// LoadText2KG reads a Text2KGBench split file: either one gold triple per
// line with labels (wikidata_tekgen) or a sentence with its whole gold set
// (dbpedia_webnlg). Lines about the same sentence become one item.
func LoadText2KG(path string) (_ []Item, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read text2kgbench: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	ont := ontologyOf(filepath.Base(path))
	var items []Item
	bySent := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var l struct {
			ID      string `json:"id"`
			Sent    string `json:"sent"`
			Sub     string `json:"sub_label"`
			Rel     string `json:"rel_label"`
			Obj     string `json:"obj_label"`
			Triples []struct{ Sub, Rel, Obj string }
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		var gold []Triple
		if l.Triples != nil {
			for _, t := range l.Triples {
				gold = append(gold, Triple{dbpediaLabel(t.Sub), t.Rel, dbpediaLabel(t.Obj)})
			}
		} else {
			gold = []Triple{{l.Sub, l.Rel, l.Obj}}
		}
		if i, ok := bySent[l.Sent]; ok {
			items[i].Gold = append(items[i].Gold, gold...)
			continue
		}
		bySent[l.Sent] = len(items)
		items = append(items, Item{ID: l.ID, Text: l.Sent, Gold: gold, Ontology: ont})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return items, nil
}

// ontologyOf returns the ontology id a split file belongs to:
// ont_1_movie_validation.jsonl → ont_1_movie.
func ontologyOf(base string) string {
	base = strings.TrimSuffix(base, ".jsonl")
	for _, suf := range []string{"_validation", "_train", "_test"} {
		base = strings.TrimSuffix(base, suf)
	}
	return base
}

// dbpediaLabel turns a DBpedia resource name into the label a sentence
// states: underscores to spaces, the "(disambiguation)" suffix and quotes
// dropped.
func dbpediaLabel(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	return strings.Trim(s, `"`)
}

// LoadReDocRED reads Re-DocRED's dev_revised.json with the relation names of
// rel_info.json beside it. Each document's sentences are joined by single
// spaces; the tokens inside a sentence by single spaces too, or, with
// detok, made running text by Detok (as kgforge-extract's training data
// has them; kgforge's rules were checked on the spaced form).
func LoadReDocRED(path string, detok bool) ([]Item, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read re-docred: %w", err)
	}
	relRaw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "rel_info.json"))
	if err != nil {
		return nil, fmt.Errorf("read re-docred relation names: %w", err)
	}
	var rel map[string]string
	if err := json.Unmarshal(relRaw, &rel); err != nil {
		return nil, fmt.Errorf("rel_info.json: %w", err)
	}
	var docs []struct {
		Title     string     `json:"title"`
		Sents     [][]string `json:"sents"`
		VertexSet [][]struct {
			Name string `json:"name"`
		} `json:"vertexSet"`
		Labels []struct {
			R        string `json:"r"`
			H        int    `json:"h"`
			T        int    `json:"t"`
			Evidence []int  `json:"evidence"`
		} `json:"labels"`
	}
	if err := json.Unmarshal(raw, &docs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	items := make([]Item, 0, len(docs))
	for i, d := range docs {
		it := Item{ID: fmt.Sprintf("redocred_dev_%d", i), Aliases: map[string][]string{}}
		var b strings.Builder
		for _, s := range d.Sents {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			start := b.Len()
			if detok {
				b.WriteString(Detok(s))
			} else {
				b.WriteString(strings.Join(s, " "))
			}
			it.Sentences = append(it.Sentences, [2]int{start, b.Len()})
		}
		it.Text = b.String()
		names := make([]string, len(d.VertexSet))
		for v, ms := range d.VertexSet {
			var all []string
			for _, m := range ms {
				all = append(all, Normalize(m.Name))
			}
			slices.Sort(all)
			all = slices.Compact(all)
			names[v] = ms[0].Name
			for _, a := range all {
				it.Aliases[a] = all
			}
		}
		for _, l := range d.Labels {
			if l.H >= len(names) || l.T >= len(names) {
				return nil, fmt.Errorf("%s document %d: label names entity %d or %d of %d", path, i, l.H, l.T, len(names))
			}
			name := rel[l.R]
			if name == "" {
				name = l.R
			}
			it.Gold = append(it.Gold, Triple{names[l.H], name, names[l.T]})
			it.Evidence = append(it.Evidence, l.Evidence)
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, errors.New(path + ": no documents")
	}
	return items, nil
}

var (
	detokBefore = regexp.MustCompile(` ([,.;:!?%)\]])`)
	detokAfter  = regexp.MustCompile(`([(\[$]) `)
	detokClitic = regexp.MustCompile(` (n't|'s|'re|'ve|'ll|'d|'m)\b`)
)

// Detok joins Re-DocRED's tokens as running text, as kgforge's sources
// have it: no space before closing punctuation and clitics, none after
// opening brackets. training/kgtrain/prepare.py's detok does the same.
func Detok(tokens []string) string {
	s := strings.Join(tokens, " ")
	s = detokBefore.ReplaceAllString(s, "$1")
	s = detokAfter.ReplaceAllString(s, "$1")
	s = detokClitic.ReplaceAllString(s, "$1")
	return strings.NewReplacer("`` ", `"`, " ''", `"`).Replace(s)
}

// Sample returns n items drawn without replacement with a fixed seed, in
// their original order, so a sample is the same on every machine; n ≤ 0 or
// n ≥ len(items) returns them all.
func Sample(items []Item, n int, seed uint64) []Item {
	if n <= 0 || n >= len(items) {
		return items
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := r.Perm(len(items))[:n]
	slices.Sort(idx)
	out := make([]Item, n)
	for i, j := range idx {
		out[i] = items[j]
	}
	return out
}
