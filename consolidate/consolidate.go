package consolidate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"kgforge/kg"
)

// Input is everything the consolidate stage sees.
type Input struct {
	Sources  []kg.Source
	Chunks   []kg.Chunk
	Triplets []kg.Triplet
	Entities []kg.Mention // grounded entities, also those in no triplet
	Tables   []kg.Table
}

// RuleExactName is the merge rule of names equal after case and white-space folding.
const RuleExactName = "exact_normalized_name"

// Edge types of the structural part of the graph.
const (
	EdgeHasChunk  = "HAS_CHUNK"
	EdgeMentions  = "MENTIONS"
	EdgeHasColumn = "HAS_COLUMN"
	EdgeJoins     = "JOINS"
)

// reservedLabels are the labels of the structural nodes; an entity type that
// spells one of them stays a property, so an entity never passes for a
// document, chunk, table or column.
var reservedLabels = map[string]bool{"Entity": true, "Document": true, "Chunk": true, "Table": true, "Column": true}

// EntityNodeID returns the id of the entity node for a resolved name.
func EntityNodeID(normalized string) string { return kg.ID("entity", normalized) }

// Build returns the consolidated graph. The result is deterministic: nodes
// and edges are sorted by id, lists inside them are sorted.
func Build(in Input) kg.Graph {
	var g kg.Graph
	chunkSource := map[string]string{}
	for _, s := range in.Sources {
		if s.Kind.IsTable() {
			continue
		}
		g.Nodes = append(g.Nodes, kg.Node{
			ID: s.ID, Name: s.URI, Kind: kg.NodeDocument, Labels: []string{"Document"},
			Properties: map[string]string{"uri": s.URI, "sha256": s.SHA256, "kind": string(s.Kind)},
		})
	}
	for _, c := range in.Chunks {
		chunkSource[c.ID] = c.SourceID
		g.Nodes = append(g.Nodes, kg.Node{
			ID: c.ID, Name: fmt.Sprintf("%s#%d", c.SourceID, c.Ordinal), Kind: kg.NodeChunk,
			Labels: []string{"Chunk"}, ChunkIDs: []string{c.ID},
			Properties: map[string]string{
				"source_id": c.SourceID, "ordinal": fmt.Sprint(c.Ordinal), "section": c.Section,
				"start": fmt.Sprint(c.Span.Start), "end": fmt.Sprint(c.Span.End),
			},
		})
		g.Edges = append(g.Edges, kg.Edge{
			ID: kg.EdgeID(c.SourceID, EdgeHasChunk, c.ID), Src: c.SourceID, Dst: c.ID,
			Type: EdgeHasChunk, Confidence: 1, ChunkIDs: []string{c.ID},
		})
	}

	entities, merges := resolve(in.Triplets, in.Entities)
	g.Merges = merges
	facts := map[string]*kg.Edge{}
	mentions := map[string]*kg.Edge{}
	for _, t := range in.Triplets {
		s, o := entities[kg.NormalizeName(t.Subject.Surface)], entities[kg.NormalizeName(t.Object.Surface)]
		id := kg.EdgeID(s.ID, t.Predicate, o.ID)
		e, ok := facts[id]
		if !ok {
			e = &kg.Edge{
				ID: id, Src: s.ID, Dst: o.ID, Type: t.Predicate, Evidence: t.Evidence,
				ValidFrom: t.ValidFrom, ValidTo: t.ValidTo,
				Properties: map[string]string{"evidence_span": fmt.Sprintf("%s:%d-%d", chunkSource[t.ChunkID], t.EvidenceSpan.Start, t.EvidenceSpan.End)},
			}
			facts[id] = e
		}
		e.Confidence = max(e.Confidence, t.Confidence)
		e.ChunkIDs = appendUnique(e.ChunkIDs, t.ChunkID)
		for _, n := range []*kg.Node{s, o} {
			mention(mentions, n, t.ChunkID)
		}
	}
	for _, m := range in.Entities {
		mention(mentions, entities[kg.NormalizeName(m.Surface)], m.ChunkID)
	}
	for _, n := range entities {
		slices.Sort(n.ChunkIDs)
		g.Nodes = append(g.Nodes, *n)
	}
	for _, e := range facts {
		slices.Sort(e.ChunkIDs)
		g.Edges = append(g.Edges, *e)
	}
	for _, e := range mentions {
		g.Edges = append(g.Edges, *e)
	}
	addTables(&g, in.Tables)
	slices.SortFunc(g.Nodes, func(a, b kg.Node) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Edges, func(a, b kg.Edge) int { return strings.Compare(a.ID, b.ID) })
	return g
}

// mention records that chunk mentions node n.
func mention(mentions map[string]*kg.Edge, n *kg.Node, chunk string) {
	n.ChunkIDs = appendUnique(n.ChunkIDs, chunk)
	mid := kg.EdgeID(chunk, EdgeMentions, n.ID)
	if _, ok := mentions[mid]; !ok {
		mentions[mid] = &kg.Edge{ID: mid, Src: chunk, Dst: n.ID, Type: EdgeMentions, Confidence: 1, ChunkIDs: []string{chunk}}
	}
}

// resolve groups mentions by normalised name, picks each group's canonical
// name and type (most mentions, then lexical order) and logs a merge for
// every surface form that differs from the canonical one.
func resolve(triplets []kg.Triplet, extra []kg.Mention) (map[string]*kg.Node, []kg.MergeDecision) {
	type group struct {
		surfaces     map[string]int
		types        map[string]int
		descriptions map[string]int
	}
	groups := map[string]*group{}
	add := func(m kg.Mention) {
		k := kg.NormalizeName(m.Surface)
		g, ok := groups[k]
		if !ok {
			g = &group{surfaces: map[string]int{}, types: map[string]int{}, descriptions: map[string]int{}}
			groups[k] = g
		}
		g.surfaces[strings.Join(strings.Fields(m.Surface), " ")]++
		g.types[m.Type]++
		if m.Description != "" {
			g.descriptions[m.Description]++
		}
	}
	for _, t := range triplets {
		add(t.Subject)
		add(t.Object)
	}
	for _, m := range extra {
		add(m)
	}
	nodes := map[string]*kg.Node{}
	var merges []kg.MergeDecision
	for k, g := range groups {
		name, typ := top(g.surfaces), top(g.types)
		labels := []string{"Entity"}
		if !reservedLabels[typ] {
			labels = append(labels, typ)
		}
		n := &kg.Node{ID: EntityNodeID(k), Name: name, Kind: kg.NodeConcept, Labels: labels, Properties: map[string]string{"type": typ}}
		if d := top(g.descriptions); d != "" {
			n.Properties["description"] = d
		}
		for s := range g.surfaces {
			if s != name {
				n.Aliases = append(n.Aliases, s)
				merges = append(merges, kg.MergeDecision{ClusterID: n.ID, Member: s, Canonical: name, Score: 1, Rule: RuleExactName, DecidedBy: "auto"})
			}
		}
		slices.Sort(n.Aliases)
		nodes[k] = n
	}
	slices.SortFunc(merges, func(a, b kg.MergeDecision) int {
		return cmp.Or(strings.Compare(a.ClusterID, b.ClusterID), strings.Compare(a.Member, b.Member))
	})
	return nodes, merges
}

// top returns the key with the highest count, ties broken by lexical order.
func top(counts map[string]int) string {
	best, bestN := "", -1
	for k, n := range counts {
		if n > bestN || (n == bestN && k < best) {
			best, bestN = k, n
		}
	}
	return best
}

func addTables(g *kg.Graph, tables []kg.Table) {
	for _, t := range tables {
		tid := kg.TableNodeID(t.Name)
		g.Nodes = append(g.Nodes, kg.Node{
			ID: tid, Name: t.Name, Kind: kg.NodeTable, Labels: []string{"Table"},
			Properties: map[string]string{"source_id": t.SourceID, "rows": fmt.Sprint(t.Rows), "primary_keys": strings.Join(t.PrimaryKeys, ",")},
		})
		for _, c := range t.Columns {
			cid := kg.ColumnNodeID(t.Name, c.Name)
			g.Nodes = append(g.Nodes, kg.Node{
				ID: cid, Name: t.Name + "." + c.Name, Kind: kg.NodeColumn, Labels: []string{"Column"},
				Properties: map[string]string{
					"table": t.Name, "column": c.Name, "type": c.Type, "nulls": fmt.Sprint(c.Nulls),
					"distinct": fmt.Sprint(c.Distinct), "min": c.Min, "max": c.Max, "samples": strings.Join(c.Samples, " | "),
				},
			})
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(tid, EdgeHasColumn, cid), Src: tid, Dst: cid, Type: EdgeHasColumn, Confidence: 1})
		}
		for _, fk := range t.ForeignKeys {
			rid := kg.TableNodeID(fk.RefTable)
			g.Edges = append(g.Edges, kg.Edge{
				ID: kg.EdgeID(tid, EdgeJoins+":"+fk.Column, rid), Src: tid, Dst: rid, Type: EdgeJoins,
				Confidence: fk.Score, Properties: map[string]string{"on": fmt.Sprintf("%s.%s = %s.%s", t.Name, fk.Column, fk.RefTable, fk.RefColumn)},
			})
		}
	}
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
