package consolidate

import (
	"context"
	"maps"
	"slices"
	"strings"

	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// RuleRowAnchor is the merge log's rule for the row entity of a node: the
// member whose name, type and id come from data.
const RuleRowAnchor = "row_anchor"

// rowEntities returns the row entities of the entity tables, none without
// the build's DuckDB.
func rowEntities(ctx context.Context, in Input) (link.RowSet, error) {
	if in.Data == nil || len(in.Tables) == 0 {
		return link.RowSet{}, nil
	}
	return link.Rows(ctx, in.Data, in.Tables, in.Link)
}

// addRowSurfaces makes every row entity a surface keyed by its node id, an
// anchor of resolution: extracted names resolve onto it with the same
// rules, bands, guards and overrides as onto each other, and two rows never
// merge.
func addRowSurfaces(surfaces map[string]*surface, rows []kg.Node) {
	for i := range rows {
		n := &rows[i]
		surfaces[n.ID] = &surface{key: n.ID, name: n.Name, typ: n.Properties["type"], descriptions: map[string]int{}, row: n}
	}
}

// anchor is the row a surface is, TABLE[KEY], or "".
func (s *surface) anchor() string {
	if s.row == nil {
		return ""
	}
	return kg.RowTarget(s.row.Properties[kg.PropTable], s.row.Properties[kg.PropKey])
}

// anchorRow returns the row entity of a cluster that has one.
func anchorRow(c resolve.Cluster, surfaces map[string]*surface) *kg.Node {
	if c.Anchor == "" {
		return nil
	}
	return surfaces[c.ID].row
}

// rowNode is the node of a cluster resolved onto a row: the row entity,
// under the cluster's name (a rename override may change it).
func rowNode(c resolve.Cluster, row *kg.Node) kg.Node {
	n := *row
	n.Name = c.Canonical
	n.Labels = slices.Clone(row.Labels)
	n.Properties = maps.Clone(row.Properties)
	return n
}

// rowOverrides adds to the resolver's overrides the experts' link decisions
// between an entity and a row (Target TABLE[KEY]): a must-link or
// cannot-link between the entity's name and the row entity.
func rowOverrides(o resolve.Overrides, lo link.Overrides, rows []kg.Node) resolve.Overrides {
	if len(lo.MustLink)+len(lo.CannotLink) == 0 {
		return o
	}
	byTarget := map[string]string{}
	for _, n := range rows {
		byTarget[kg.RowTarget(n.Properties[kg.PropTable], n.Properties[kg.PropKey])] = n.ID
	}
	convert := func(ps []link.Pair, into []resolve.NamePair) []resolve.NamePair {
		into = slices.Clone(into)
		for _, p := range ps {
			if id, ok := byTarget[p.Target]; ok {
				into = append(into, resolve.NamePair{A: p.Entity, B: id})
			}
		}
		return into
	}
	o.MustLink = convert(lo.MustLink, o.MustLink)
	o.CannotLink = convert(lo.CannotLink, o.CannotLink)
	return o
}

// sameAsLinks returns a SAME_AS link for every pair of an extracted entity
// and a row entity the resolver left uncertain (band uncertain), and for
// every expert's cannot-link between the two (band none), from the
// extracted entity's node to the row entity's. A pair it merged is in the
// merge log: the two are one node.
func sameAsLinks(surfaces map[string]*surface, r resolved, lo link.Overrides) []kg.Link {
	out := refusedRows(surfaces, r, lo.CannotLink)
	for _, p := range r.result.Uncertain {
		a, b := surfaces[p.A], surfaces[p.B]
		if (a.row == nil) == (b.row == nil) {
			continue
		}
		if a.row != nil {
			a, b = b, a
		}
		src, dst := r.clusterOf[a.key], r.clusterOf[b.key]
		out = append(out, kg.Link{
			ID: kg.EdgeID(src.ID, kg.LinkSameAs, dst.ID), Src: src.ID, SrcName: a.name, Dst: dst.ID, Target: b.anchor(),
			Type: kg.LinkSameAs, Score: max(0, p.Cosine), Signals: signalStrings(p.Signals), Band: kg.LinkBandUncertain,
			Rule: string(p.Rule), DecidedBy: "auto", Evidence: slices.Clone(a.evidence),
		})
	}
	// Stable: an expert's refusal, first, wins over an automatic candidate.
	slices.SortStableFunc(out, func(x, y kg.Link) int { return strings.Compare(x.ID, y.ID) })
	return slices.CompactFunc(out, func(x, y kg.Link) bool { return x.ID == y.ID })
}

// refusedRows returns a SAME_AS link in band none for every cannot-link
// between an extracted name and a row target that both match, so that the
// refusal stays visible in the link log.
func refusedRows(surfaces map[string]*surface, r resolved, cannot []link.Pair) []kg.Link {
	if len(cannot) == 0 {
		return nil
	}
	rows := map[string]*surface{}
	var extracted []*surface
	for _, k := range slices.Sorted(maps.Keys(surfaces)) {
		if s := surfaces[k]; s.row != nil {
			rows[s.anchor()] = s
		} else {
			extracted = append(extracted, s)
		}
	}
	var out []kg.Link
	for _, p := range cannot {
		row := rows[p.Target]
		if row == nil {
			continue
		}
		for _, s := range extracted {
			if !SameName(s.name, p.Entity) {
				continue
			}
			src, dst := r.clusterOf[s.key].ID, r.clusterOf[row.key].ID
			out = append(out, kg.Link{
				ID: kg.EdgeID(src, kg.LinkSameAs, dst), Src: src, SrcName: s.name, Dst: dst, Target: p.Target,
				Type: kg.LinkSameAs, Signals: []string{}, Band: kg.LinkBandNone, Rule: string(resolve.OverrideCannotLink),
				DecidedBy: p.By, Evidence: slices.Clone(s.evidence),
			})
		}
	}
	return out
}
