package consolidate

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// Input is everything the consolidate stage sees.
type Input struct {
	Sources  []kg.Source
	Chunks   []kg.Chunk
	Triplets []kg.Triplet
	Entities []kg.Mention // grounded entities, also those in no triplet
	Tables   []kg.Table

	// Resolve tunes entity resolution; its Overrides are replaced by
	// Overrides when that is set.
	Resolve   resolve.Config
	Overrides *Overrides
	// Embedder embeds entity names and predicates; nil resolves by the
	// name keys alone.
	Embedder Embedder
	// FixedPredicates keeps predicates as extracted (a pipeline schema
	// fixed them); otherwise synonymous predicates are clustered.
	FixedPredicates bool
	// Judge, when set, is asked about the pairs of the uncertain band (at
	// most MaxJudged, the most doubtful first; never a pair whose names
	// differ in a number or date); a pair it calls the same is merged.
	Judge     Judge
	MaxJudged int // 0 means 200

	// Data is the build's DuckDB, which holds every table of Tables: the
	// link step reads the rows of entity tables from it. Nil leaves row
	// entities out.
	Data *sql.DB
	// Link tunes the link step (which tables give row entities).
	Link link.Config
}

// Output is the consolidated graph and how it was resolved.
type Output struct {
	Graph      kg.Graph
	Resolution Resolution
	// EntityVectors are the vectors of the entity nodes (each node's
	// canonical member), for the bundle's vector file; empty without an
	// embedder.
	EntityIDs     []string
	EntityVectors [][]float32
	// Tables says, per table, whether its rows became entities and why.
	Tables []link.Decision
}

// Edge types of the structural part of the graph.
const (
	EdgeHasChunk  = "HAS_CHUNK"
	EdgeMentions  = "MENTIONS"
	EdgeHasColumn = "HAS_COLUMN"
	EdgeJoins     = "JOINS"
)

// Build returns the consolidated graph. The result is deterministic: the
// same input in any order gives the same nodes, edges and merge log, sorted
// by id.
func Build(ctx context.Context, in Input) (Output, error) {
	var out Output
	g := &out.Graph
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

	// Experts' set_type and not_entity decisions change the extraction
	// that resolution sees.
	ex := in.Overrides.applyToExtraction(in.Triplets, in.Entities)
	in.Triplets, in.Entities = ex.triplets, ex.entities
	cfg := in.Resolve
	if in.Overrides != nil {
		cfg.Overrides = in.Overrides.Resolve()
		in.Link.Overrides = in.Overrides.Link()
	}
	rows, err := rowEntities(ctx, in)
	if err != nil {
		return out, err
	}
	out.Tables = rows.Decisions
	cfg.Overrides = rowOverrides(cfg.Overrides, in.Link.Overrides, rows.Nodes)
	surfaces := collectSurfaces(in.Triplets, in.Entities)
	addRowSurfaces(surfaces, rows.Nodes)
	markTitles(surfaces, in.Chunks)
	vectors, err := embedSurfaces(ctx, surfaces, in.Embedder)
	if err != nil {
		return out, err
	}
	res, err := resolveVectors(ctx, surfaces, vectors, cfg)
	if err != nil {
		return out, err
	}
	var judged map[[2]string]bool
	var asked, failed int
	if in.Judge != nil {
		judged, asked, failed, err = judgeUncertain(ctx, in.Judge, surfaces, res.result.Uncertain, cmp.Or(in.MaxJudged, 200))
		if err != nil {
			return out, err
		}
		if len(judged) > 0 {
			again := cfg
			again.Overrides.MustLink = slices.Clone(cfg.Overrides.MustLink)
			for k := range judged {
				again.Overrides.MustLink = append(again.Overrides.MustLink, resolve.NamePair{A: k[0], B: k[1]})
			}
			slices.SortFunc(again.Overrides.MustLink, func(a, b resolve.NamePair) int {
				return cmp.Or(strings.Compare(a.A, b.A), strings.Compare(a.B, b.B))
			})
			if res, err = resolveVectors(ctx, surfaces, vectors, again); err != nil {
				return out, err
			}
		}
	}
	high, low := cmp.Or(cfg.High, resolve.DefaultHigh), cmp.Or(cfg.Low, resolve.DefaultLow)
	nodes, merges, links := entityNodes(surfaces, res, high, low, judged)
	joinTypes(in.Overrides, nodes, surfaces, res)
	g.Merges, g.MergeLinks = merges, appendCannotLinks(links, in.Overrides, surfaces, res)
	out.Resolution = Resolution{
		Stats: res.result.Stats, UnmatchedOverrides: res.result.UnmatchedOverrides,
		Embedded: len(res.vectors), Splits: len(res.result.Splits),
		Judged: asked, JudgeFailed: failed, JudgeMerged: len(judged),
		NotEntities: ex.drops,
	}
	if ex.dropped > 0 {
		out.Resolution.TripletsDropped = map[string]int{DropNotEntity: ex.dropped}
	}
	out.Resolution.UnmatchedOverrides = append(ex.issues, out.Resolution.UnmatchedOverrides...)
	byID := map[string]*kg.Node{}
	for i := range nodes {
		byID[nodes[i].ID] = &nodes[i]
	}
	// The canonical member's vector stands for the node.
	vecOf := map[string][]float32{}
	for _, k := range slices.Sorted(maps.Keys(res.vectors)) {
		if c := res.clusterOf[k]; c != nil && surfaces[k].name == c.Canonical && vecOf[c.ID] == nil {
			vecOf[c.ID] = res.vectors[k]
		}
	}
	for _, id := range slices.Sorted(maps.Keys(vecOf)) {
		out.EntityIDs = append(out.EntityIDs, id)
		out.EntityVectors = append(out.EntityVectors, vecOf[id])
	}
	predicates, err := canonicalPredicates(ctx, in, cfg)
	if err != nil {
		return out, err
	}
	out.Resolution.Predicates = predicates.merged
	nodeOf := func(m kg.Mention) *kg.Node { return byID[res.clusterOf[surfaceKey(foldSpace(m.Surface), m.Type)].ID] }

	facts := map[string]*kg.Edge{}
	mentions := map[string]*kg.Edge{}
	for _, t := range inIDOrder(in.Triplets) {
		s, o := nodeOf(t.Subject), nodeOf(t.Object)
		pred := predicates.of(t.Predicate)
		id := kg.EdgeID(s.ID, pred, o.ID)
		e, ok := facts[id]
		if !ok {
			e = &kg.Edge{
				ID: id, Src: s.ID, Dst: o.ID, Type: pred, Evidence: t.Evidence,
				ValidFrom: t.ValidFrom, ValidTo: t.ValidTo,
				Properties: map[string]string{"evidence_span": fmt.Sprintf("%s:%d-%d", chunkSource[t.ChunkID], t.EvidenceSpan.Start, t.EvidenceSpan.End)},
			}
			facts[id] = e
		}
		if t.Predicate != pred && !strings.Contains(" "+e.Properties["predicates"]+" ", " "+t.Predicate+" ") {
			e.Properties["predicates"] = strings.TrimSpace(e.Properties["predicates"] + " " + t.Predicate)
		}
		e.Confidence = max(e.Confidence, t.Confidence)
		e.ChunkIDs = appendUnique(e.ChunkIDs, t.ChunkID)
		for _, n := range []*kg.Node{s, o} {
			mention(mentions, n, t.ChunkID)
		}
	}
	for _, m := range in.Entities {
		mention(mentions, nodeOf(m), m.ChunkID)
	}
	// The chunks that name a row entity mention it, model or not.
	_, dict := link.Mentions(in.Chunks, nodes, in.Link.Dict)
	link.MergeMentions(mentions, dict)
	link.AddChunkIDs(nodes, dict)
	g.Nodes = slices.Grow(g.Nodes, len(nodes))
	for i := range nodes {
		slices.Sort(nodes[i].ChunkIDs)
		g.Nodes = append(g.Nodes, nodes[i])
	}
	// Grown once to what is known: the graph's edges are its largest part.
	g.Edges = slices.Grow(g.Edges, len(facts)+len(rows.Edges)+len(mentions))
	for _, e := range facts {
		slices.Sort(e.ChunkIDs)
		g.Edges = append(g.Edges, *e)
	}
	addTables(g, in.Tables)
	g.Edges = append(g.Edges, rows.Edges...)
	g.Links = append(g.Links, rows.Links...)
	g.Links = append(g.Links, sameAsLinks(surfaces, res, in.Link.Overrides)...)
	for _, e := range mentions {
		g.Edges = append(g.Edges, *e)
	}
	if err := addConceptLinks(ctx, g, nodes, in); err != nil {
		return out, err
	}
	slices.SortFunc(g.Nodes, func(a, b kg.Node) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Edges, func(a, b kg.Edge) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Links, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) })
	out.Resolution.UnmatchedOverrides = append(out.Resolution.UnmatchedOverrides, unmatchedLinkOverrides(in.Overrides, *g)...)
	return out, nil
}

// addConceptLinks adds the links of concept nodes (the entity nodes
// IsConcept keeps) to tables and columns, and the rules the chunks state
// about columns with their links, under the experts' link overrides.
func addConceptLinks(ctx context.Context, g *kg.Graph, nodes []kg.Node, in Input) error {
	cfg := in.Link
	if in.Overrides != nil {
		cfg.Overrides = in.Overrides.Link()
	}
	links, edges, err := link.Concepts(ctx, nodes, in.Tables, in.Embedder, cfg)
	if err != nil {
		return err
	}
	rules, ruleLinks, ruleEdges := link.Rules(in.Chunks, in.Tables, cfg)
	// Appended, not concatenated: a copy of every edge for none added.
	g.Nodes = append(g.Nodes, rules...)
	g.Edges = append(append(g.Edges, edges...), ruleEdges...)
	g.Links = append(append(g.Links, links...), ruleLinks...)
	return nil
}

// inIDOrder returns the triplets in id order, so that the evidence an edge
// keeps (its first triplet's) is the same whatever order extraction
// finished in: ts itself when it is in that order already (the build's
// are), else a sorted copy.
func inIDOrder(ts []kg.Triplet) []kg.Triplet {
	cmpID := func(a, b kg.Triplet) int { return strings.Compare(a.ID, b.ID) }
	if slices.IsSortedFunc(ts, cmpID) {
		return ts
	}
	ts = slices.Clone(ts)
	slices.SortFunc(ts, cmpID)
	return ts
}

// mention records that chunk mentions node n.
func mention(mentions map[string]*kg.Edge, n *kg.Node, chunk string) {
	n.ChunkIDs = appendUnique(n.ChunkIDs, chunk)
	mid := kg.EdgeID(chunk, EdgeMentions, n.ID)
	if _, ok := mentions[mid]; !ok {
		mentions[mid] = &kg.Edge{ID: mid, Src: chunk, Dst: n.ID, Type: EdgeMentions, Confidence: 1, ChunkIDs: []string{chunk}}
	}
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
			props := map[string]string{
				"table": t.Name, "column": c.Name, "type": c.Type, "nulls": fmt.Sprint(c.Nulls),
				"distinct": fmt.Sprint(c.Distinct), "min": c.Min, "max": c.Max, "samples": strings.Join(c.Samples, " | "),
			}
			if c.Unit != "" {
				props["unit"] = c.Unit
			}
			g.Nodes = append(g.Nodes, kg.Node{
				ID: cid, Name: t.Name + "." + c.Name, Kind: kg.NodeColumn, Labels: []string{"Column"},
				Properties: props,
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
