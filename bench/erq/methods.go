package main

import (
	"context"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

	"kgforge/kg"
)

// Record is one entity name to resolve, with what a resolver may look at.
type Record struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Description string    `json:"description,omitempty"`
	Context     string    `json:"context,omitempty"`    // text the name occurs in, where the set has one (Re-DocRED's sentence, PATSTAT's co-authors)
	Mentions    int       `json:"mentions"`             // how often the name occurs in the source data
	Neighbours  []string  `json:"neighbours,omitempty"` // names it is related to in the source (PATSTAT's co-inventors, DBLP-ACM's authors)
	Vector      []float32 `json:"-"`                    // the embedding of EmbedText, filled by the runner
}

// EmbedText is what every embedding method embeds for a record: the name
// alone, as kgforge embeds mention names (descriptions are often empty or
// written by another source, and would dominate a short name).
func (r Record) EmbedText() string { return r.Name }

// Resolver clusters the records of one problem: labels[i] is the cluster of
// records[i]; records with equal labels are the same entity. It is called
// once per problem, never concurrently, and must not keep records.
type Resolver func(ctx context.Context, records []Record) (labels []int, err error)

// Method is a resolver compared in the benchmark.
type Method struct {
	Name    string
	Resolve Resolver
	// Vectors says the method reads Record.Vector, so the run needs the
	// embedding server.
	Vectors bool
	// Explain, when not nil, says for -errors why the method decided a pair
	// of records as it did, by record ids (the smaller first); a pair it
	// does not name gets an empty reason.
	Explain func(ctx context.Context, records []Record) (map[[2]string]string, error)
}

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct {
	parent, size []int
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = i, 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
}

// labels numbers the sets 0, 1, … in order of their first record.
func (u *unionFind) labels() []int {
	out := make([]int, len(u.parent))
	ids := map[int]int{}
	for i := range out {
		r := u.find(i)
		id, ok := ids[r]
		if !ok {
			id = len(ids)
			ids[r] = id
		}
		out[i] = id
	}
	return out
}

// byType groups record indexes by type: the baselines, like neo4j-graphrag's
// resolvers, only compare entities that carry the same label.
func byType(records []Record) [][]int {
	idx := map[string]int{}
	var groups [][]int
	for i, r := range records {
		k, ok := idx[r.Type]
		if !ok {
			k = len(groups)
			idx[r.Type] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], i)
	}
	return groups
}

// allPairs unions every pair of same-type records that same accepts, then
// closes transitively.
func allPairs(ctx context.Context, records []Record, same func(i, j int) bool) ([]int, error) {
	u := newUnionFind(len(records))
	for _, g := range byType(records) {
		for a, i := range g {
			if a%256 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, j := range g[a+1:] {
				if u.find(i) != u.find(j) && same(i, j) {
					u.union(i, j)
				}
			}
		}
	}
	return u.labels(), nil
}

// Exact merges names equal after case and white-space folding (kgforge's
// kg.NormalizeName), within a type.
func Exact(_ context.Context, records []Record) ([]int, error) {
	u := newUnionFind(len(records))
	first := map[[2]string]int{}
	for i, r := range records {
		k := [2]string{r.Type, kg.NormalizeName(r.Name)}
		if j, ok := first[k]; ok {
			u.union(i, j)
		} else {
			first[k] = i
		}
	}
	return u.labels(), nil
}

// Similarity is the normalised Levenshtein similarity of two strings:
// 1 − distance / the length in runes of the longer; 1 for two empty strings.
func Similarity(a, b string) float64 {
	la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	m := max(la, lb)
	if m == 0 {
		return 1
	}
	return 1 - float64(levenshtein.ComputeDistance(a, b))/float64(m)
}

// Fuzzy returns the method that merges same-type names whose folded forms
// have a normalised Levenshtein similarity of at least threshold, closed
// transitively.
func Fuzzy(threshold float64) Method {
	return Method{Name: fmt.Sprintf("fuzzy-%.2g", threshold), Resolve: func(ctx context.Context, records []Record) ([]int, error) {
		names := make([]string, len(records))
		lens := make([]int, len(records))
		for i, r := range records {
			names[i] = kg.NormalizeName(r.Name)
			lens[i] = utf8.RuneCountInString(names[i])
		}
		return allPairs(ctx, records, func(i, j int) bool {
			// The distance is at least the difference of lengths: skip
			// pairs that cannot reach the threshold before computing it.
			if m := max(lens[i], lens[j]); m > 0 && 1-float64(abs(lens[i]-lens[j]))/float64(m) < threshold {
				return false
			}
			return Similarity(names[i], names[j]) >= threshold
		})
	}}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Cosine returns the method that merges same-type records whose embeddings
// have a cosine similarity of at least threshold, closed transitively: what
// neo4j-graphrag's SpaCySemanticMatchResolver does (threshold 0.8 there).
func Cosine(threshold float64) Method {
	return Method{Name: fmt.Sprintf("cosine-%.2g", threshold), Vectors: true, Resolve: func(ctx context.Context, records []Record) ([]int, error) {
		unit := make([][]float32, len(records))
		for i, r := range records {
			if len(r.Vector) == 0 {
				return nil, fmt.Errorf("record %s has no embedding", r.ID)
			}
			if len(r.Vector) != len(records[0].Vector) {
				return nil, fmt.Errorf("record %s: embedding of %d dimensions, %s has %d", r.ID, len(r.Vector), records[0].ID, len(records[0].Vector))
			}
			unit[i] = normalized(r.Vector)
		}
		t := float32(threshold)
		return allPairs(ctx, records, func(i, j int) bool { return dot(unit[i], unit[j]) >= t })
	}}
}

func normalized(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if s == 0 {
		return out
	}
	n := float32(1 / math.Sqrt(s))
	for i, x := range v {
		out[i] = x * n
	}
	return out
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
