package resolve

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"kgforge/kg"
)

// splitInfo is a split before the clusters have ids.
type splitInfo struct {
	reason  SplitReason
	weakest Pair
	comp    []int // the members before the split
}

// bound checks every connected group of union-find against the bounds
// (no cannot-link pair, at most MaxClusterSize members, every two members
// of compatible types and at least MinClusterSim alike) and splits those that break one. It
// returns the final groups of entities, each sorted.
func (r *resolver) bound(uf, must *unionFind) ([][]int, []splitInfo) {
	r.links = make([][]int32, len(r.ents))
	for k := range r.accepted {
		i, j := int32(k>>32), int32(k&math.MaxUint32)
		r.links[i] = append(r.links[i], j)
		r.links[j] = append(r.links[j], i)
	}
	for i := range r.links {
		slices.Sort(r.links[i])
	}
	// The first cannot-link pair, in index order, inside each group.
	cannotIn := map[int]uint64{}
	for k := range r.cannot {
		i, j := int(k>>32), int(k&math.MaxUint32)
		if root := uf.find(i); uf.same(i, j) {
			if old, ok := cannotIn[root]; !ok || k < old {
				cannotIn[root] = k
			}
		}
	}
	var parts [][]int
	var splits []splitInfo
	for _, comp := range uf.groups(1) {
		if len(comp) == 1 {
			parts = append(parts, comp)
			continue
		}
		var s splitInfo
		if i, j, ok := r.twoAnchors(comp); ok {
			s = splitInfo{reason: SplitAnchors, weakest: r.pair(i, j, 0)}
			s.weakest.Signals = nil
		} else if k, ok := cannotIn[uf.find(comp[0])]; ok {
			s = splitInfo{reason: SplitCannotLink, weakest: r.pair(int(k>>32), int(k&math.MaxUint32), 0)}
			s.weakest.Signals = nil
		} else if len(comp) > r.cfg.MaxClusterSize {
			s = splitInfo{reason: SplitSize}
		} else if i, j, sim := r.weakest(comp, must); sim < r.cfg.MinClusterSim {
			s = splitInfo{reason: SplitMinSim, weakest: r.pair(i, j, 0)}
			s.weakest.Signals, s.weakest.Cosine = nil, sim
			switch {
			case !r.compatible(i, j):
				s.reason = SplitTypes
				s.weakest.Cosine, _ = r.cosine(i, j)
			case numbersDiffer(&r.feat[i], &r.feat[j]):
				s.reason = SplitNumbers
				s.weakest.Cosine, _ = r.cosine(i, j)
			case r.givenNamesDiffer(i, j):
				s.reason = SplitGivenNames
				s.weakest.Cosine, _ = r.cosine(i, j)
			}
		} else {
			parts = append(parts, comp)
			continue
		}
		s.comp = comp
		splits = append(splits, s)
		parts = append(parts, r.split(comp, must)...)
	}
	return parts, splits
}

// twoAnchors returns the first two members of a group, in index order,
// that are different records of data.
func (r *resolver) twoAnchors(comp []int) (int, int, bool) {
	first := -1
	for _, i := range comp {
		switch {
		case r.ents[i].Anchor == "":
		case first < 0:
			first = i
		case r.ents[i].Anchor != r.ents[first].Anchor:
			return first, i, true
		}
	}
	return 0, 0, false
}

// sim is the similarity that the cluster bounds use: minus infinity for a
// cannot-link pair, for incompatible types (joined through an entity of
// unknown type, or a long chain) and for names whose numbers differ
// (numbersDiffer: "11 April 2025" and "8 April 2025", each merged with
// "April 2025", whose one number both hold); for an accepted link its cosine but at least High (the
// link was judged a match, by a key or an override when the cosine is
// lower); otherwise the cosine, or MinClusterSim when a vector is missing,
// so that an unknown similarity neither breaks a cluster nor holds one.
// Under the calibrated score, a pair that shares rare words as a candidate
// found by its words does (containment at least tokenLevel) and whose
// score reaches the uncertain band counts at least MinClusterSim: the
// score does not call it apart, so it does not break a cluster.
func (r *resolver) sim(i, j int) float64 {
	k := pairKey(i, j)
	if r.cannot[k] || !r.compatible(i, j) || r.anchorsClash(i, j) || numbersDiffer(&r.feat[i], &r.feat[j]) || r.givenNamesDiffer(i, j) {
		return math.Inf(-1)
	}
	c, ok := r.cosine(i, j)
	if _, linked := r.accepted[k]; linked {
		if !ok {
			return max(r.cfg.High, r.cfg.MinClusterSim)
		}
		return max(c, r.cfg.High)
	}
	if !ok {
		return r.cfg.MinClusterSim
	}
	if c < r.cfg.MinClusterSim && r.familyRules(i, j) && (r.scoreHolds(i, j, c) || r.sharedCore(i, j) >= 0) {
		return r.cfg.MinClusterSim // the score does not call them apart, or both extend one core
	}
	return c
}

// sharedCore returns a core of the pair (i, j), or -1: an entity whose
// name words are all in both names, as the containment signal agrees
// (IDF-weighted containment ≥ containmentLevel), that is not short, and
// that reaches each of the two through accepted links whose every member
// holds it too (a link to each, or a path of forms of it: "BROCADES GIST"
// – "BROCADES GIST V" – "BROCADES GIST VNL"). Such a pair is a name
// family, one core with different qualifiers: "AKZO NOBEL" in "AKZO
// ARNHEM NOBEL V" and in "AKZO NAAMLOOZE NOBEL VENNOOTSCHAP", whose cosine
// is low because the qualifiers differ. The guards stay absolute
// (guarded): a pair whose numbers differ, whose names differ only in a
// variant word ("Jacket black" / "Jacket white" around "Jacket") or in one
// word each ("John Smith" / "Jane Smith" around "Smith") has no core. The
// first core found from i, nearest first, is returned.
func (r *resolver) sharedCore(i, j int) int {
	if r.guarded(i, j) {
		return -1
	}
	// The entities i reaches through accepted links, nearest first, at
	// most a cluster's worth: each is a core if it holds i and j and
	// reaches both through its own forms.
	queue := r.coreQueue[:0] // the entities reached, in order
	queue = append(queue, int32(i))
	defer func() { r.coreQueue = queue[:0] }()
	for q := 0; q < len(queue) && q <= r.cfg.MaxClusterSize; q++ {
		for _, n := range r.links[queue[q]] {
			k := int(n)
			if slices.Contains(queue, n) {
				continue
			}
			queue = append(queue, n)
			if k != j && r.isCoreOf(k, i) && r.isCoreOf(k, j) && r.formsReach(k, i, j) {
				return k
			}
		}
	}
	return -1
}

// formsReach reports whether core k reaches both i and j through accepted
// links whose every member is a form of k (isCoreOf).
func (r *resolver) formsReach(k, i, j int) bool {
	queue := r.formQueue[:0] // the forms reached, in order
	queue = append(queue, int32(k))
	defer func() { r.formQueue = queue[:0] }()
	found := 0
	for q := 0; q < len(queue) && q <= r.cfg.MaxClusterSize; q++ {
		for _, n := range r.links[queue[q]] {
			m := int(n)
			if slices.Contains(queue, n) || !r.isCoreOf(k, m) {
				continue
			}
			if m == i || m == j {
				if found++; found == 2 {
					return true
				}
			}
			queue = append(queue, n)
		}
	}
	return false
}

// markCores adds SignalSharedCore to the merges of a cluster (its members
// p, sorted) that link a core to the members it holds together: two
// members the bounds would have split without a core.
func (r *resolver) markCores(p []int, merges []Pair) {
	if r.text == nil || len(p) < 3 {
		return
	}
	core := map[[2]string]bool{}
	mark := func(a, b int) {
		ka, kb := r.ents[a].Key, r.ents[b].Key
		core[[2]string{min(ka, kb), max(ka, kb)}] = true
	}
	for x, i := range p {
		for _, j := range p[x+1:] {
			if _, linked := r.accepted[pairKey(i, j)]; linked {
				continue
			}
			c, ok := r.cosine(i, j)
			if !ok || c >= r.cfg.MinClusterSim || !r.familyRules(i, j) || r.scoreHolds(i, j, c) {
				continue
			}
			if k := r.sharedCore(i, j); k >= 0 {
				mark(i, k)
				mark(j, k)
			}
		}
	}
	for m := range merges {
		if core[[2]string{merges[m].A, merges[m].B}] && !slices.Contains(merges[m].Signals, SignalSharedCore) {
			merges[m].Signals = append(merges[m].Signals, SignalSharedCore)
		}
	}
}

// guarded reports whether a guard of the score's rules would keep i and j
// apart however high their score, at a cosine under High (the bounds ask
// only about pairs under MinClusterSim): their numbers differ, their
// names differ only in a variant word, one is a short name and no key
// agrees, or their names differ in one word each that is not a respelling
// ("John Smith" / "Jane Smith" around "Smith").
func (r *resolver) guarded(i, j int) bool {
	t, fi, fj := r.text, &r.feat[i], &r.feat[j]
	bi, bj := r.guardBags(i, j)
	return numbersDiffer(fi, fj) || r.givenNamesDiffer(i, j) ||
		variantDiffer(bi, bj, r.variant, t.names.words) ||
		((fi.short || fj.short) && r.keysOf(i, j) == 0) ||
		substituted(bi, bj, t.names.words) || r.organisationsDiffer(i, j, bi, bj) ||
		r.subsetAloneIn(i, j, r.keysOf(i, j), t.name[i], t.name[j])
}

// familyRules reports whether the pair (i, j) is decided by rules that
// keep name families whole in the bounds (a shared core; a score that
// does not call them apart): RulesScore and RulesThreshold, not
// RulesCosine, whose bounds are the cosine alone.
func (r *resolver) familyRules(i, j int) bool {
	if r.text == nil {
		return false
	}
	rs := r.ruleSetOf(i, j)
	return rs == RulesScore || rs == RulesThreshold
}

// isCoreOf reports whether entity k can be the core of a family holding
// entity i: k is not short and its name words are all in i's, or run
// together in one of i's words ("BROCADES GIST" in "GISTBROCADES", as
// organisationsDiffer reads a run-together name).
func (r *resolver) isCoreOf(k, i int) bool {
	t := r.text
	if r.feat[k].short || len(t.name[k]) == 0 {
		return false
	}
	return t.names.containment(t.name[k], t.name[i]) >= containmentLevel || runTogetherAll(t.name[i], t.name[k], t.names.words)
}

// runTogetherAll reports whether one of the words ws is all the words of
// bag (two to eight of them) written without spaces, in any order.
func runTogetherAll(ws, bag []uint32, words []string) bool {
	return len(bag) >= 2 && len(bag) <= 8 && runTogetherOf(ws, bag, words, len(bag))
}

// scoreHolds reports whether the score keeps two members of a group
// together: they share rare words as a candidate pair found by its words
// does (IDF-weighted containment at least tokenLevel: the score was fitted
// on candidate pairs and says nothing of others), no guard keeps them
// apart, and their score reaches the uncertain band, so the score does not
// call them apart.
func (r *resolver) scoreHolds(i, j int, c float64) bool {
	t := r.text
	if r.model == nil || r.ruleSetOf(i, j) != RulesScore || t.names.containment(t.name[i], t.name[j]) < tokenLevel || r.guarded(i, j) {
		return false
	}
	x := r.values(i, j, r.keysOf(i, j), c)
	return r.model.Score(x[:]) >= r.model.Uncertain
}

// keysOf returns the kinds of blocking key entities i and j share.
func (r *resolver) keysOf(i, j int) keyKind {
	fi, fj := &r.feat[i], &r.feat[j]
	var k keyKind
	if fi.name == fj.name {
		k |= keyName
	}
	if r.keys.corporate && fi.suffix == fj.suffix {
		k |= keySuffix
	}
	if r.keys.corporate && fi.plural == fj.plural {
		k |= keyPlural
	}
	if r.keys.acronyms && ((fi.acrShort != "" && slices.Contains(fj.acrLong, fi.acrShort)) || (fj.acrShort != "" && slices.Contains(fi.acrLong, fj.acrShort))) {
		k |= keyAcronym
	}
	return k
}

// weakest returns the least similar two members of a group that are not
// must-linked together, the first in index order on a tie.
func (r *resolver) weakest(comp []int, must *unionFind) (wi, wj int, w float64) {
	w = math.Inf(1)
	for x, i := range comp {
		for _, j := range comp[x+1:] {
			if must.same(i, j) {
				continue
			}
			if s := r.sim(i, j); s < w {
				wi, wj, w = i, j, s
			}
		}
	}
	return wi, wj, w
}

// linkStat sums the similarities between the members of two groups.
type linkStat struct {
	sum, min float64
	n        int
}

func (a linkStat) plus(b linkStat) linkStat {
	return linkStat{sum: a.sum + b.sum, min: min(a.min, b.min), n: a.n + b.n}
}

// candidateMerge is a pair of groups the split may join.
type candidateMerge struct {
	avg    float64
	a, b   int // group ids, low[a] < low[b]
	la, lb int // their smallest members, for the order on ties
}

type mergeHeap []candidateMerge

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(x, y int) bool {
	a, b := h[x], h[y]
	if a.avg != b.avg {
		return a.avg > b.avg
	}
	if a.la != b.la {
		return a.la < b.la
	}
	return a.lb < b.lb
}
func (h mergeHeap) Swap(x, y int) { h[x], h[y] = h[y], h[x] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(candidateMerge)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// split re-clusters one group by average-linkage agglomeration restricted
// to it: it starts from the must-link units, and repeatedly joins the two
// groups with the highest average similarity among those that share at
// least one accepted link, stay within MaxClusterSize, and whose every
// cross pair has similarity ≥ MinClusterSim (so the result obeys the bound
// that the group broke). Ties go to the groups with the smallest members.
func (r *resolver) split(comp []int, must *unionFind) [][]int {
	var groups [][]int
	of := map[int]int{} // entity → group id
	unit := map[int]int{}
	for _, i := range comp {
		root := must.find(i)
		g, ok := unit[root]
		if !ok {
			g = len(groups)
			unit[root] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
		of[i] = g
	}
	low := func(g int) int { return groups[g][0] }
	alive := make([]bool, len(groups))
	for g := range alive {
		alive[g] = true
	}
	stats := map[[2]int]linkStat{}
	adj := map[int]map[int]bool{}
	stat := func(a, b int) linkStat {
		if a > b {
			a, b = b, a
		}
		if s, ok := stats[[2]int{a, b}]; ok {
			return s
		}
		s := linkStat{min: math.Inf(1)}
		for _, i := range groups[a] {
			for _, j := range groups[b] {
				v := r.sim(i, j)
				s.sum += v
				s.min = min(s.min, v)
				s.n++
			}
		}
		stats[[2]int{a, b}] = s
		return s
	}
	h := &mergeHeap{}
	offer := func(a, b int, s linkStat) {
		if s.min < r.cfg.MinClusterSim || len(groups[a])+len(groups[b]) > r.cfg.MaxClusterSize {
			return
		}
		if low(a) > low(b) {
			a, b = b, a
		}
		heap.Push(h, candidateMerge{avg: s.sum / float64(s.n), a: a, b: b, la: low(a), lb: low(b)})
	}
	connect := func(a, b int) {
		if adj[a] == nil {
			adj[a] = map[int]bool{}
		}
		if adj[b] == nil {
			adj[b] = map[int]bool{}
		}
		adj[a][b], adj[b][a] = true, true
	}
	for _, i := range comp {
		for _, j := range r.links[i] {
			a, b := of[i], of[int(j)]
			if _, in := of[int(j)]; !in || a == b || adj[a][b] {
				continue
			}
			connect(a, b)
			offer(a, b, stat(a, b))
		}
	}
	for h.Len() > 0 {
		m := heap.Pop(h).(candidateMerge)
		if !alive[m.a] || !alive[m.b] {
			continue
		}
		c := len(groups)
		merged := append(slices.Clone(groups[m.a]), groups[m.b]...)
		slices.Sort(merged)
		groups = append(groups, merged)
		alive = append(alive, true)
		alive[m.a], alive[m.b] = false, false
		var next []int
		for d := range adj[m.a] {
			next = append(next, d)
		}
		for d := range adj[m.b] {
			if !adj[m.a][d] {
				next = append(next, d)
			}
		}
		slices.Sort(next)
		for _, d := range next {
			if d == m.a || d == m.b || !alive[d] {
				continue
			}
			s := stat(m.a, d).plus(stat(m.b, d))
			stats[[2]int{d, c}] = s
			connect(c, d)
			offer(c, d, s)
		}
	}
	var out [][]int
	for g, ok := range alive {
		if ok {
			out = append(out, groups[g])
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
	return out
}

// clusters names the final groups: canonical name, type, id, merge log. It
// returns them sorted by id and, for every entity, its cluster's index.
// parts is reordered with them. A million names make most of a million
// clusters: they are named in one slice and sorted in place, with no
// copy and no map of them.
func (r *resolver) clusters(parts [][]int) ([]Cluster, []int32) {
	out := make([]Cluster, len(parts))
	base := make([]string, len(parts)) // the plain id; "" for an anchored cluster, whose id is its member's key
	for k, p := range parts {
		best := p[0]
		for _, i := range p[1:] {
			if r.canonicalBefore(i, best) {
				best = i
			}
		}
		c := Cluster{Canonical: strings.Join(strings.Fields(r.ents[best].Name), " ")}
		typed := -1
		for _, i := range p {
			if r.feat[i].typ != "" && (typed < 0 || r.canonicalBefore(i, typed)) {
				typed = i
			}
		}
		if typed >= 0 {
			c.Type = r.ents[typed].Type
		}
		r.rename(&c, p)
		c.Members = make([]string, 0, len(p))
		for _, i := range p {
			c.Members = append(c.Members, r.ents[i].Key)
			for _, j := range r.links[i] {
				if int(j) > i {
					if _, in := slices.BinarySearch(p, int(j)); in {
						c.Merges = append(c.Merges, r.accepted[pairKey(i, int(j))])
					}
				}
			}
		}
		r.markCores(p, c.Merges)
		slices.SortFunc(c.Merges, func(a, b Pair) int { return cmp.Or(strings.Compare(a.A, b.A), strings.Compare(a.B, b.B)) })
		c.Band = weakestBand(c.Merges)
		out[k], base[k] = c, kg.ID("entity", kg.NormalizeName(c.Canonical), normalizeType(c.Type))
		if a := r.ents[best].Anchor; a != "" {
			out[k].Anchor, out[k].ID, base[k] = a, r.ents[best].Key, ""
		}
	}
	// Two clusters may share a canonical name and type (a split, a
	// keep-apart entity); the largest, then the one with the smallest
	// member, keeps the plain id, the others add their smallest member's key.
	byBase := make([]int32, 0, len(parts))
	for k := range parts {
		if base[k] != "" {
			byBase = append(byBase, int32(k))
		}
	}
	slices.SortFunc(byBase, func(x, y int32) int { return strings.Compare(base[x], base[y]) })
	for lo := 0; lo < len(byBase); {
		hi := lo + 1
		for hi < len(byBase) && base[byBase[hi]] == base[byBase[lo]] {
			hi++
		}
		ks := byBase[lo:hi]
		slices.SortFunc(ks, func(x, y int32) int {
			return cmp.Or(cmp.Compare(len(out[y].Members), len(out[x].Members)), cmp.Compare(parts[x][0], parts[y][0]))
		})
		for n, k := range ks {
			out[k].ID = base[k]
			if n > 0 {
				out[k].ID = kg.ID("entity", kg.NormalizeName(out[k].Canonical), normalizeType(out[k].Type), r.ents[parts[k][0]].Key)
			}
		}
		lo = hi
	}
	sort.Sort(clustersByID{out, parts})
	of := make([]int32, len(r.ents))
	for k, p := range parts {
		for _, i := range p {
			of[i] = int32(k)
		}
	}
	return out, of
}

// clustersByID sorts clusters by id, and their members' indexes with them.
type clustersByID struct {
	c     []Cluster
	parts [][]int
}

func (s clustersByID) Len() int           { return len(s.c) }
func (s clustersByID) Less(i, j int) bool { return s.c[i].ID < s.c[j].ID }
func (s clustersByID) Swap(i, j int) {
	s.c[i], s.c[j] = s.c[j], s.c[i]
	s.parts[i], s.parts[j] = s.parts[j], s.parts[i]
}

// canonicalBefore reports whether entity i names a cluster before entity j:
// an anchored entity (its name and type come from data), then more
// mentions, then more evidence, then a longer description, then the name,
// then the key in byte order.
func (r *resolver) canonicalBefore(i, j int) bool {
	a, b := &r.ents[i], &r.ents[j]
	return cmp.Or(
		cmp.Compare(anchored(b), anchored(a)),
		cmp.Compare(b.Mentions, a.Mentions),
		cmp.Compare(b.Evidence, a.Evidence),
		cmp.Compare(utf8.RuneCountInString(b.Description), utf8.RuneCountInString(a.Description)),
		strings.Compare(a.Name, b.Name),
		strings.Compare(a.Key, b.Key),
	) < 0
}

func anchored(e *Entity) int {
	if e.Anchor != "" {
		return 1
	}
	return 0
}

// rename applies the earliest rename override that names a member.
func (r *resolver) rename(c *Cluster, members []int) {
	var chosen *renameTarget
	for _, i := range members {
		if t, ok := r.renames[i]; ok && (chosen == nil || t.order < chosen.order) {
			chosen = &t
		}
	}
	if chosen == nil {
		return
	}
	reported := map[int]bool{}
	for _, i := range members {
		if t, ok := r.renames[i]; ok && t.name != chosen.name && !reported[t.order] {
			reported[t.order] = true
			r.issues = append(r.issues, OverrideIssue{
				Kind: OverrideRename, Refs: []string{t.ref, t.name},
				Reason: fmt.Sprintf("its cluster is renamed %q by an earlier rename of %q", chosen.name, chosen.ref),
			})
		}
	}
	c.Canonical = chosen.name
}

// weakestBand returns the lowest cosine band among merges.
func weakestBand(merges []Pair) Band {
	rank := map[Band]int{BandHigh: 3, BandUncertain: 2, BandLow: 1}
	out := BandNone
	for _, m := range merges {
		if m.Band != BandNone && (out == BandNone || rank[m.Band] < rank[out]) {
			out = m.Band
		}
	}
	return out
}

// record gives a split the ids of its clusters and the links it cut.
func (s splitInfo) record(r *resolver, clusters []Cluster, of []int32) Split {
	out := Split{Reason: s.reason, Size: len(s.comp), Weakest: s.weakest}
	seen := map[int32]bool{}
	for _, i := range s.comp {
		if c := of[i]; !seen[c] {
			seen[c] = true
			out.Clusters = append(out.Clusters, clusters[c].ID)
		}
		for _, j := range r.links[i] {
			if int(j) > i && of[i] != of[j] {
				out.Cut = append(out.Cut, r.accepted[pairKey(i, int(j))])
			}
		}
	}
	slices.Sort(out.Clusters)
	slices.SortFunc(out.Cut, func(a, b Pair) int { return cmp.Or(strings.Compare(a.A, b.A), strings.Compare(a.B, b.B)) })
	return out
}
