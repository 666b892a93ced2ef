package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/traverse"
)

// localOps are the operators around one node or between two.
func localOps() []graphOp {
	return []graphOp{
		{
			ToolNeighbours, "The nodes one edge away from a node, by edge type and direction, with counts by type.",
			schema([]string{"node"}, prop("node", pNode), prop("types", pTypes), prop("direction", pDir), prop("limit", pLimit)),
			runNeighbours,
		},
		{
			ToolPath, "A shortest path between two nodes: its nodes and the edge types between them. direction out follows edges forward only; both (the default) ignores their direction.",
			schema([]string{"from", "to"}, prop("from", pNode), prop("to", pNode), prop("types", pTypes), prop("direction", pDir)),
			runPath,
		},
		{
			ToolSubgraph, "The nodes within k edges of a node (k from 1 to 3) and the edges among them.",
			schema([]string{"node"}, prop("node", pNode), prop("k", `{"type":"integer","minimum":1,"maximum":3}`), prop("types", pTypes), prop("direction", pDir), prop("limit", pLimit)),
			runSubgraph,
		},
		{
			ToolDegree, "Edge counts by type: of one node, or the top nodes (of a label) by their number of edges.",
			schema(nil, prop("node", pNode), prop("label", pLabel), prop("types", pTypes), prop("direction", pDir), prop("k", pTopK)),
			runDegree,
		},
		{
			ToolComplement, "The nodes of a label that have NO edge (of the types given, in the direction given) to a target: one node, any node of target_label, or any node at all when neither is given.",
			schema([]string{"label"}, prop("label", pLabel), prop("types", pTypes), prop("direction", pDir), prop("target", pNode), prop("target_label", pLabel), prop("limit", pLimit)),
			runComplement,
		},
		{
			ToolValidAt, "The dated edges valid at a date (YYYY, YYYY-MM or YYYY-MM-DD): valid_from on or before it and valid_to on or after it, a missing bound being open; optionally of one node or of some types.",
			schema([]string{"date"}, prop("date", `{"type":"string","description":"YYYY-MM-DD"}`), prop("node", pNode), prop("types", pTypes), prop("limit", pLimit)),
			runValidAt,
		},
	}
}

type nodeArgs struct {
	Node      string   `json:"node"`
	Types     []string `json:"types"`
	Direction string   `json:"direction"`
	Limit     int      `json:"limit"`
}

func runNeighbours(_ context.Context, g *graphState, c opCall) (string, error) {
	var a nodeArgs
	if err := c.decode(&a); err != nil {
		return "", err
	}
	i, err := g.lookup(c, a.Node)
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
	type hit struct {
		e, other int32
		out      bool
	}
	var hits []hit
	g.edgesOf(i, d, mask, func(e, other int32, out bool) bool {
		hits = append(hits, hit{e, other, out})
		return true
	})
	slices.SortFunc(hits, func(x, y hit) int {
		return cmp.Or(cmp.Compare(g.typeNames[g.eType[x.e]], g.typeNames[g.eType[y.e]]), cmp.Compare(g.names[x.other], g.names[y.other]), cmp.Compare(x.e, y.e))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d edges (%s)\n", g.show(i), len(hits), g.countByType(i, d, mask))
	for _, h := range hits[:min(limit, len(hits))] {
		fmt.Fprintf(&b, "%s %s\n", g.arrow(h.e, h.out), g.show(h.other))
	}
	b.WriteString(capped(limit, len(hits), "pass types or direction, or a larger limit"))
	return strings.TrimRight(b.String(), "\n"), nil
}

// countByType counts node i's edges by type and direction, the most
// common types first.
func (g *graphState) countByType(i int32, d dir, mask []bool) string {
	out, in := map[int32]int{}, map[int32]int{}
	g.edgesOf(i, d, mask, func(e, _ int32, isOut bool) bool {
		if isOut {
			out[g.eType[e]]++
		} else {
			in[g.eType[e]]++
		}
		return true
	})
	var types []int32
	for t := range out {
		types = append(types, t)
	}
	for t := range in {
		if _, ok := out[t]; !ok {
			types = append(types, t)
		}
	}
	slices.SortFunc(types, func(x, y int32) int {
		return cmp.Or(cmp.Compare(out[y]+in[y], out[x]+in[x]), cmp.Compare(g.typeNames[x], g.typeNames[y]))
	})
	if len(types) == 0 {
		return "none"
	}
	parts := make([]string, 0, maxTypesShown+1)
	for _, t := range types[:min(maxTypesShown, len(types))] {
		parts = append(parts, fmt.Sprintf("%s out %d in %d", g.typeNames[t], out[t], in[t]))
	}
	if len(types) > maxTypesShown {
		parts = append(parts, fmt.Sprintf("and %d more types", len(types)-maxTypesShown))
	}
	return strings.Join(parts, "; ")
}

// maxTypesShown bounds the edge types a node's counts list, the most
// common first.
const maxTypesShown = 12

func runPath(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		From, To  string
		Types     []string
		Direction string
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	from, err := g.lookup(c, a.From)
	if err != nil {
		return "", err
	}
	to, err := g.lookup(c, a.To)
	if err != nil {
		return "", err
	}
	mask, err := g.typeMask(c, a.Types)
	if err != nil {
		return "", err
	}
	d, err := c.direction(a.Direction, dirBoth, dirOut, dirBoth)
	if err != nil {
		return "", err
	}
	sp, _ := path.AStar(simple.Node(from), simple.Node(to), g.view(mask, d, -1), nil)
	nodes, _ := sp.To(int64(to))
	if len(nodes) == 0 {
		return fmt.Sprintf("no path from %s to %s (direction %s); components and removal show what is connected", g.show(from), g.show(to), d), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "a shortest path of %d edges:\n%s", len(nodes)-1, g.show(from))
	for k := 1; k < len(nodes); k++ {
		u, v := int32(nodes[k-1].ID()), int32(nodes[k].ID())
		fmt.Fprintf(&b, "\n  %s %s", g.stepTypes(u, v, d, mask), g.show(v))
	}
	return b.String(), nil
}

// stepTypes lists the edges from u to v (and, unless d is out, from v to
// u) of the allowed types, as arrows.
func (g *graphState) stepTypes(u, v int32, d dir, mask []bool) string {
	var arrows []string
	g.edgesOf(u, d, mask, func(e, other int32, out bool) bool {
		if other == v {
			arrows = append(arrows, g.arrow(e, out))
		}
		return true
	})
	slices.Sort(arrows)
	return strings.Join(slices.Compact(arrows), " ")
}

func runSubgraph(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		nodeArgs
		K int `json:"k"`
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	i, err := g.lookup(c, a.Node)
	if err != nil {
		return "", err
	}
	mask, d, err := g.edgeFilter(c, a.Types, a.Direction)
	if err != nil {
		return "", err
	}
	k, err := c.bound("k", a.K, 1, maxHops)
	if err != nil {
		return "", err
	}
	limit, err := c.bound("limit", a.Limit, 40, maxGraphListed)
	if err != nil {
		return "", err
	}
	nodes, hops, more := g.within(i, k, limit, d, mask)
	return g.showSubgraph(nodes, hops, more, k, mask), nil
}

// within walks breadth first from i up to k edges away in direction d and
// returns the nodes reached in order of distance (at most limit), their
// distances, and whether more nodes lie within k.
func (g *graphState) within(i int32, k, limit int, d dir, mask []bool) (nodes []int32, hops map[int32]int, more bool) {
	hops = map[int32]int{}
	var bf traverse.BreadthFirst
	bf.Walk(g.view(mask, d, -1), simple.Node(i), func(n graph.Node, depth int) bool {
		if depth > k {
			return true
		}
		if len(nodes) == limit {
			more = true
			return true
		}
		nodes = append(nodes, int32(n.ID()))
		hops[int32(n.ID())] = depth
		return false
	})
	return nodes, hops, more
}

func (g *graphState) showSubgraph(nodes []int32, hops map[int32]int, more bool, k int, mask []bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes within %d edges", len(nodes), k)
	if more {
		fmt.Fprintf(&b, " (the first %d; more lie within %d: pass types, direction, a smaller k or a larger limit)", len(nodes), k)
	}
	num := make(map[int32]int, len(nodes))
	for n, v := range nodes {
		num[v] = n
		fmt.Fprintf(&b, "\n[%d] %s, %d away", n, g.show(v), hops[v])
	}
	var lines []string
	for _, v := range nodes {
		g.edgesOf(v, dirOut, mask, func(e, other int32, _ bool) bool {
			if w, ok := num[other]; ok {
				lines = append(lines, fmt.Sprintf("[%d] -[%s]-> [%d]", num[v], g.typeNames[g.eType[e]], w))
			}
			return true
		})
	}
	fmt.Fprintf(&b, "\n%d edges among them", len(lines))
	limit := 2 * len(nodes)
	for _, l := range lines[:min(limit, len(lines))] {
		b.WriteString("\n" + l)
	}
	b.WriteString(capped(limit, len(lines), "pass types or a smaller k"))
	return b.String()
}

func runDegree(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		Node, Label string
		Types       []string
		Direction   string
		K           int
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	mask, d, err := g.edgeFilter(c, a.Types, a.Direction)
	if err != nil {
		return "", err
	}
	if a.Node != "" {
		if a.Label != "" {
			return "", c.malformed("give node or label, not both")
		}
		i, err := g.lookup(c, a.Node)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: degree %d (%s)", g.show(i), g.degree(i, d, mask), g.countByType(i, d, mask)), nil
	}
	l, err := g.label(c, a.Label)
	if err != nil {
		return "", err
	}
	k, err := c.bound("k", a.K, 10, maxTop)
	if err != nil {
		return "", err
	}
	score := make(map[int32]float64)
	for _, i := range g.members(l) {
		score[i] = float64(g.degree(i, d, mask))
	}
	return g.showTop(fmt.Sprintf("degree (direction %s)", d), score, k, "%.0f"), nil
}

func (g *graphState) degree(i int32, d dir, mask []bool) int {
	n := 0
	g.edgesOf(i, d, mask, func(int32, int32, bool) bool { n++; return true })
	return n
}

// members lists the nodes of label l, or every node for -1.
func (g *graphState) members(l int32) []int32 {
	if l >= 0 {
		return g.labelMembers[l]
	}
	all := make([]int32, len(g.ids))
	for i := range all {
		all[i] = int32(i)
	}
	return all
}

// showTop lists the k nodes of highest score, ranked by the score as
// shown (format), ties by id: an iterative score (PageRank) that differs
// between runs in its last digits ranks the same every time.
func (g *graphState) showTop(what string, score map[int32]float64, k int, format string) string {
	nodes := make([]int32, 0, len(score))
	for i, v := range score {
		nodes = append(nodes, i)
		score[i], _ = strconv.ParseFloat(fmt.Sprintf(format, v), 64)
	}
	slices.SortFunc(nodes, func(x, y int32) int {
		return cmp.Or(cmp.Compare(score[y], score[x]), cmp.Compare(g.ids[x], g.ids[y]))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "top %d of %d nodes by %s", min(k, len(nodes)), len(nodes), what)
	for r, i := range nodes[:min(k, len(nodes))] {
		fmt.Fprintf(&b, "\n%d. "+format+" %s", r+1, score[i], g.show(i))
	}
	return b.String()
}

func runComplement(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		Label       string   `json:"label"`
		Types       []string `json:"types"`
		Direction   string   `json:"direction"`
		Target      string   `json:"target"`
		TargetLabel string   `json:"target_label"`
		Limit       int      `json:"limit"`
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Label) == "" {
		return "", c.malformed("no label given")
	}
	l, err := g.label(c, a.Label)
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
	target, what, err := g.complementTarget(c, a.Target, a.TargetLabel)
	if err != nil {
		return "", err
	}
	var none []int32
	for _, i := range g.labelMembers[l] {
		if !g.linked(i, d, mask, target) {
			none = append(none, i)
		}
	}
	slices.SortFunc(none, func(x, y int32) int {
		return cmp.Or(cmp.Compare(g.names[x], g.names[y]), cmp.Compare(g.ids[x], g.ids[y]))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d nodes labelled %s have no %s edge (direction %s) to %s", len(none), len(g.labelMembers[l]), g.labelNames[l], typesText(g, mask), d, what)
	for _, i := range none[:min(limit, len(none))] {
		b.WriteString("\n" + g.show(i))
	}
	b.WriteString(capped(limit, len(none), "pass a larger limit"))
	return b.String(), nil
}

// complementTarget reads the target of complement: a test of the node at
// the other end of an edge, and the words that name it.
func (g *graphState) complementTarget(c opCall, node, label string) (func(int32) bool, string, error) {
	switch {
	case node != "" && label != "":
		return nil, "", c.malformed("give target or target_label, not both")
	case node != "":
		x, err := g.lookup(c, node)
		if err != nil {
			return nil, "", err
		}
		return func(o int32) bool { return o == x }, g.show(x), nil
	case label != "":
		m, err := g.label(c, label)
		if err != nil {
			return nil, "", err
		}
		return func(o int32) bool { return g.hasLabel(o, m) }, "any node labelled " + g.labelNames[m], nil
	}
	return func(int32) bool { return true }, "any node", nil
}

// linked reports whether node i has an edge in direction d, of a type the
// mask allows, to a node the target test accepts.
func (g *graphState) linked(i int32, d dir, mask []bool, target func(int32) bool) bool {
	found := false
	g.edgesOf(i, d, mask, func(_, other int32, _ bool) bool {
		found = target(other)
		return !found
	})
	return found
}

func typesText(g *graphState, mask []bool) string {
	if mask == nil {
		return "(any type)"
	}
	var names []string
	for t, ok := range mask {
		if ok {
			names = append(names, g.typeNames[t])
		}
	}
	return strings.Join(names, " or ")
}

func runValidAt(_ context.Context, g *graphState, c opCall) (string, error) {
	var a struct {
		Date  string   `json:"date"`
		Node  string   `json:"node"`
		Types []string `json:"types"`
		Limit int      `json:"limit"`
	}
	if err := c.decode(&a); err != nil {
		return "", err
	}
	from, ok1 := parseDate(a.Date, false)
	to, ok2 := parseDate(a.Date, true)
	if !ok1 || !ok2 || from == 0 {
		return "", c.malformed("date %q is not YYYY, YYYY-MM or YYYY-MM-DD", a.Date)
	}
	mask, err := g.typeMask(c, a.Types)
	if err != nil {
		return "", err
	}
	limit, err := c.bound("limit", a.Limit, 20, maxGraphListed)
	if err != nil {
		return "", err
	}
	if g.dated == 0 {
		return fmt.Sprintf("the bundle has no dated edges: none of its %d edges has a valid_from or valid_to", len(g.eID)), nil
	}
	edges := g.allEdges(mask)
	if a.Node != "" {
		i, err := g.lookup(c, a.Node)
		if err != nil {
			return "", err
		}
		edges = edges[:0]
		g.edgesOf(i, dirBoth, mask, func(e, _ int32, _ bool) bool { edges = append(edges, e); return true })
	}
	var valid []int32
	for _, e := range edges {
		if (g.eFrom[e] != 0 || g.eTo[e] != 0) && (g.eFrom[e] == 0 || g.eFrom[e] <= to) && (g.eTo[e] == 0 || g.eTo[e] >= from) {
			valid = append(valid, e)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d edges valid at %s (of %d dated edges; undated edges are left out)", len(valid), a.Date, g.dated)
	for _, e := range valid[:min(limit, len(valid))] {
		fmt.Fprintf(&b, "\nedge %s: %s %q -[%s]-> %s %q, from %s to %s", g.eID[e], g.ids[g.eSrc[e]], g.names[g.eSrc[e]], g.typeNames[g.eType[e]], g.ids[g.eDst[e]], g.names[g.eDst[e]], showDate(g.eFrom[e]), showDate(g.eTo[e]))
	}
	b.WriteString(capped(limit, len(valid), "pass node, types or a larger limit"))
	return b.String(), nil
}

func (g *graphState) allEdges(mask []bool) []int32 {
	var edges []int32
	for e, t := range g.eType {
		if mask == nil || mask[t] {
			edges = append(edges, int32(e))
		}
	}
	return edges
}

func showDate(d int32) string {
	if d == 0 {
		return "open"
	}
	return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
}
