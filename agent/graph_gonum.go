package agent

import (
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
)

// The graph as gonum sees it: node ids are node numbers, and From walks a
// neighbour list (adj rows are sorted and distinct, as gonum expects: one
// neighbour once, however many typed edges join the two). The graph is
// not copied into one of gonum's own types: its maps would hold a second,
// larger copy of 1M edges (docs/benchmarks.md).

// gview is what the directed and undirected views share: the neighbour
// lists of From and a node that is treated as removed (-1 for none).
type gview struct {
	from adj
	hide int32
}

// Node returns the node with the given id, or nil.
func (v gview) Node(id int64) graph.Node {
	if id < 0 || id >= int64(len(v.from.off)-1) || id == int64(v.hide) {
		return nil
	}
	return simple.Node(id)
}

// Nodes lists every node but the hidden one.
func (v gview) Nodes() graph.Nodes {
	n := len(v.from.off) - 1
	if v.hide < 0 {
		return iterator.NewImplicitNodes(0, n, func(id int) graph.Node { return simple.Node(id) })
	}
	ids := make([]int32, 0, n-1)
	for i := range int32(n) {
		if i != v.hide {
			ids = append(ids, i)
		}
	}
	return newNodeList(ids, -1)
}

// From lists the nodes one step from id.
func (v gview) From(id int64) graph.Nodes {
	if v.Node(id) == nil {
		return graph.Empty
	}
	return newNodeList(v.from.row(int32(id)), v.hide)
}

func (v gview) has(a adj, x, y int64) bool {
	if v.Node(x) == nil || v.Node(y) == nil {
		return false
	}
	_, ok := slices.BinarySearch(a.row(int32(x)), int32(y))
	return ok
}

// Edge returns the edge from u to v if From(u) lists v.
func (v gview) Edge(uid, vid int64) graph.Edge {
	if !v.has(v.from, uid, vid) {
		return nil
	}
	return simple.Edge{F: simple.Node(uid), T: simple.Node(vid)}
}

// Weight makes every step cost 1 without looking the edge up again
// (gonum's path functions call it only for neighbours From listed).
func (v gview) Weight(xid, yid int64) (float64, bool) {
	if xid == yid {
		return 0, true
	}
	return 1, true
}

// directed is a graph.Directed: From follows edges forward, To backward.
type directed struct {
	gview
	to adj
}

func (v directed) HasEdgeBetween(x, y int64) bool { return v.has(v.from, x, y) || v.has(v.to, x, y) }
func (v directed) HasEdgeFromTo(u, w int64) bool  { return v.has(v.from, u, w) }
func (v directed) To(id int64) graph.Nodes {
	if v.Node(id) == nil {
		return graph.Empty
	}
	return newNodeList(v.to.row(int32(id)), v.hide)
}

// undirected is a graph.Undirected over neighbour lists in both directions.
type undirected struct{ gview }

func (v undirected) HasEdgeBetween(x, y int64) bool { return v.has(v.from, x, y) }
func (v undirected) EdgeBetween(x, y int64) graph.Edge {
	return v.Edge(x, y)
}

// directedView and undirectedView build the views over the edges whose
// type mask allows (nil: all), with node hide removed (-1: none).
func (g *graphState) directedView(mask []bool, hide int32) directed {
	return directed{gview{g.neighbours(mask, dirOut), hide}, g.neighbours(mask, dirIn)}
}

func (g *graphState) undirectedView(mask []bool, hide int32) undirected {
	return undirected{gview{g.neighbours(mask, dirBoth), hide}}
}

// view returns the view that walks in direction d: forward edges for out,
// backward for in (the reversed graph), either way for both.
func (g *graphState) view(mask []bool, d dir, hide int32) graph.Graph {
	switch d {
	case dirOut:
		return g.directedView(mask, hide)
	case dirIn:
		v := g.directedView(mask, hide)
		v.from, v.to = v.to, v.from
		return v
	}
	return g.undirectedView(mask, hide)
}

// nodeList iterates a slice of node numbers.
type nodeList struct {
	ids []int32
	i   int
}

// newNodeList lists the sorted ids but skip (-1: none).
func newNodeList(ids []int32, skip int32) *nodeList {
	if skip >= 0 {
		if k, ok := slices.BinarySearch(ids, skip); ok {
			ids = slices.Delete(slices.Clone(ids), k, k+1)
		}
	}
	return &nodeList{ids: ids, i: -1}
}

func (l *nodeList) Next() bool {
	if l.i < len(l.ids) {
		l.i++
	}
	return l.i < len(l.ids)
}

func (l *nodeList) Len() int {
	return max(0, len(l.ids)-l.i-1)
}

func (l *nodeList) Reset() { l.i = -1 }

func (l *nodeList) Node() graph.Node {
	if l.i < 0 || l.i >= len(l.ids) {
		return nil
	}
	return simple.Node(l.ids[l.i])
}
