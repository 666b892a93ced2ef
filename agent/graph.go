package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"kgforge/kg"
)

// graphState holds the bundle's graph in memory for the graph operators,
// loaded on the first call. Nodes are numbered 0..n-1 in the order the
// bundle lists them (gonum's node ids are these numbers); edges keep the
// bundle's order. Every slice is indexed by node or edge number.
type graphState struct {
	ids    []string
	names  []string
	labels [][]int32 // label numbers of each node
	index  map[string]int32
	byName map[string][]int32 // kg.NormalizeName(name) → nodes

	labelNames   []string
	labelMembers [][]int32 // nodes of each label, in node order
	typeNames    []string

	eID       []string
	eSrc      []int32
	eDst      []int32
	eType     []int32
	eFrom     []int32 // valid_from as YYYYMMDD, 0 when the edge has none
	eTo       []int32 // valid_to as YYYYMMDD, 0 when the edge has none
	dated     int     // edges with a readable valid_from or valid_to
	badDates  int     // edges whose validity dates could not be read
	placehold int     // edge endpoints the node file does not list

	outE, inE adj // edge numbers by source and by destination
	// Neighbour lists over every edge type, sorted and without repeats,
	// for gonum's algorithms; built on first use.
	nbr [3]adj
}

// adj is a compressed adjacency: the entries of row i are
// items[off[i]:off[i+1]].
type adj struct {
	off   []int32
	items []int32
}

func (a adj) row(i int32) []int32 { return a.items[a.off[i]:a.off[i+1]] }

// dir is a direction of travel along edges.
type dir int

const (
	dirOut  dir = iota // from an edge's source to its destination
	dirIn              // from destination to source
	dirBoth            // either way
)

func (d dir) String() string { return [...]string{"out", "in", "both"}[d] }

// graphOf returns the bundle's graph, loading it on the first call.
func (t *Toolbox) graphOf(ctx context.Context) (*graphState, error) {
	if t.graph != nil {
		return t.graph, nil
	}
	g, err := loadGraph(ctx, t.b.GraphNodes, t.b.GraphEdges)
	if err != nil {
		return nil, fmt.Errorf("load the bundle's graph: %w", err)
	}
	t.graph = g
	return g, nil
}

// loadGraph reads every node and edge through the two streams. An edge
// whose endpoint the nodes do not list gets a placeholder node of that id,
// with no name and no label, counted in placehold.
func loadGraph(ctx context.Context, nodes func(context.Context, func(kg.Node) error) error, edges func(context.Context, func(kg.Edge) error) error) (*graphState, error) {
	g := &graphState{index: map[string]int32{}, byName: map[string][]int32{}}
	labelIdx := map[string]int32{}
	err := nodes(ctx, func(n kg.Node) error {
		if _, dup := g.index[n.ID]; dup {
			return nil
		}
		i := g.addNode(n.ID, n.Name)
		for _, l := range n.Labels {
			li, ok := labelIdx[l]
			if !ok {
				li = int32(len(g.labelNames))
				labelIdx[l] = li
				g.labelNames = append(g.labelNames, l)
				g.labelMembers = append(g.labelMembers, nil)
			}
			g.labels[i] = append(g.labels[i], li)
			g.labelMembers[li] = append(g.labelMembers[li], i)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	typeIdx := map[string]int32{}
	err = edges(ctx, func(e kg.Edge) error {
		g.addEdge(e, typeIdx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := int32(len(g.ids))
	g.outE = buildAdj(n, g.eSrc)
	g.inE = buildAdj(n, g.eDst)
	return g, nil
}

func (g *graphState) addNode(id, name string) int32 {
	i := int32(len(g.ids))
	g.ids = append(g.ids, id)
	g.names = append(g.names, name)
	g.labels = append(g.labels, nil)
	g.index[id] = i
	if name != "" {
		k := kg.NormalizeName(name)
		g.byName[k] = append(g.byName[k], i)
	}
	return i
}

func (g *graphState) node(id string) int32 {
	if i, ok := g.index[id]; ok {
		return i
	}
	g.placehold++
	return g.addNode(id, "")
}

func (g *graphState) addEdge(e kg.Edge, typeIdx map[string]int32) {
	ti, ok := typeIdx[e.Type]
	if !ok {
		ti = int32(len(g.typeNames))
		typeIdx[e.Type] = ti
		g.typeNames = append(g.typeNames, e.Type)
	}
	from, okFrom := parseDate(e.ValidFrom, false)
	to, okTo := parseDate(e.ValidTo, true)
	if !okFrom || !okTo {
		g.badDates++
	}
	if from != 0 || to != 0 {
		g.dated++
	}
	g.eID = append(g.eID, e.ID)
	g.eSrc = append(g.eSrc, g.node(e.Src))
	g.eDst = append(g.eDst, g.node(e.Dst))
	g.eType = append(g.eType, ti)
	g.eFrom = append(g.eFrom, from)
	g.eTo = append(g.eTo, to)
}

// buildAdj groups the edge numbers 0..len(end)-1 by end[e], keeping edge
// order within a row.
func buildAdj(n int32, end []int32) adj {
	a := adj{off: make([]int32, n+1), items: make([]int32, len(end))}
	for _, v := range end {
		a.off[v+1]++
	}
	for i := int32(0); i < n; i++ {
		a.off[i+1] += a.off[i]
	}
	next := slices.Clone(a.off[:n])
	for e, v := range end {
		a.items[next[v]] = int32(e)
		next[v]++
	}
	return a
}

// neighbours returns the sorted, distinct neighbour lists of every node
// along the edges whose type mask allows (nil allows all) in direction d.
// The unmasked lists are built once and kept.
func (g *graphState) neighbours(mask []bool, d dir) adj {
	if mask == nil && g.nbr[d].off != nil {
		return g.nbr[d]
	}
	n := int32(len(g.ids))
	a := adj{off: make([]int32, n+1)}
	var row []int32
	for i := range n {
		row = row[:0]
		if d != dirIn {
			row = g.appendEnds(row, g.outE.row(i), g.eDst, mask)
		}
		if d != dirOut {
			row = g.appendEnds(row, g.inE.row(i), g.eSrc, mask)
		}
		slices.Sort(row)
		row = slices.Compact(row)
		a.items = append(a.items, row...)
		a.off[i+1] = int32(len(a.items))
	}
	if mask == nil {
		g.nbr[d] = a
	}
	return a
}

func (g *graphState) appendEnds(row, edges, end []int32, mask []bool) []int32 {
	for _, e := range edges {
		if mask == nil || mask[g.eType[e]] {
			row = append(row, end[e])
		}
	}
	return row
}

// edgesOf calls fn for each edge of node i in direction d whose type the
// mask allows, with the node at its other end and whether i is its source.
func (g *graphState) edgesOf(i int32, d dir, mask []bool, fn func(e, other int32, out bool) bool) {
	if d != dirIn {
		for _, e := range g.outE.row(i) {
			if (mask == nil || mask[g.eType[e]]) && !fn(e, g.eDst[e], true) {
				return
			}
		}
	}
	if d != dirOut {
		for _, e := range g.inE.row(i) {
			if g.eSrc[e] == g.eDst[e] && d == dirBoth {
				continue // a self-loop, already seen going out
			}
			if (mask == nil || mask[g.eType[e]]) && !fn(e, g.eSrc[e], false) {
				return
			}
		}
	}
}

// hasLabel reports whether node i carries label l.
func (g *graphState) hasLabel(i, l int32) bool { return slices.Contains(g.labels[i], l) }

// show formats node i for the model: its id, name and labels.
func (g *graphState) show(i int32) string {
	ls := make([]string, len(g.labels[i]))
	for k, l := range g.labels[i] {
		ls[k] = g.labelNames[l]
	}
	return fmt.Sprintf("%s %q (%s)", g.ids[i], g.names[i], strings.Join(ls, ", "))
}

// showEdge formats edge e seen from node i: "-[TYPE]->" when i is its
// source, "<-[TYPE]-" when it is its destination.
func (g *graphState) arrow(e int32, out bool) string {
	if out {
		return "-[" + g.typeNames[g.eType[e]] + "]->"
	}
	return "<-[" + g.typeNames[g.eType[e]] + "]-"
}

// parseDate reads a validity date: YYYY, YYYY-MM, YYYY-MM-DD or an RFC 3339
// time (its date part). A partial date stands for its first day, or its
// last when end is set, so "2024" as valid_to covers all of 2024. It
// returns 0 for an empty string and false for one it cannot read.
func parseDate(s string, end bool) (int32, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	if len(s) > 10 && s[10] == 'T' {
		s = s[:10]
	}
	m, d := 1, 1 // what a partial date leaves out
	if end {
		m, d = 12, 31
	}
	parts := strings.Split(s, "-")
	if len(parts) > 3 || len(parts[0]) != 4 {
		return 0, false
	}
	var y int
	nums := []*int{&y, &m, &d}
	for k, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || (k > 0 && len(p) != 2) {
			return 0, false
		}
		*nums[k] = n
	}
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	if end && len(parts) < 3 {
		d = time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day() // the month's last day
	}
	return int32(y*10000 + m*100 + d), true
}
