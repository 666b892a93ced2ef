package resolve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"

	"github.com/coder/hnsw"
)

// cand is a candidate pair i < j and the kinds of blocking keys they share.
type cand struct {
	i, j int32
	keys keyKind
}

// candidates returns every candidate pair once, sorted: pairs sharing a
// blocking key and pairs of near neighbours, of compatible types, leaving
// out keep-apart entities.
func (r *resolver) candidates(ctx context.Context) ([]cand, error) {
	r.indexTypes()
	keyed := r.keyCandidates()
	r.stats.KeyPairs = len(keyed)
	if r.text != nil {
		words := r.tokenCandidates()
		r.stats.TokenPairs = len(words)
		keyed = append(keyed, words...)
		grams := r.gramCandidates()
		r.stats.GramPairs = len(grams)
		keyed = append(keyed, grams...)
	}
	near, err := r.vectorCandidates(ctx)
	if err != nil {
		return nil, err
	}
	r.stats.VectorPairs = len(near)
	all := append(keyed, near...) //nolint:gocritic // keyed is not used again
	slices.SortFunc(all, func(a, b cand) int { return cmp.Or(cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j)) })
	out := all[:0]
	for _, c := range all {
		if n := len(out); n > 0 && out[n-1].i == c.i && out[n-1].j == c.j {
			out[n-1].keys |= c.keys
			continue
		}
		out = append(out, c)
	}
	r.stats.Candidates = len(out)
	return out, nil
}

// indexTypes numbers the folded types and tabulates their compatibility.
func (r *resolver) indexTypes() {
	ids := map[string]int32{}
	var names []string
	for i := range r.feat {
		if _, ok := ids[r.feat[i].typ]; !ok {
			names = append(names, r.feat[i].typ)
			ids[r.feat[i].typ] = 0
		}
	}
	slices.Sort(names)
	for k, t := range names {
		ids[t] = int32(k)
	}
	r.typeNames = names
	r.typeOf = make([]int32, len(r.feat))
	for i := range r.feat {
		r.typeOf[i] = ids[r.feat[i].typ]
	}
	r.typeOK = make([][]bool, len(names))
	for a := range names {
		r.typeOK[a] = make([]bool, len(names))
		for b := range names {
			r.typeOK[a][b] = r.compat.ok(names[a], names[b])
		}
	}
}

// compatible reports whether entities i and j may merge by type.
func (r *resolver) compatible(i, j int) bool { return r.typeOK[r.typeOf[i]][r.typeOf[j]] }

// keyCandidates returns the pairs that share a blocking key.
func (r *resolver) keyCandidates() []cand {
	var out []cand
	add := func(i, j int, k keyKind) {
		if i > j {
			i, j = j, i
		}
		if i != j && r.compatible(i, j) {
			out = append(out, cand{i: int32(i), j: int32(j), keys: k})
		}
	}
	blocks := func(kind keyKind, key func(*features) string) {
		m := map[string][]int32{}
		for i := range r.feat {
			if k := key(&r.feat[i]); k != "" && !r.keepApart[i] {
				m[k] = append(m[k], int32(i))
			}
		}
		for _, b := range m {
			if len(b) > r.cfg.MaxBlockSize {
				if kind == keyName {
					r.star(b, add)
				}
				continue
			}
			for x := range b {
				for y := x + 1; y < len(b); y++ {
					add(int(b[x]), int(b[y]), kind)
				}
			}
		}
	}
	blocks(keyName, func(f *features) string { return f.name })
	if r.keys.corporate {
		blocks(keySuffix, func(f *features) string { return f.suffix })
		blocks(keyPlural, func(f *features) string { return f.plural })
	}
	if r.keys.acronyms {
		short, long := map[string][]int32{}, map[string][]int32{}
		for i := range r.feat {
			if r.keepApart[i] {
				continue
			}
			if a := r.feat[i].acrShort; a != "" {
				short[a] = append(short[a], int32(i))
			}
			for _, a := range r.feat[i].acrLong {
				long[a] = append(long[a], int32(i))
			}
		}
		for a, s := range short {
			l := long[a]
			if len(l) == 0 || len(s) > r.cfg.MaxBlockSize || len(l) > r.cfg.MaxBlockSize {
				continue
			}
			sole := len(a) >= minSoleAcronym && r.oneName(l)
			for _, i := range s {
				for _, j := range l {
					add(int(i), int(j), keyAcronym)
					if sole && i != j {
						if r.soleAcronym == nil {
							r.soleAcronym = map[uint64]bool{}
						}
						r.soleAcronym[pairKey(int(i), int(j))] = true
					}
				}
			}
		}
	}
	return out
}

// minSoleAcronym is the least length of an acronym that merges with the
// one name of the build it abbreviates whatever their cosine: "WCW" /
// "World Championship Wrestling" (cosine 0.68), "TFF" / "Tears for Fears"
// (0.27), which a sentence encoder does not see as alike. Two letters
// ("US", "CE") abbreviate too many names to trust.
const minSoleAcronym = 3

// oneName reports whether the entities are all one name (equal name keys):
// the only expansion of an acronym in the build, written one way or
// several.
func (r *resolver) oneName(ents []int32) bool {
	for _, e := range ents[1:] {
		if r.feat[e].name != r.feat[ents[0]].name {
			return false
		}
	}
	return true
}

// tokenLevel is the least IDF-weighted containment of a pair found by its
// rare words.
const tokenLevel = 0.5

// tokenCandidates returns, for every entity, its K others of the highest
// IDF-weighted containment (at least tokenLevel) among the type-compatible
// ones that share a rare name word with it: a word of at most MaxBlockSize
// names. They find the pairs that neither a key nor the cosine finds
// ("BAYER" / "ANTWERP BAYER", "Philips" / "Koninklijke Philips
// Electronics").
func (r *resolver) tokenCandidates() []cand {
	t := r.text
	blocks := make([][]int32, len(t.names.df))
	for i, bag := range t.name {
		if r.keepApart[i] {
			continue
		}
		for _, w := range bag {
			if df := t.names.df[w]; df >= 2 && df <= r.cfg.MaxBlockSize {
				blocks[w] = append(blocks[w], int32(i))
			}
		}
	}
	found := make([][]cand, r.cfg.Workers)
	parallelChunks(len(r.ents), r.cfg.Workers, 256, func(w, lo, hi int) {
		seen := map[int32]bool{}
		var ns []neighbour
		for i := lo; i < hi; i++ {
			clear(seen)
			ns = ns[:0]
			for _, word := range t.name[i] {
				for _, j := range blocks[word] {
					if int(j) == i || seen[j] || !r.compatible(i, int(j)) {
						continue
					}
					seen[j] = true
					if c := t.names.containment(t.name[i], t.name[j]); c >= tokenLevel {
						ns = append(ns, neighbour{j: j, c: float32(c)})
					}
				}
			}
			found[w] = r.topK(found[w], int32(i), ns)
		}
	})
	var out []cand
	for _, f := range found {
		out = append(out, f...)
	}
	return out
}

// star links a block of equal names too large for all its pairs: each
// member to the first earlier member it is compatible with and to the first
// earlier member of its own type, which connects every type-compatible
// member without a quadratic number of pairs.
func (r *resolver) star(b []int32, add func(i, j int, k keyKind)) {
	firstOfType := map[int32]int32{}
	for y, j := range b {
		if first, ok := firstOfType[r.typeOf[j]]; ok {
			add(int(first), int(j), keyName)
		} else {
			firstOfType[r.typeOf[j]] = j
		}
		for _, i := range b[:y] {
			if r.compatible(int(i), int(j)) {
				add(int(i), int(j), keyName)
				break
			}
		}
	}
}

// vectorCandidates returns, for every entity with a vector, its K nearest
// type-compatible neighbours with cosine ≥ Low, as pairs i < j. Entities
// are compared within groups: the connected components of the type
// compatibility relation over the types present (an unknown type joins
// every type into one group).
func (r *resolver) vectorCandidates(ctx context.Context) ([]cand, error) {
	uf := newUnionFind(len(r.typeNames))
	for a := range r.typeNames {
		for b := a + 1; b < len(r.typeNames); b++ {
			if r.typeOK[a][b] {
				uf.union(a, b)
			}
		}
	}
	groupOf := make([]int, len(r.typeNames))
	for g, types := range uf.groups(1) {
		for _, t := range types {
			groupOf[t] = g
		}
	}
	members := make([][]int32, uf.sets)
	for i := range r.ents {
		if r.hasVec[i] && !r.keepApart[i] {
			g := groupOf[r.typeOf[i]]
			members[g] = append(members[g], int32(i))
		}
	}
	var out []cand
	for _, m := range members {
		if len(m) < 2 {
			continue
		}
		r.stats.Groups++
		var (
			pairs []cand
			err   error
		)
		if len(m) < r.cfg.ExactLimit {
			r.stats.ExactGroups++
			pairs, err = r.exact(ctx, m)
		} else {
			r.stats.IndexedGroups++
			if r.cfg.Index == IndexHNSW {
				pairs, err = r.indexed(ctx, m)
			} else {
				pairs, err = r.ivf(ctx, m)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, pairs...)
	}
	return out, nil
}

// neighbour is one entity near another, with their cosine.
type neighbour struct {
	j int32
	c float32
}

// better orders neighbours by cosine, highest first, then by index.
func better(a, b neighbour) int { return cmp.Or(cmp.Compare(b.c, a.c), cmp.Compare(a.j, b.j)) }

// topK appends to out the pairs of i with its best K neighbours. A long
// list (neighbours down to Floor can be hundreds) is not sorted whole:
// its best K are kept in order as it is read.
func (r *resolver) topK(out []cand, i int32, ns []neighbour) []cand {
	k := r.cfg.K
	if len(ns) > 4*k {
		top := make([]neighbour, 0, k+1)
		for _, n := range ns {
			if len(top) == k && better(n, top[k-1]) >= 0 {
				continue
			}
			pos, _ := slices.BinarySearchFunc(top, n, better)
			top = slices.Insert(top, pos, n)
			if len(top) > k {
				top = top[:k]
			}
		}
		ns = top
	} else {
		slices.SortFunc(ns, better)
	}
	for _, n := range ns[:min(len(ns), k)] {
		a, b := min(i, n.j), max(i, n.j)
		out = append(out, cand{i: a, j: b})
	}
	return out
}

// tileSize is the side of the blocks in which vectors are compared: two
// tiles of 384-dimension vectors fill about 300 KB, so each vector loaded
// into the cache is used tileSize times before it leaves.
const tileSize = 96

// tops is one worker's best neighbours of each member of a group, by
// position, each list at most K long and in the order of better: the
// best K of every pair the worker compared, kept as they come instead of
// holding every pair (a million names have some hundred million pairs
// over Floor), so a list holds exactly what sorting them all would keep.
type tops struct {
	k     int
	lists [][]neighbour
}

func newTops(n, k int) *tops { return &tops{k: k, lists: make([][]neighbour, n)} }

// add offers neighbour nb to the list of position x.
func (t *tops) add(x int32, nb neighbour) {
	l := t.lists[x]
	if len(l) == t.k && better(nb, l[t.k-1]) >= 0 {
		return
	}
	if l == nil {
		l = make([]neighbour, 0, t.k+1)
	}
	pos, _ := slices.BinarySearchFunc(l, nb, better)
	l = slices.Insert(l, pos, nb)
	if len(l) > t.k {
		l = l[:t.k]
	}
	t.lists[x] = l
}

// compare offers every pair (x, y) of positions in m, x from xs and y
// from ys, of compatible types and cosine ≥ Low, to x's list, and with
// both to y's too; with triangle it takes only x < y (xs and ys being the
// same tile), and it skips x == y.
func (r *resolver) compare(t *tops, m, xs, ys []int32, triangle, both bool, low float32) {
	for k, x := range xs {
		i := int(m[x])
		vi := r.vec(i)
		rest := ys
		if triangle {
			rest = ys[k+1:]
		}
		for _, y := range rest {
			j := int(m[y])
			if x == y || !r.compatible(i, j) {
				continue
			}
			if c := dot(vi, r.vec(j)); c >= low {
				t.add(x, neighbour{j: m[y], c: c})
				if both {
					t.add(y, neighbour{j: m[x], c: c})
				}
			}
		}
	}
}

// neighbours turns the workers' lists into each member's best K
// neighbours, as pairs.
func (r *resolver) neighbours(m []int32, workers []*tops) []cand {
	var out []cand
	var ns []neighbour
	for a := range m {
		ns = ns[:0]
		for _, t := range workers {
			if t != nil {
				ns = append(ns, t.lists[a]...)
			}
		}
		out = r.topK(out, m[a], ns)
	}
	return out
}

// tiles cuts the positions [0, n) into tiles.
func tiles(n int) [][]int32 {
	var out [][]int32
	for lo := 0; lo < n; lo += tileSize {
		t := make([]int32, min(tileSize, n-lo))
		for k := range t {
			t[k] = int32(lo + k)
		}
		out = append(out, t)
	}
	return out
}

// smallGroup is the size up to which a group's members keep their K
// nearest neighbours whatever their cosine, not only those of at least
// Floor.
const smallGroup = 256

// exact compares every pair of a group's members, tile by tile, on all
// workers.
func (r *resolver) exact(ctx context.Context, m []int32) ([]cand, error) {
	ts := tiles(len(m))
	type task struct{ a, b int }
	var tasks []task
	for a := range ts {
		for b := a; b < len(ts); b++ {
			tasks = append(tasks, task{a, b})
		}
	}
	// In a small group every pair may be a candidate at little cost, so
	// each member keeps its K nearest whatever their cosine: aliases with
	// nothing in common but their document ("Washington" / "D.C.").
	low := float32(r.cfg.Floor)
	if len(m) <= smallGroup {
		low = -2
	}
	workers := make([]*tops, r.cfg.Workers)
	parallelChunks(len(tasks), r.cfg.Workers, 4, func(w, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		if workers[w] == nil {
			workers[w] = newTops(len(m), r.cfg.K)
		}
		for _, t := range tasks[lo:hi] {
			r.compare(workers[w], m, ts[t.a], ts[t.b], t.a == t.b, true, low)
		}
	})
	if ctx.Err() != nil {
		return nil, fmt.Errorf("resolve: compare %d entities: %w", len(m), ctx.Err())
	}
	return r.neighbours(m, workers), nil
}

// indexed finds neighbours in an HNSW index of the group's members. The
// index is built on one goroutine (coder/hnsw's Add is not safe for
// concurrent use) in index order with a seeded level generator; searches
// run in parallel.
func (r *resolver) indexed(ctx context.Context, m []int32) ([]cand, error) {
	g := &hnsw.Graph[int32]{
		Distance: hnsw.CosineDistance,
		M:        r.cfg.HNSW.M,
		Ml:       r.cfg.HNSW.Ml,
		EfSearch: r.cfg.HNSW.EfConstruction,
		Rng:      rand.New(rand.NewSource(r.cfg.HNSW.Seed)), //nolint:gosec // level generation, not secrets
	}
	for k, i := range m {
		if k%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("resolve: index %d entities: %w", len(m), ctx.Err())
		}
		g.Add(hnsw.MakeNode(i, r.vec(int(i))))
	}
	g.EfSearch = r.cfg.HNSW.EfSearch
	return r.search(ctx, m, func(_ int, v []float32, visit func(int32)) {
		for _, n := range g.Search(v, max(r.cfg.K+1, r.cfg.HNSW.EfSearch)) {
			visit(n.Key)
		}
	})
}

// search calls find for every member (its position in m and its vector),
// in parallel, and keeps the member's best K compatible neighbours with
// cosine ≥ Low among those find visits; find visits each entity at most
// once per member.
func (r *resolver) search(ctx context.Context, m []int32, find func(pos int, v []float32, visit func(int32))) ([]cand, error) {
	low := float32(r.cfg.Floor)
	found := make([][]cand, r.cfg.Workers)
	parallelChunks(len(m), r.cfg.Workers, 64, func(w, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		var ns []neighbour
		for pos := lo; pos < hi; pos++ {
			i := m[pos]
			vi := r.vec(int(i))
			ns = ns[:0]
			find(pos, vi, func(j int32) {
				if j == i || !r.compatible(int(i), int(j)) {
					return
				}
				if c := dot(vi, r.vec(int(j))); c >= low {
					ns = append(ns, neighbour{j: j, c: c})
				}
			})
			found[w] = r.topK(found[w], i, ns)
		}
	})
	if ctx.Err() != nil {
		return nil, fmt.Errorf("resolve: search %d entities: %w", len(m), ctx.Err())
	}
	var out []cand
	for _, f := range found {
		out = append(out, f...)
	}
	return out, nil
}

// gramProbes is how many of its rarest character trigrams a name is
// looked up by in gramCandidates.
const gramProbes = 12

// gramCandidates returns, for every entity, its K others (type-compatible,
// not keep-apart) that share the most of its gramProbes rarest character
// trigrams, at least two, among the trigrams of its compact name that at
// most MaxBlockSize names have. They find what no word and no cosine
// finds: typos inside a word ("ALCATEL" / "ALKATEL", "AKZO NOBEL" / "AKZO
// NOBLE"), words run together, and a model code written two ways
// ("DP-29F" / "DP29F" inside longer titles). The trigrams are sorted as
// (trigram, entity) pairs rather than kept in a map, so that their memory
// is a flat slice, 8 bytes a trigram.
func (r *resolver) gramCandidates() []cand {
	n := len(r.ents)
	var keys []uint64
	for i := range r.ents {
		if r.keepApart[i] {
			continue
		}
		for _, g := range trigrams(r.feat[i].name) {
			keys = append(keys, uint64(g)<<32|uint64(i))
		}
	}
	slices.Sort(keys)
	// For each entity, the posting lists (runs of keys) of its trigrams that
	// two to MaxBlockSize names share.
	type run struct{ lo, hi int32 }
	of := make([][]run, n)
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>32 == keys[lo]>>32 {
			hi++
		}
		if df := hi - lo; df >= 2 && df <= r.cfg.MaxBlockSize {
			for k := lo; k < hi; k++ {
				i := int(keys[k] & math.MaxUint32)
				of[i] = append(of[i], run{int32(lo), int32(hi)})
			}
		}
		lo = hi
	}
	found := make([][]cand, r.cfg.Workers)
	parallelChunks(n, r.cfg.Workers, 256, func(w, lo, hi int) {
		hits := map[int32]int{}
		var ns []neighbour
		for i := lo; i < hi; i++ {
			runs := of[i]
			if len(runs) == 0 {
				continue
			}
			slices.SortFunc(runs, func(a, b run) int {
				return cmp.Or(cmp.Compare(a.hi-a.lo, b.hi-b.lo), cmp.Compare(a.lo, b.lo))
			})
			runs = runs[:min(len(runs), gramProbes)]
			clear(hits)
			for _, rn := range runs {
				for k := rn.lo; k < rn.hi; k++ {
					if j := int32(keys[k] & math.MaxUint32); int(j) != i {
						hits[j]++
					}
				}
			}
			need := min(2, len(runs))
			ns = ns[:0]
			for j, h := range hits {
				if h >= need && r.compatible(i, int(j)) {
					ns = append(ns, neighbour{j: j, c: float32(h)})
				}
			}
			found[w] = r.topK(found[w], int32(i), ns)
		}
	})
	var out []cand
	for _, f := range found {
		out = append(out, f...)
	}
	return out
}
