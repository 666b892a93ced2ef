package review

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/kg"
)

// maxColumns bounds the columns shown for a table target.
const maxColumns = 12

// TargetView is what the page shows of a link's target, from the bundle's
// table profiles and, for a row, its row entity.
type TargetView struct {
	Kind               string // "table", "column" or "row"
	Table, Column, Key string
	Rows               int64       // the table's rows
	Columns            []kg.Column // a table's columns (at most maxColumns), or the column
	MoreColumns        int         // columns not listed
	RowName            string      // the row entity's name
	RowProps           []Prop      // the row entity's properties, by name
	// Problem says what the page could not find: the target does not
	// parse, or the bundle has no such table or column.
	Problem string
}

// Prop is one property of a row entity.
type Prop struct{ Name, Value string }

// The kinds of targets.
const (
	targetTable  = "table"
	targetColumn = "column"
	targetRow    = "row"
)

// readLinks reads the links of b's link log that the page shows (see
// reviewable), leaving the rest (a ROW_OF per row entity, candidates
// below the bands) unread into memory. A bundle without a link log has
// none.
func readLinks(ctx context.Context, b *bundle.Bundle) ([]kg.Link, error) {
	var links []kg.Link
	keep := func(l kg.Link) error {
		if reviewable(l) {
			links = append(links, l)
		}
		return nil
	}
	if err := b.Links(ctx, keep); err != nil {
		return nil, fmt.Errorf("review bundle %s: read links: %w", b.Dir, err)
	}
	return links, nil
}

// linkBandRank orders the bands of data links: uncertain, linked, then
// what an expert refused.
func linkBandRank(band string) int {
	switch band {
	case kg.LinkBandUncertain:
		return 0
	case kg.LinkBandLinked:
		return 1
	}
	return 3
}

// reviewable reports whether the page shows a data link: an uncertain or
// linked candidate, or one an expert decided; not a row entity's ROW_OF
// (its own table, from the data), nor a candidate the scores left out.
func reviewable(l kg.Link) bool {
	switch {
	case l.Type == kg.LinkRowOf:
		return false
	case l.Band == kg.LinkBandUncertain || l.Band == kg.LinkBandLinked:
		return true
	}
	return l.DecidedBy != "" && l.DecidedBy != "auto"
}

// linkDoubt is how doubtful the band of a data link is: for an uncertain
// link its score (the closer to linked, the likelier a mistake to leave it
// out), for a linked one 1 - score, for an expert's decision 0.
func linkDoubt(l kg.Link) float64 {
	switch l.Band {
	case kg.LinkBandUncertain:
		return l.Score
	case kg.LinkBandLinked:
		return 1 - l.Score
	}
	return 0
}

// linkItems returns the items of the data links the page shows, by band
// (see linkBandRank) and within a band most doubtful first; ties by name
// and target.
func linkItems(links []kg.Link) []Item {
	var items []Item
	for _, l := range links {
		if !reviewable(l) {
			continue
		}
		items = append(items, Item{
			Kind: KindLink, DataLink: l, Canonical: l.SrcName, ClusterID: l.Src, Doubt: linkDoubt(l),
			Members: []Member{{Name: l.SrcName}},
		})
	}
	slices.SortStableFunc(items, func(x, y Item) int {
		a, b := x.DataLink, y.DataLink
		return cmp.Or(cmp.Compare(linkBandRank(a.Band), linkBandRank(b.Band)), cmp.Compare(y.Doubt, x.Doubt),
			strings.Compare(a.SrcName, b.SrcName), strings.Compare(a.Target, b.Target),
			strings.Compare(a.Type, b.Type), strings.Compare(a.ID, b.ID))
	})
	return items
}

// describeTargets fills in the target of every link item from the
// bundle's table profiles and the row entities, and the type of its
// entity or concept.
func describeTargets(b *bundle.Bundle, items []Item, nodes map[string]nodeInfo) error {
	if !slices.ContainsFunc(items, func(it Item) bool { return it.Kind == KindLink }) {
		return nil
	}
	list, err := b.Tables()
	if err != nil {
		return fmt.Errorf("review bundle %s: read the table profiles: %w", b.Dir, err)
	}
	tables := map[string]kg.Table{}
	for _, t := range list {
		tables[t.Name] = t
	}
	for i := range items {
		it := &items[i]
		if it.Kind != KindLink {
			continue
		}
		it.Members[0].Type = nodes[it.DataLink.Src].typ
		it.Target = describeTarget(it.DataLink, tables, nodes)
	}
	return nil
}

// describeTarget is what the page shows of the target of l.
func describeTarget(l kg.Link, tables map[string]kg.Table, nodes map[string]nodeInfo) TargetView {
	p, err := consolidate.ParseTarget(l.Target)
	if err != nil {
		return TargetView{Kind: targetTable, Table: l.Target, Problem: err.Error()}
	}
	v := TargetView{Kind: targetTable, Table: p.Table, Column: p.Column, Key: p.Key}
	t, ok := tables[p.Table]
	if !ok {
		v.Problem = fmt.Sprintf("the bundle has no table %q", p.Table)
	}
	v.Rows = t.Rows
	switch {
	case p.Key != "":
		v.Kind = targetRow
		n := nodes[l.Dst]
		v.RowName = n.name
		for _, k := range slices.Sorted(maps.Keys(n.props)) {
			v.RowProps = append(v.RowProps, Prop{Name: k, Value: n.props[k]})
		}
	case p.Column != "":
		v.Kind = targetColumn
		if i := slices.IndexFunc(t.Columns, func(c kg.Column) bool { return c.Name == p.Column }); i >= 0 {
			v.Columns = []kg.Column{t.Columns[i]}
		} else if ok {
			v.Problem = fmt.Sprintf("the table %q has no column %q", p.Table, p.Column)
		}
	default:
		v.Columns = t.Columns[:min(len(t.Columns), maxColumns)]
		v.MoreColumns = len(t.Columns) - len(v.Columns)
	}
	return v
}

// memberEvidence is the evidence the page shows for a member of an item:
// its merge log row's, or for a link's entity the link's.
func memberEvidence(it Item, m Member) []string {
	if it.Kind == KindLink {
		return it.DataLink.Evidence
	}
	return m.Merge.Evidence
}

// evidenceSnippet is snippet for a chunk reference; a row reference
// TABLE[KEY] of a link's evidence is shown as it is.
func evidenceSnippet(ref string, chunks map[string]*kg.Chunk, uris map[string]string, contextBytes int) Snippet {
	if _, _, _, err := parseEvidence(ref); err != nil {
		if t, err := consolidate.ParseTarget(ref); err == nil && t.Key != "" {
			return Snippet{Ref: ref, Where: "row " + t.Key + " of table " + t.Table}
		}
	}
	return snippet(ref, chunks, uris, contextBytes)
}

// linkStatus returns the overrides' decision on the link from name to
// target; the last entry wins, as the file is appended to.
func linkStatus(o *consolidate.Overrides, name, target string) Status {
	var s Status
	if o.Links == nil {
		return s
	}
	for _, x := range o.Links.MustLink {
		if consolidate.SameLink(x, name, target) {
			s = Status{Kind: statusAccepted, Decision: x.Decision}
		}
	}
	for _, x := range o.Links.CannotLink {
		if consolidate.SameLink(x, name, target) {
			s = Status{Kind: statusRejected, Decision: x.Decision}
		}
	}
	return s
}

// linkProblem says why the overrides file cannot name a data link: its
// entity has no name (once folded), or its target does not parse; "" when
// it can.
func linkProblem(l kg.Link) string {
	if err := (consolidate.TargetLink{Entity: l.SrcName, Target: l.Target}).Check(); err != nil {
		return err.Error()
	}
	return ""
}
