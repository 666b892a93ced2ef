package consolidate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"kgforge/consolidate/link"
	"kgforge/kg"
)

// linkTypes are the link types in the order the link report shows them.
var linkTypes = []string{kg.LinkRepresentedBy, kg.LinkMeasuredBy, kg.LinkSameAs, kg.LinkRowOf}

// LinkReport renders the link log as Markdown for a person to read: the
// counts per link type and band; the uncertain links, the closest to being
// linked first, with their signals; the links in the graph, the weakest
// first (but ROW_OF, which the tables section sums up); the links an
// expert refused; the extracted names merged into a row entity; the tables whose rows became entities and those that
// stayed tables, with why. tables is what the link step decided per table
// (link.Rows); without it the tables are read off the graph, with no
// reasons.
func LinkReport(g kg.Graph, tables []link.Decision) string {
	var b strings.Builder
	b.WriteString("# Link report\n\n")
	linkCounts(&b, g.Links)
	uncertain := linksWhere(g.Links, func(l kg.Link) bool { return l.Band == kg.LinkBandUncertain })
	linkTable(&b, "Uncertain links, left out of the graph (the closest to being linked first)", uncertain)
	linked := linksWhere(g.Links, func(l kg.Link) bool { return l.Band == kg.LinkBandLinked && l.Type != kg.LinkRowOf })
	linkTable(&b, "Links in the graph, the weakest first (ROW_OF links are summed up under the tables below)", linked)
	refused := linksWhere(g.Links, func(l kg.Link) bool { return l.Band == kg.LinkBandNone && l.DecidedBy != "auto" && l.DecidedBy != "" })
	linkTable(&b, "Links an expert refused", refused)
	resolvedOntoRows(&b, g)
	if tables == nil {
		tables = decisionsFromGraph(g)
	}
	rowTables(&b, tables)
	return b.String()
}

// linkCounts writes the number of links per type and band.
func linkCounts(b *strings.Builder, links []kg.Link) {
	counts := map[string]map[string]int{}
	types := slices.Clone(linkTypes)
	bands := map[string]int{}
	for _, l := range links {
		if counts[l.Type] == nil {
			counts[l.Type] = map[string]int{}
			if !slices.Contains(types, l.Type) {
				types = append(types, l.Type)
			}
		}
		counts[l.Type][l.Band]++
		bands[l.Band]++
	}
	fmt.Fprintf(b, "%d candidate links: %d linked, %d uncertain, %d below the bands or refused.\n\n",
		len(links), bands[kg.LinkBandLinked], bands[kg.LinkBandUncertain], bands[kg.LinkBandNone])
	b.WriteString("| type | linked | uncertain | none |\n|---|---|---|---|\n")
	for _, t := range types {
		fmt.Fprintf(b, "| %s | %d | %d | %d |\n", t, counts[t][kg.LinkBandLinked], counts[t][kg.LinkBandUncertain], counts[t][kg.LinkBandNone])
	}
}

// linkDoubt is how doubtful the band of a link is, as the review page
// orders links: for an uncertain link its score (the closer to linked, the
// likelier a mistake to leave it out), for a linked one 1 - score, for
// any other 0.
func linkDoubt(l kg.Link) float64 {
	switch l.Band {
	case kg.LinkBandUncertain:
		return l.Score
	case kg.LinkBandLinked:
		return 1 - l.Score
	}
	return 0
}

// linksWhere returns the links that keep accepts, the most doubtful first
// (linkDoubt), then by type, name and target.
func linksWhere(links []kg.Link, keep func(kg.Link) bool) []kg.Link {
	var out []kg.Link
	for _, l := range links {
		if keep(l) {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b kg.Link) int {
		return cmp.Or(cmp.Compare(linkDoubt(b), linkDoubt(a)), cmp.Compare(slices.Index(linkTypes, a.Type), slices.Index(linkTypes, b.Type)),
			strings.Compare(a.SrcName, b.SrcName), strings.Compare(a.Target, b.Target), strings.Compare(a.ID, b.ID))
	})
	return out
}

// maxLinkEvidence bounds the evidence shown per link.
const maxLinkEvidence = 3

// linkTable writes one section of links, at most maxReportRows of them.
func linkTable(b *strings.Builder, title string, links []kg.Link) {
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if len(links) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| entity or concept | type | target | score | signals | rule | decided by | evidence |\n|---|---|---|---|---|---|---|---|\n")
	for i, l := range links {
		if i == maxReportRows {
			fmt.Fprintf(b, "\n… and %d more (links.parquet has them all)\n", len(links)-i)
			break
		}
		ev := l.Evidence
		more := ""
		if len(ev) > maxLinkEvidence {
			ev, more = ev[:maxLinkEvidence], fmt.Sprintf(" (+%d)", len(l.Evidence)-maxLinkEvidence)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %.3f | %s | %s | %s | %s%s |\n", linkCell(l.SrcName), l.Type, linkCell(l.Target), l.Score,
			linkCell(strings.Join(l.Signals, ", ")), linkCell(l.Rule), linkCell(l.DecidedBy), linkCell(strings.Join(ev, ", ")), more)
	}
}

// resolvedOntoRows writes the extracted names the resolver merged into a
// row entity (the merge log's members of a row entity's node but the row
// itself): there the row and the entity are one node, so no SAME_AS link
// says it.
func resolvedOntoRows(b *strings.Builder, g kg.Graph) {
	b.WriteString("\n## Extracted names resolved onto rows (one node with the row)\n\n")
	rows := map[string]kg.Node{}
	for _, n := range g.Nodes {
		if n.Properties[kg.PropTable] != "" && n.Properties[kg.PropKey] != "" {
			rows[n.ID] = n
		}
	}
	var ms []kg.MergeDecision
	for _, m := range g.Merges {
		if _, ok := rows[m.ClusterID]; ok && m.Rule != RuleRowAnchor {
			ms = append(ms, m)
		}
	}
	target := func(m kg.MergeDecision) string {
		n := rows[m.ClusterID]
		return kg.RowTarget(n.Properties[kg.PropTable], n.Properties[kg.PropKey])
	}
	slices.SortFunc(ms, func(x, y kg.MergeDecision) int {
		return cmp.Or(strings.Compare(target(x), target(y)), strings.Compare(x.Member, y.Member), strings.Compare(x.MemberType, y.MemberType))
	})
	if len(ms) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| row | node | extracted name | type | rule | score | mentions | decided by |\n|---|---|---|---|---|---|---|---|\n")
	for i, m := range ms {
		if i == maxReportRows {
			fmt.Fprintf(b, "\n… and %d more (merges.parquet has them all)\n", len(ms)-i)
			break
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %.3f | %d | %s |\n", linkCell(target(m)), linkCell(m.Canonical), linkCell(m.Member),
			linkCell(m.MemberType), linkCell(m.Rule), m.Score, m.Mentions, linkCell(m.DecidedBy))
	}
}

// rowTables writes the tables whose rows became entities and those that
// stayed tables.
func rowTables(b *strings.Builder, tables []link.Decision) {
	b.WriteString("\n## Tables whose rows are entities\n\n")
	var entity, stayed []link.Decision
	for _, d := range tables {
		if d.Entity {
			entity = append(entity, d)
		} else {
			stayed = append(stayed, d)
		}
	}
	if len(entity) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| table | entity type | key | name | row entities | foreign-key edges | decided by | why |\n|---|---|---|---|---|---|---|---|\n")
		for _, d := range entity {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %s | %s |\n", linkCell(d.Table), linkCell(d.Type), linkCell(d.Key),
				linkCell(d.Name), d.Rows, d.Edges, linkCell(d.By), linkCell(d.Reason))
		}
	}
	b.WriteString("\n## Tables that stayed tables\n\n")
	if len(stayed) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| table | decided by | why |\n|---|---|---|\n")
	for _, d := range stayed {
		fmt.Fprintf(b, "| %s | %s | %s |\n", linkCell(d.Table), linkCell(d.By), linkCell(d.Reason))
	}
}

// decisionsFromGraph reads the tables' decisions off the graph when the
// link step's are not at hand: a table with row entities (nodes carrying
// kg.PropTable and kg.PropKey) is an entity table, any other table node
// stayed a table. The reasons are unknown.
func decisionsFromGraph(g kg.Graph) []link.Decision {
	byTable := map[string]*link.Decision{}
	rowOf := map[string]string{} // row entity id → table
	for _, n := range g.Nodes {
		switch {
		case n.Kind == kg.NodeTable:
			if byTable[n.Name] == nil {
				byTable[n.Name] = &link.Decision{Table: n.Name, Reason: "no row entities in the graph"}
			}
		case n.Properties[kg.PropTable] != "" && n.Properties[kg.PropKey] != "":
			t := n.Properties[kg.PropTable]
			d := byTable[t]
			if d == nil {
				d = &link.Decision{Table: t}
				byTable[t] = d
			}
			d.Entity, d.Type, d.Key, d.Reason = true, n.Properties["type"], n.Properties[kg.PropKeyColumn], "row entities in the graph"
			d.Rows++
			rowOf[n.ID] = t
		}
	}
	for _, e := range g.Edges {
		if t, ok := rowOf[e.Src]; ok && rowOf[e.Dst] != "" && e.Type != kg.LinkRowOf && e.Type != kg.LinkSameAs {
			byTable[t].Edges++
		}
	}
	out := make([]link.Decision, 0, len(byTable))
	for _, d := range byTable {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b link.Decision) int { return strings.Compare(a.Table, b.Table) })
	return out
}

// linkCell escapes s for a cell of a Markdown table.
func linkCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
