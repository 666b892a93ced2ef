package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Problem is one resolution problem: records whose pairs are all candidates,
// and the gold entity of each. Pairs across problems are never scored.
type Problem struct {
	ID      string
	Records []Record
	Gold    []int // gold entity of each record; equal labels are one entity
	// NearMiss are pairs of gold entities with similar names that are not
	// the same entity and must never share a cluster (the synthetic set).
	NearMiss [][2]int
}

// Dataset is a benchmark set: one pooled problem (PATSTAT, Abt-Buy,
// DBLP-ACM, the synthetic set) or many small ones (Re-DocRED, a document
// each).
type Dataset struct {
	Name     string
	Problems []Problem
	// Sample says how the set was drawn, for the report; a loader may
	// leave a note on the source in it, which the sampler appends.
	Sample string
	// documents says each problem is a document (Re-DocRED).
	documents bool
}

// PerDocument reports whether the set's problems are documents: the
// bootstrap then resamples documents; in a pooled set it resamples gold
// entities.
func (d Dataset) PerDocument() bool { return d.documents }

// Records returns how many records the set has over all its problems.
func (d Dataset) Records() int {
	n := 0
	for _, p := range d.Problems {
		n += len(p.Records)
	}
	return n
}

// goldStats returns the number of gold entities and of gold pairs.
func (d Dataset) goldStats() (entities, pairs int) {
	for _, p := range d.Problems {
		size := map[int]int{}
		for _, g := range p.Gold {
			size[g]++
		}
		entities += len(size)
		for _, n := range size {
			pairs += n * (n - 1) / 2
		}
	}
	return entities, pairs
}

// newRand is the sampling source of every set: the same seed draws the same
// sample on every machine (the construction bench/quality uses).
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// sampleEntities keeps the records of n gold entities drawn without
// replacement with a fixed seed, in their original order; n ≤ 0 or n at
// least the number of entities keeps them all. Entities are drawn whole so
// that every kept duplicate keeps its partners.
func sampleEntities(p Problem, n int, seed uint64) Problem {
	var ents []int
	seen := map[int]bool{}
	for _, g := range p.Gold {
		if !seen[g] {
			seen[g] = true
			ents = append(ents, g)
		}
	}
	if n <= 0 || n >= len(ents) {
		return p
	}
	keep := map[int]bool{}
	for _, i := range newRand(seed).Perm(len(ents))[:n] {
		keep[ents[i]] = true
	}
	out := Problem{ID: p.ID}
	for i, g := range p.Gold {
		if keep[g] {
			out.Records = append(out.Records, p.Records[i])
			out.Gold = append(out.Gold, g)
		}
	}
	for _, nm := range p.NearMiss {
		if keep[nm[0]] && keep[nm[1]] {
			out.NearMiss = append(out.NearMiss, nm)
		}
	}
	return out
}

// sampleProblems keeps n problems drawn with a fixed seed, in their original
// order; n ≤ 0 keeps them all.
func sampleProblems(ps []Problem, n int, seed uint64) []Problem {
	if n <= 0 || n >= len(ps) {
		return ps
	}
	idx := newRand(seed).Perm(len(ps))[:n]
	slices.Sort(idx)
	out := make([]Problem, n)
	for i, j := range idx {
		out[i] = ps[j]
	}
	return out
}

// readDelimited reads a delimited file with a header line into rows keyed by
// column name.
func readDelimited(path string, sep rune) (_ []map[string]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	r := csv.NewReader(f)
	r.Comma = sep
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read header of %s: %w", path, err)
	}
	var rows []map[string]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		row := map[string]string{}
		for i, h := range header {
			if i < len(rec) {
				row[strings.TrimSpace(h)] = strings.TrimSpace(rec[i])
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// LoadPatstat reads PATSTAT's dev clusters (name, cluster_id, co-authors,
// patent classes). Its rows are patent records, and one name recurs in many
// of them; as kgforge resolves distinct mention names, each distinct name is
// one record, with the number of rows as its mentions, the patent classes of
// those rows as its description, the co-inventors of all those rows as its
// neighbours and the co-authors of its first row as its context.
func LoadPatstat(path string) (Dataset, error) {
	rows, err := readDelimited(path, ',')
	if err != nil {
		return Dataset{}, err
	}
	p := Problem{ID: "patstat"}
	byName := map[string]int{}
	classes := map[string]map[string]int{}
	clusters := map[string]int{}
	for n, row := range rows {
		name, cid := row["name"], row["cluster_id"]
		if cid == "" {
			return Dataset{}, fmt.Errorf("%s row %d: no cluster_id", path, n+2)
		}
		if name == "" {
			continue
		}
		g, ok := clusters[cid]
		if !ok {
			g = len(clusters)
			clusters[cid] = g
		}
		i, ok := byName[name]
		if !ok {
			i = len(p.Records)
			byName[name] = i
			classes[name] = map[string]int{}
			p.Records = append(p.Records, Record{
				ID: "patstat:" + row["person_id"], Name: name, Type: "organization",
				Context: "co-authors: " + strings.Join(splitStars(row["coauthors"], 5), "; "),
			})
			p.Gold = append(p.Gold, g)
		} else if p.Gold[i] != g {
			return Dataset{}, fmt.Errorf("%s row %d: name %q is in clusters of two ids", path, n+2, name)
		}
		p.Records[i].Mentions++
		for _, a := range splitStars(row["coauthors"], 0) {
			if !slices.Contains(p.Records[i].Neighbours, a) {
				p.Records[i].Neighbours = append(p.Records[i].Neighbours, a)
			}
		}
		for _, c := range splitStars(row["classes"], 0) {
			classes[name][c]++
		}
	}
	for i := range p.Records {
		p.Records[i].Description = "patent classes: " + strings.Join(topKeys(classes[p.Records[i].Name], 8), ", ")
	}
	if len(p.Records) == 0 {
		return Dataset{}, fmt.Errorf("%s: no records", path)
	}
	return Dataset{Name: "patstat", Problems: []Problem{p}, Sample: fmt.Sprintf(" (%d rows as %d distinct names)", len(rows), len(p.Records))}, nil
}

// splitStars splits PATSTAT's "**"-separated lists, keeping at most limit
// items (all when limit is 0).
func splitStars(s string, limit int) []string {
	var out []string
	for _, x := range strings.Split(s, "**") {
		if x = strings.Join(strings.Fields(x), " "); x != "" {
			out = append(out, x)
		}
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// topKeys returns the n most frequent keys, ties by name.
func topKeys(counts map[string]int, n int) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	return keys[:min(n, len(keys))]
}

// pairSet describes a two-source set of the Leipzig benchmarks as pyJedAI
// ships it: two record files and gt.csv of matching ids (columns D1, D2).
type pairSet struct {
	name         string
	left, right  string // file names, also the record id prefixes
	sep          rune
	nameCol      string
	typ          string
	description  func(row map[string]string) string
	neighbours   func(row map[string]string) []string // nil: none
	maxDescRunes int
}

var (
	abtBuy = pairSet{
		name: "abt-buy", left: "abt", right: "buy", sep: '|', nameCol: "name", typ: "product",
		description: func(row map[string]string) string { return row["description"] }, maxDescRunes: 300,
	}
	dblpACM = pairSet{
		name: "dblp-acm", left: "dblp", right: "acm", sep: '%', nameCol: "title", typ: "publication",
		description: func(row map[string]string) string {
			return strings.Join(slices.DeleteFunc([]string{row["authors"], row["venue"], row["year"]}, func(s string) bool { return s == "" }), "; ")
		},
		neighbours: func(row map[string]string) []string {
			var out []string
			for _, a := range strings.Split(row["authors"], ",") {
				if a = strings.TrimSpace(a); a != "" {
					out = append(out, a)
				}
			}
			return out
		},
	}
)

// LoadPairs reads a two-source set from dir. Gold entities are the
// connected components of the matched pairs; an unmatched record is an
// entity of its own. Records with an empty name are left out.
func LoadPairs(dir string, s pairSet) (Dataset, error) {
	p := Problem{ID: s.name}
	index := map[string]int{}
	for _, side := range []string{s.left, s.right} {
		rows, err := readDelimited(filepath.Join(dir, side+".csv"), s.sep)
		if err != nil {
			return Dataset{}, err
		}
		for _, row := range rows {
			if row[s.nameCol] == "" {
				continue
			}
			id := side + ":" + row["id"]
			if _, dup := index[id]; dup {
				return Dataset{}, fmt.Errorf("%s: record id %s twice", s.name, id)
			}
			index[id] = len(p.Records)
			rec := Record{
				ID: id, Name: row[s.nameCol], Type: s.typ, Mentions: 1,
				Description: truncateRunes(s.description(row), s.maxDescRunes),
			}
			if s.neighbours != nil {
				rec.Neighbours = s.neighbours(row)
			}
			p.Records = append(p.Records, rec)
		}
	}
	gt, err := readDelimited(filepath.Join(dir, "gt.csv"), s.sep)
	if err != nil {
		return Dataset{}, err
	}
	u := newUnionFind(len(p.Records))
	for _, m := range gt {
		a, okA := index[s.left+":"+m["D1"]]
		b, okB := index[s.right+":"+m["D2"]]
		if okA && okB {
			u.union(a, b)
		}
	}
	p.Gold = u.labels()
	if len(p.Records) == 0 || len(gt) == 0 {
		return Dataset{}, fmt.Errorf("%s: no records or no matches under %s", s.name, dir)
	}
	return Dataset{Name: s.name, Problems: []Problem{p}}, nil
}

func truncateRunes(s string, n int) string {
	if n <= 0 {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// reDocREDTypes maps Re-DocRED's entity types to the names kgforge's
// extraction schema uses for them (bench/extractq).
var reDocREDTypes = map[string]string{
	"PER": "person", "ORG": "organization", "LOC": "location",
	"TIME": "time", "NUM": "number", "MISC": "miscellaneous",
}

// LoadReDocRED reads Re-DocRED's dev documents as one problem each: every
// vertexSet is a gold entity, and each of its distinct surface forms one
// record, typed by its first mention, with that mention's sentence as
// context and its number of mentions.
func LoadReDocRED(path string) (Dataset, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Dataset{}, fmt.Errorf("read re-docred: %w", err)
	}
	var docs []struct {
		Title     string     `json:"title"`
		Sents     [][]string `json:"sents"`
		VertexSet [][]struct {
			Name   string `json:"name"`
			Type   string `json:"type"`
			SentID int    `json:"sent_id"`
		} `json:"vertexSet"`
	}
	if err := json.Unmarshal(raw, &docs); err != nil {
		return Dataset{}, fmt.Errorf("%s: %w", path, err)
	}
	d := Dataset{Name: "redocred", documents: true}
	for i, doc := range docs {
		p := Problem{ID: fmt.Sprintf("redocred_dev_%d", i)}
		for v, ms := range doc.VertexSet {
			at := map[string]int{}
			for _, m := range ms {
				name := strings.TrimSpace(m.Name)
				if name == "" {
					continue
				}
				if k, ok := at[name]; ok {
					p.Records[k].Mentions++
					continue
				}
				at[name] = len(p.Records)
				typ := reDocREDTypes[m.Type]
				if typ == "" {
					typ = strings.ToLower(m.Type)
				}
				var sent string
				if m.SentID >= 0 && m.SentID < len(doc.Sents) {
					sent = strings.Join(doc.Sents[m.SentID], " ")
				}
				p.Records = append(p.Records, Record{
					ID: fmt.Sprintf("%s/e%d/m%d", p.ID, v, len(at)-1), Name: name, Type: typ, Context: sent, Mentions: 1,
				})
				p.Gold = append(p.Gold, v)
			}
		}
		d.Problems = append(d.Problems, p)
	}
	if len(d.Problems) == 0 {
		return Dataset{}, errors.New(path + ": no documents")
	}
	return d, nil
}
