package agent

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/graph/traverse"
)

// Betweenness is exact (gonum's Brandes) while nodes × edges stays under
// exactBetweennessWork, under half a second of CPU here, and sampled from
// defaultPivots sources above it: the exact one walks every edge once per
// node, 52 s of CPU on 30k edges and some 16 hours by that rate on 1M,
// where 64 sampled sources take 4 s (docs/benchmarks.md).
const (
	exactBetweennessWork = 3_000_000
	defaultPivots        = 64
	maxPivots            = 1024
)

// PageRank's damping factor and the tolerance at which it stops: gonum
// starts from a random vector, and at 1e-10 the four digits shown come
// out the same every run.
const (
	pageRankDamping = 0.85
	pageRankTol     = 1e-10
)

// globalOps are the operators over the whole graph.
func globalOps() []graphOp {
	return []graphOp{
		{
			ToolPageRank, "The top nodes by PageRank over the edges (followed forward), optionally only nodes of a label, optionally over some edge types.",
			schema(nil, prop("k", pTopK), prop("label", pLabel), prop("types", pTypes)),
			runPageRank,
		},
		{
			ToolBetweenness, "The top nodes by betweenness centrality (shortest paths, edge direction ignored): exact on small graphs, estimated from sampled sources on large ones, and the result says which.",
			schema(nil, prop("k", pTopK), prop("label", pLabel), prop("types", pTypes), prop("pivots", `{"type":"integer","minimum":1,"maximum":1024,"description":"sample this many sources instead of the exact computation"}`)),
			runBetweenness,
		},
		{
			ToolComponents, "Connected components (edge direction ignored): how many, their sizes, and the members of one node's component.",
			schema(nil, prop("node", pNode), prop("types", pTypes), prop("limit", pLimit)),
			runComponents,
		},
		{
			ToolRemoval, "What removing a node cuts off: with target, the nodes that reach the target only through it; without, the parts of its component that lose touch with the rest.",
			schema([]string{"node"}, prop("node", pNode), prop("target", pNode), prop("types", pTypes), prop("direction", `{"type":"string","enum":["out","in","both"],"description":"with target: out for paths that follow edges forward to the target, in for paths from it, both (the default) ignores direction"}`), prop("limit", pLimit)),
			runRemoval,
		},
	}
}

type topArgs struct {
	K      int      `json:"k"`
	Label  string   `json:"label"`
	Types  []string `json:"types"`
	Pivots int      `json:"pivots"`
}

// readTop reads the arguments of the top-k operators.
func (g *graphState) readTop(c opCall) (a topArgs, l int32, mask []bool, err error) {
	if err = c.decode(&a); err != nil {
		return
	}
	if a.K, err = c.bound("k", a.K, 10, maxTop); err != nil {
		return
	}
	if l, err = g.label(c, a.Label); err != nil {
		return
	}
	mask, err = g.typeMask(c, a.Types)
	return
}

func runPageRank(_ context.Context, g *graphState, c opCall) (string, error) {
	a, l, mask, err := g.readTop(c)
	if err != nil {
		return "", err
	}
	if len(g.ids) == 0 {
		return "the graph has no nodes", nil
	}
	ranks := network.PageRankSparse(g.directedView(mask, -1), pageRankDamping, pageRankTol)
	return g.showTop("PageRank (damping 0.85, over the whole graph)", scoresOf(g, l, ranks), a.K, "%.4g"), nil
}

// scoresOf keeps the scores of label l's nodes (every node for -1), zero
// for those the map lacks.
func scoresOf(g *graphState, l int32, m map[int64]float64) map[int32]float64 {
	s := make(map[int32]float64)
	for _, i := range g.members(l) {
		s[i] = m[int64(i)]
	}
	return s
}

func runBetweenness(ctx context.Context, g *graphState, c opCall) (string, error) {
	a, l, mask, err := g.readTop(c)
	if err != nil {
		return "", err
	}
	if a.Pivots < 0 || a.Pivots > maxPivots {
		return "", c.malformed("pivots is %d; it must be from 1 to %d", a.Pivots, maxPivots)
	}
	view := g.undirectedView(mask, -1)
	n, m := len(g.ids), len(view.from.items)/2
	var what string
	var cb map[int64]float64
	if a.Pivots == 0 && n*m <= exactBetweennessWork {
		what, cb = "betweenness (exact)", network.Betweenness(view)
	} else {
		p := cmp.Or(a.Pivots, defaultPivots)
		cb, err = sampledBetweenness(ctx, view.from, pivotsOf(n, p))
		if err != nil {
			return "", err
		}
		what = fmt.Sprintf("betweenness (estimated from %d sampled sources of %d, scaled by nodes/sources; more pivots, closer)", min(p, n), n)
	}
	return g.showTop(what, scoresOf(g, l, cb), a.K, "%.4g"), nil
}

// pivotsOf draws p distinct nodes of 0..n-1, the same ones every time, or
// all n when p ≥ n.
func pivotsOf(n, p int) []int32 {
	r := rand.New(rand.NewPCG(1, 2)) //nolint:gosec // a reproducible sample, not a secret
	perm := r.Perm(n)
	out := make([]int32, min(p, n))
	for i := range out {
		out[i] = int32(perm[i])
	}
	return out
}

// sampledBetweenness is Brandes' algorithm run from the given sources only,
// over the neighbour lists a, with each node's sum scaled by n/len(sources)
// (Brandes and Pich, "Centrality estimation in large networks", 2007).
// From every node as a source it equals gonum's network.Betweenness.
func sampledBetweenness(ctx context.Context, a adj, sources []int32) (map[int64]float64, error) {
	n := len(a.off) - 1
	sum := make([]float64, n)
	sigma := make([]float64, n)
	delta := make([]float64, n)
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = -1
	}
	order := make([]int32, 0, n) // nodes in the order reached: the BFS queue, then the stack
	for _, s := range sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		order = append(order[:0], s)
		sigma[s], dist[s] = 1, 0
		for q := 0; q < len(order); q++ {
			v := order[q]
			for _, w := range a.row(v) {
				if dist[w] < 0 {
					dist[w] = dist[v] + 1
					order = append(order, w)
				}
				if dist[w] == dist[v]+1 {
					sigma[w] += sigma[v]
				}
			}
		}
		for k := len(order) - 1; k > 0; k-- {
			w := order[k]
			for _, v := range a.row(w) {
				if dist[v] == dist[w]-1 {
					delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
				}
			}
			sum[w] += delta[w]
		}
		for _, v := range order {
			sigma[v], delta[v], dist[v] = 0, 0, -1
		}
	}
	scale := float64(n) / float64(max(1, len(sources)))
	cb := make(map[int64]float64)
	for v, x := range sum {
		if x != 0 {
			cb[int64(v)] = x * scale
		}
	}
	return cb, nil
}

func runComponents(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		Node  string   `json:"node"`
		Types []string `json:"types"`
		Limit int      `json:"limit"`
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	mask, err := g.typeMask(c, a.Types)
	if err != nil {
		return "", err
	}
	limit, err := c.bound("limit", a.Limit, 30, maxGraphListed)
	if err != nil {
		return "", err
	}
	node := int32(-1)
	if a.Node != "" {
		if node, err = g.lookup(c, a.Node); err != nil {
			return "", err
		}
	}
	cc := topo.ConnectedComponents(g.undirectedView(mask, -1))
	slices.SortStableFunc(cc, func(x, y []graph.Node) int { return cmp.Compare(len(y), len(x)) })
	var b strings.Builder
	fmt.Fprintf(&b, "%d connected components over %d nodes (edge direction ignored, edges %s)", len(cc), len(g.ids), typesText(g, mask))
	sizes, singles := make([]string, 0, 10), 0
	for k, comp := range cc {
		if k < 10 {
			sizes = append(sizes, fmt.Sprint(len(comp)))
		}
		if len(comp) == 1 {
			singles++
		}
	}
	fmt.Fprintf(&b, "\nlargest sizes: %s; %d nodes stand alone", strings.Join(sizes, ", "), singles)
	if node >= 0 {
		k := slices.IndexFunc(cc, func(comp []graph.Node) bool {
			return slices.ContainsFunc(comp, func(n graph.Node) bool { return n.ID() == int64(node) })
		})
		fmt.Fprintf(&b, "\n%s is in component %d of %d nodes:", g.show(node), k+1, len(cc[k]))
		b.WriteString(g.showMembers(idsOf(cc[k]), limit))
	}
	return b.String(), nil
}

func idsOf(nodes []graph.Node) []int32 {
	ids := make([]int32, len(nodes))
	for k, n := range nodes {
		ids[k] = int32(n.ID())
	}
	return ids
}

// showMembers lists up to limit of the nodes, by name.
func (g *graphState) showMembers(nodes []int32, limit int) string {
	slices.SortFunc(nodes, func(x, y int32) int {
		return cmp.Or(cmp.Compare(g.names[x], g.names[y]), cmp.Compare(g.ids[x], g.ids[y]))
	})
	var b strings.Builder
	for _, i := range nodes[:min(limit, len(nodes))] {
		b.WriteString("\n" + g.show(i))
	}
	b.WriteString(capped(limit, len(nodes), "pass a larger limit"))
	return b.String()
}

func runRemoval(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		Node, Target string
		Types        []string
		Direction    string
		Limit        int
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	n, err := g.lookup(c, a.Node)
	if err != nil {
		return "", err
	}
	mask, d, err := g.edgeFilter(c, a.Types, a.Direction)
	if err != nil {
		return "", err
	}
	limit, err := c.bound("limit", a.Limit, 30, maxGraphListed)
	if err != nil {
		return "", err
	}
	if a.Target == "" {
		if d != dirBoth {
			return "", c.malformed("direction %s needs a target", d)
		}
		return g.removalSplits(n, mask, limit), nil
	}
	x, err := g.lookup(c, a.Target)
	if err != nil {
		return "", err
	}
	if x == n {
		return "", c.malformed("node and target are the same node; name another target")
	}
	return g.removalTarget(n, x, d, mask, limit), nil
}

// reach lists the nodes a breadth-first walk from start reaches in view v,
// start included.
func reach(v graph.Graph, start int32) []int32 {
	var got []int32
	bf := traverse.BreadthFirst{Visit: func(n graph.Node) { got = append(got, int32(n.ID())) }}
	bf.Walk(v, simple.Node(start), nil)
	return got
}

// removalTarget lists the nodes that reach x before node n is removed and
// not after. Direction out asks of paths that follow edges forward to x,
// so the walks go backward from x; in asks of paths from x.
func (g *graphState) removalTarget(n, x int32, d dir, mask []bool, limit int) string {
	back := map[dir]dir{dirOut: dirIn, dirIn: dirOut, dirBoth: dirBoth}[d]
	before := reach(g.view(mask, back, -1), x)
	after := make(map[int32]bool)
	for _, i := range reach(g.view(mask, back, n), x) {
		after[i] = true
	}
	var lost []int32
	for _, i := range before {
		if i != n && !after[i] {
			lost = append(lost, i)
		}
	}
	verb := map[dir]string{dirOut: "reach", dirIn: "are reached from", dirBoth: "connect to"}[d]
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes %s %s (direction %s, edges %s); without %s, %d of them no longer do",
		len(before)-1, verb, g.show(x), d, typesText(g, mask), g.show(n), len(lost))
	if !slices.Contains(before, n) {
		fmt.Fprintf(&b, " (%s is not on any such path)", g.ids[n])
	}
	b.WriteString(g.showMembers(lost, limit))
	return b.String()
}

// removalSplits splits node n's component without n into the parts its
// neighbours fall in; every part but the largest loses touch with the rest.
func (g *graphState) removalSplits(n int32, mask []bool, limit int) string {
	v := g.undirectedView(mask, n)
	var parts [][]int32
	var bf traverse.BreadthFirst
	for _, w := range g.neighbours(mask, dirBoth).row(n) {
		if w == n || bf.Visited(simple.Node(w)) {
			continue
		}
		var part []int32
		bf.Visit = func(x graph.Node) { part = append(part, int32(x.ID())) }
		bf.Walk(v, simple.Node(w), nil)
		parts = append(parts, part)
	}
	slices.SortStableFunc(parts, func(x, y []int32) int { return cmp.Compare(len(y), len(x)) })
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s joins %d other nodes (edge direction ignored, edges %s); without it they fall into %d parts", g.show(n), total, typesText(g, mask), len(parts))
	if len(parts) <= 1 {
		b.WriteString(": removing it cuts nobody off")
		return b.String()
	}
	sizes := make([]string, 0, 10)
	for _, p := range parts[:min(10, len(parts))] {
		sizes = append(sizes, fmt.Sprint(len(p)))
	}
	var cut []int32
	for _, p := range parts[1:] {
		cut = append(cut, p...)
	}
	fmt.Fprintf(&b, " of sizes %s; %d nodes lose touch with the largest part:", strings.Join(sizes, ", "), len(cut))
	b.WriteString(g.showMembers(cut, limit))
	return b.String()
}
