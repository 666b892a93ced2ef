package main

import (
	"slices"
	"strings"

	"kgforge/kg"
)

// index is a bundle's graph as the scorer looks it up.
type index struct {
	d        *Data
	node     map[string]*kg.Node
	rowNode  map[string]string   // TABLE[KEY] → node id of its row entity
	rowOf    map[string]string   // node id → TABLE[KEY], for row entities
	byKey    map[string][]string // name key → entity node ids (names, aliases, merge members)
	mentions map[string][]string // row entity node id → chunk ids that MENTION it
	chunkRow map[[2]string]bool  // {chunk id, TABLE[KEY]} of MENTIONS edges
	sameAs   map[string][]string // entity node id → TABLE[KEY] it is SAME_AS (edge or linked link)
}

// isEntity reports whether a node is of the semantic layer.
func isEntity(n *kg.Node) bool {
	switch n.Kind {
	case kg.NodeDocument, kg.NodeChunk, kg.NodeTable, kg.NodeColumn:
		return false
	}
	return true
}

// rowTargetOf returns TABLE[KEY] of a row entity, or "".
func rowTargetOf(n *kg.Node) string {
	if !isEntity(n) || n.Properties[kg.PropTable] == "" || n.Properties[kg.PropKey] == "" {
		return ""
	}
	return kg.RowTarget(n.Properties[kg.PropTable], n.Properties[kg.PropKey])
}

func newIndex(d *Data) *index {
	ix := &index{
		d: d, node: map[string]*kg.Node{}, rowNode: map[string]string{}, rowOf: map[string]string{},
		byKey: map[string][]string{}, mentions: map[string][]string{}, chunkRow: map[[2]string]bool{},
		sameAs: map[string][]string{},
	}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		ix.node[n.ID] = n
		if !isEntity(n) {
			continue
		}
		if t := rowTargetOf(n); t != "" {
			ix.rowNode[t], ix.rowOf[n.ID] = n.ID, t
		}
		for _, name := range append([]string{n.Name}, n.Aliases...) {
			ix.addKey(name, n.ID)
		}
	}
	for _, m := range d.Merges {
		if n := ix.node[m.ClusterID]; n != nil && isEntity(n) {
			ix.addKey(m.Member, m.ClusterID)
		}
	}
	ix.indexEdges()
	for _, l := range d.Links {
		if l.Type == kg.LinkSameAs && l.Band == kg.LinkBandLinked {
			ix.sameAs[l.Src] = appendUnique(ix.sameAs[l.Src], l.Target)
		}
	}
	return ix
}

func (ix *index) indexEdges() {
	for _, e := range ix.d.Edges {
		src, dst := ix.node[e.Src], ix.node[e.Dst]
		if src == nil || dst == nil {
			continue
		}
		row := ix.rowOf[e.Dst]
		switch {
		case row == "":
		case src.Kind == kg.NodeChunk && e.Type == "MENTIONS":
			ix.mentions[e.Dst] = appendUnique(ix.mentions[e.Dst], e.Src)
			ix.chunkRow[[2]string{e.Src, row}] = true
		case e.Type == kg.LinkSameAs:
			ix.sameAs[e.Src] = appendUnique(ix.sameAs[e.Src], row)
		}
	}
}

func (ix *index) addKey(name, id string) {
	k := Key(name)
	if k != "" {
		ix.byKey[k] = appendUnique(ix.byKey[k], id)
	}
}

// nodesNamed returns the entity nodes a name ended in.
func (ix *index) nodesNamed(name string) []string { return ix.byKey[Key(name)] }

// rowsOfNode returns the rows an entity node is: its own, or those it is
// SAME_AS.
func (ix *index) rowsOfNode(id string) []string {
	var rows []string
	if r := ix.rowOf[id]; r != "" {
		rows = append(rows, r)
	}
	for _, r := range ix.sameAs[id] {
		rows = appendUnique(rows, r)
	}
	return rows
}

// targetOf names a node of the data layer as links do: TABLE,
// TABLE.COLUMN or TABLE[KEY]; "" for other nodes.
func (ix *index) targetOf(id string) string {
	n := ix.node[id]
	if n == nil {
		return ""
	}
	switch n.Kind {
	case kg.NodeTable:
		return n.Name
	case kg.NodeColumn:
		return n.Properties["table"] + "." + n.Properties["column"]
	}
	return ix.rowOf[id]
}

// chunkText returns the name key of each chunk's text, and its source URI.
func (ix *index) chunkKeys() []chunkKey {
	out := make([]chunkKey, 0, len(ix.d.Chunks))
	for _, c := range ix.d.Chunks {
		out = append(out, chunkKey{id: c.ID, uri: ix.d.SourceURI[c.SourceID], key: Key(c.Text)})
	}
	return out
}

type chunkKey struct{ id, uri, key string }

// hasSource reports whether the bundle holds the source of this URI.
func (ix *index) hasSource(uri string) bool {
	for _, u := range ix.d.SourceURI {
		if u == uri {
			return true
		}
	}
	return false
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// fileOf returns the file of a FILE:LINE or FILE#page=N place.
func fileOf(at string) string {
	if i := strings.LastIndex(at, "#page="); i >= 0 {
		return at[:i]
	}
	if i := strings.LastIndex(at, ":"); i >= 0 {
		return at[:i]
	}
	return at
}
