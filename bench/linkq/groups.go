package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"kgforge/kg"
)

// GroupResult is what became of a group of names: duplicates should end
// in one node (or stand uncertain near the top of the review order),
// distinct names in nodes of their own.
type GroupResult struct {
	Names  []string `json:"names"`
	Row    string   `json:"row,omitempty"`
	Issue  bool     `json:"issue,omitempty"`
	State  string   `json:"state"`
	OK     bool     `json:"ok"`
	Nodes  int      `json:"nodes"` // distinct nodes the names ended in
	Detail string   `json:"detail,omitempty"`
}

// The states of a group.
const (
	StateOneNode   = "one node"
	StateUncertain = "uncertain"
	StateSplit     = "split"
	StateAbsent    = "absent"
	StateApart     = "apart"
	StateMerged    = "merged"
)

// groupNodes returns, for each name of a group, the nodes it ended in; an
// entity SAME_AS a row counts as that row's node, and a name the graph has
// no node for counts as the row's node when a chunk holding the name
// MENTIONS the row (the dictionary found it).
func (ix *index) groupNodes(names []string, row string) [][]string {
	out := make([][]string, len(names))
	for i, name := range names {
		var ids []string
		for _, id := range ix.nodesNamed(name) {
			if rows := ix.sameAs[id]; len(rows) > 0 && ix.rowNode[rows[0]] != "" {
				id = ix.rowNode[rows[0]]
			}
			ids = appendUnique(ids, id)
		}
		if len(ids) == 0 && row != "" && ix.rowNode[row] != "" && ix.dictionaryFound(name, row) {
			ids = []string{ix.rowNode[row]}
		}
		out[i] = ids
	}
	return out
}

// dictionaryFound reports whether a chunk whose text holds name MENTIONS
// the row.
func (ix *index) dictionaryFound(name, row string) bool {
	k := Key(name)
	for _, c := range ix.chunkKeys() {
		if ix.chunkRow[[2]string{c.id, row}] && containsWords(c.key, k) {
			return true
		}
	}
	return false
}

func scoreDuplicates(g *Gold, ix *index, top int) []GroupResult {
	order := reviewOrder(ix)
	var out []GroupResult
	for _, grp := range g.Duplicates {
		r := GroupResult{Names: grp.Names, Row: grp.Row, Issue: grp.Issue}
		nodes := ix.groupNodes(grp.Names, grp.Row)
		var all, missing []string
		for i, ids := range nodes {
			if len(ids) == 0 {
				missing = append(missing, grp.Names[i])
			}
			for _, id := range ids {
				all = appendUnique(all, id)
			}
		}
		r.Nodes = len(all)
		switch {
		case len(grp.Names)-len(missing) < 2:
			r.State, r.Detail = StateAbsent, "not in the graph: "+strings.Join(missing, ", ")
		case len(all) == 1:
			r.State, r.OK = StateOneNode, true
		default:
			r.State, r.Detail = StateSplit, "nodes: "+ix.describe(all)
			if rank, n := uncertainRank(order, grp); rank > 0 {
				r.State, r.OK = StateUncertain, rank <= top
				r.Detail = fmt.Sprintf("rank %d of the %d uncertain items of the review order", rank, n)
			}
		}
		out = append(out, r)
	}
	return out
}

// reviewItem is one uncertain item of the review page: a pair of names the
// resolver left apart, or an uncertain data link (B is then its target's
// name, Target its TABLE[KEY]).
type reviewItem struct {
	A, B, Target string
	Doubt        float64
}

// reviewOrder returns the uncertain items in the order the review page
// lists them (review/items.go, review/links.go): the uncertain merge pairs,
// most doubtful first, less those an uncertain SAME_AS link stands for;
// then the uncertain data links, highest score first; ties by name.
func reviewOrder(ix *index) []reviewItem {
	covered := map[[2]string]bool{}
	var links []reviewItem
	for _, l := range ix.d.Links {
		if l.Band != kg.LinkBandUncertain || l.Type == kg.LinkRowOf {
			continue
		}
		if l.Type == kg.LinkSameAs {
			covered[[2]string{min(l.Src, l.Dst), max(l.Src, l.Dst)}] = true
		}
		b := l.Target
		if n := ix.node[l.Dst]; n != nil {
			b = n.Name
		}
		links = append(links, reviewItem{A: l.SrcName, B: b, Target: l.Target, Doubt: l.Score})
	}
	var pairs []reviewItem
	for _, l := range ix.d.MergeLinks {
		if l.Decision == "uncertain" && !covered[[2]string{min(l.ClusterID, l.BCluster), max(l.ClusterID, l.BCluster)}] {
			pairs = append(pairs, reviewItem{A: l.A, B: l.B, Doubt: l.Doubt})
		}
	}
	byDoubt := func(x, y reviewItem) int {
		return cmp.Or(cmp.Compare(y.Doubt, x.Doubt), strings.Compare(x.A, y.A), strings.Compare(x.B, y.B))
	}
	slices.SortStableFunc(pairs, byDoubt)
	slices.SortStableFunc(links, byDoubt)
	return append(pairs, links...)
}

// uncertainRank returns the 1-based rank in the review order of the first
// uncertain item between two names of the group (or a name and the
// group's row), and how many uncertain items there are; 0 if none.
func uncertainRank(order []reviewItem, grp GoldGroup) (int, int) {
	keys := map[string]bool{}
	for _, n := range grp.Names {
		keys[Key(n)] = true
	}
	for i, it := range order {
		a, b := Key(it.A), Key(it.B)
		if keys[a] && a != b && (keys[b] || (grp.Row != "" && it.Target == grp.Row)) {
			return i + 1, len(order)
		}
	}
	return 0, len(order)
}

func scoreDistinct(g *Gold, ix *index) []GroupResult {
	var out []GroupResult
	for _, grp := range g.Distinct {
		r := GroupResult{Names: grp.Names, State: StateApart, OK: true}
		owner := map[string]string{} // node → first name in it
		present := 0
		for i, ids := range ix.groupNodes(grp.Names, "") {
			if len(ids) > 0 {
				present++
			}
			for _, id := range ids {
				if o, ok := owner[id]; ok && o != grp.Names[i] {
					r.State, r.OK = StateMerged, false
					r.Detail = strings.TrimPrefix(r.Detail+"; ", "; ") + o + " and " + grp.Names[i] + " in one node"
				}
				owner[id] = grp.Names[i]
			}
		}
		r.Nodes = len(owner)
		if present < 2 {
			r.State, r.OK = StateAbsent, true
		}
		out = append(out, r)
	}
	return out
}

// companyTypes are the entity types that say company: a person typed so is
// wrong.
var companyTypes = map[string]bool{
	"company": true, "organization": true, "organisation": true, "org": true, "supplier": true,
	"customer": true, "manufacturer": true, "corporation": true, "business": true, "dealer": true,
	"retailer": true, "distributor": true, "firm": true, "enterprise": true, "vendor": true,
}

// PersonResult is what became of one person of the corpus.
type PersonResult struct {
	Name  string   `json:"name"`
	Types []string `json:"types,omitempty"`
	OK    bool     `json:"ok"`
	State string   `json:"state"`
}

// scorePersons checks that no node of a person's name is typed as a
// company, is a row entity or is SAME_AS one.
func scorePersons(g *Gold, ix *index) []PersonResult {
	var out []PersonResult
	for _, p := range g.Persons {
		r := PersonResult{Name: p.Name, OK: true, State: "ok"}
		ids := ix.nodesNamed(p.Name)
		if len(ids) == 0 {
			r.State = StateAbsent
		}
		var bad []string
		for _, id := range ids {
			n := ix.node[id]
			for _, t := range append(slices.Clone(n.Labels), n.Properties["type"]) {
				if t == "" || t == "Entity" {
					continue
				}
				r.Types = appendUnique(r.Types, t)
				if companyTypes[strings.ToLower(t)] {
					bad = appendUnique(bad, "typed "+t)
				}
			}
			for _, row := range ix.rowsOfNode(id) {
				bad = appendUnique(bad, "is row "+row)
			}
		}
		if len(bad) > 0 {
			r.OK, r.State = false, strings.Join(bad, "; ")
		}
		slices.Sort(r.Types)
		out = append(out, r)
	}
	return out
}

// Usefulness is how much the link step connects documents to rows.
type Usefulness struct {
	Chunks            int `json:"chunks"`
	ChunksLinked      int `json:"chunks_linked"`       // chunks that MENTION at least one row entity
	ChunksGold        int `json:"chunks_gold"`         // chunks the gold says mention a row
	RowEntities       int `json:"row_entities"`        // as built
	RowsMentioned     int `json:"rows_mentioned"`      // row entities some chunk MENTIONS
	GoldRows          int `json:"gold_rows"`           // rows of the gold
	GoldRowsMentioned int `json:"gold_rows_mentioned"` // gold rows the documents mention (by the gold)
}

func usefulness(g *Gold, ix *index) Usefulness {
	u := Usefulness{Chunks: len(ix.d.Chunks), RowEntities: len(ix.rowOf), GoldRows: len(g.Rows)}
	linked := map[string]bool{}
	for p := range ix.chunkRow {
		linked[p[0]] = true
	}
	u.ChunksLinked = len(linked)
	for id := range ix.rowOf {
		if len(ix.mentions[id]) > 0 {
			u.RowsMentioned++
		}
	}
	goldChunks, goldRows := map[string]bool{}, map[string]bool{}
	for p := range goldMentions(g, ix, true) {
		goldChunks[p[0]], goldRows[p[1]] = true, true
	}
	u.ChunksGold = len(goldChunks)
	for _, row := range g.Rows {
		if slices.ContainsFunc(row.Surfaces, func(s GoldSurface) bool { return len(s.At) > 0 }) {
			u.GoldRowsMentioned++
		}
	}
	return u
}

// scoreValues scores links from a name that is a column's value (a
// customer, plant, product, batch) to that column; the link step may make
// none, which the note says.
func scoreValues(g *Gold, ix *index) Score {
	s := Score{Kind: KindValue}
	cols := valueColumns(g)
	found := map[string]bool{}
	for _, l := range ix.d.Links {
		want, ok := cols[Key(l.SrcName)]
		if !ok || l.Band != kg.LinkBandLinked || l.Type == kg.LinkSameAs {
			continue
		}
		if slices.Contains(want, l.Target) || slices.ContainsFunc(want, func(c string) bool { return targetTable(c) == targetTable(l.Target) }) {
			s.hit()
			found[Key(l.SrcName)] = true
		} else {
			s.wrong(fmt.Sprintf("%q -[%s]-> %s", l.SrcName, l.Type, l.Target))
		}
	}
	for _, v := range g.Values {
		if !slices.ContainsFunc(v.At, func(at string) bool { return ix.hasSource(fileOf(at)) }) {
			continue // named only in documents the bundle does not hold
		}
		ok := found[Key(v.Name)] || slices.ContainsFunc(v.Aliases, func(a string) bool { return found[Key(a)] })
		s.want(ok, v.Name+" → "+strings.Join(v.Columns, ", "))
	}
	if s.TP+s.FP == 0 {
		s.Note = "the bundle links no value of a column (no kg.Link from such a name)"
	}
	s.finish()
	return s
}

// valueColumns maps each name key of the gold values to their columns.
func valueColumns(g *Gold) map[string][]string {
	cols := map[string][]string{}
	for _, v := range g.Values {
		for _, n := range append([]string{v.Name}, v.Aliases...) {
			cols[Key(n)] = v.Columns
		}
	}
	return cols
}

// describe names nodes with their types or rows, for a report.
func (ix *index) describe(ids []string) string {
	var parts []string
	for _, id := range ids {
		n := ix.node[id]
		what := n.Properties["type"]
		if row := ix.rowOf[id]; row != "" {
			what = row
		}
		parts = append(parts, fmt.Sprintf("%q (%s)", n.Name, what))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
