package review

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/kg"
)

// Kind says what an item asks the reviewer about.
type Kind string

// The kinds of items.
const (
	// KindPair is one scored pair of names of merge_links.parquet: accept
	// or reject it.
	KindPair Kind = "pair"
	// KindCluster is an entity node of several members: split a member off.
	KindCluster Kind = "cluster"
	// KindLink is one candidate link of links.parquet, from an entity or
	// concept to a table, column or row: accept or reject it.
	KindLink Kind = "link"
	// KindJoin is one name under two types, two nodes: join them as one
	// node of a type chosen (entities.go).
	KindJoin Kind = "join"
	// KindNode is an extracted entity node: set its type, or mark its
	// names as not entities (entities.go).
	KindNode Kind = "node"
)

// The decisions of merge_links.parquet, in the order the page lists them.
const (
	linkUncertain  = "uncertain"
	linkMerged     = "merged"
	linkSplit      = "split"
	linkCannotLink = "cannot_link"
)

// likelihood returns how likely the two names of a pair of the merge log
// links are one thing — the score the page ranks the uncertain band by,
// most likely first — and what the page calls it: the resolver's
// calibrated score (merge_links' score) when the log's uncertain pairs
// carry one, else their cosine (a bundle before format 1.6, or a resolver
// that decided by cosine alone).
func likelihood(links []kg.MergeLink) (score func(kg.MergeLink) float64, name string) {
	if slices.ContainsFunc(links, func(l kg.MergeLink) bool { return l.Decision == linkUncertain && l.Score > 0 }) {
		return func(l kg.MergeLink) float64 { return l.Score }, rankedByScore
	}
	return func(l kg.MergeLink) float64 { return l.Cosine }, rankedByCosine
}

// What likelihood ranks by: only the calibrated score is a probability,
// which the page shows as "likely the same".
const (
	rankedByScore  = "calibrated score"
	rankedByCosine = "cosine"
)

// maxNeighbours bounds the relationships shown for one node.
const maxNeighbours = 10

// Item is one entry of the review page. Items are numbered from 1 in the
// order the page shows them; the number is stable for a given bundle.
type Item struct {
	N    int
	Kind Kind
	// Link is the scored pair of a KindPair item.
	Link kg.MergeLink
	// DataLink is the candidate link of a KindLink item, and Target what
	// the bundle's profile says of its target.
	DataLink kg.Link
	Target   TargetView
	// Canonical and ClusterID name the node the item is about: for a
	// pair, the node of A; for a link, its entity or concept.
	Canonical string
	ClusterID string
	// Doubt orders the items: the link's doubt, or for a cluster the
	// highest doubt of its links; for a data link, see linkDoubt.
	Doubt float64
	// Likelihood, for an uncertain pair, is how likely its names are one
	// thing (see likelihood): uncertain pairs are listed by it, highest
	// first, instead of by doubt.
	Likelihood float64
	// Members are the names the item shows: A and B of a pair, every
	// member of a cluster, the entity or concept of a link (with the
	// link's evidence).
	Members []Member
	// Nodes are the entity nodes involved (two for a pair left apart),
	// with their neighbourhood.
	Nodes []NodeView
	// JoinType is, for a join item, the type the page proposes for the
	// node the two make (a row entity's, else the type of the name
	// mentioned most); for a node item, the node's type.
	JoinType string
}

// Member is one surface form of an item, with its row of the merge log.
type Member struct {
	Name     string
	Type     string
	Merge    kg.MergeDecision // zero when the merge log has no row for it
	Evidence []Snippet
}

// Snippet is a piece of a chunk around one evidence span, cut in three so
// the span can be highlighted: Before + Match + After is the piece's text.
type Snippet struct {
	Ref           string // the evidence reference, CHUNK_ID:START-END
	Before, Match string
	After         string
	Where         string // the source and section of the chunk
	// Problem says why no text is shown (an unknown chunk, a malformed
	// reference); empty when there is text.
	Problem string
}

// NodeView is an entity node and its relationships to other entities.
type NodeView struct {
	ID, Name, Type string
	Aliases        []string
	Neighbours     []Neighbour
	More           int // relationships not listed
}

// Neighbour is one relationship of a node: Out is true when the node is
// its subject.
type Neighbour struct {
	Type  string
	Other string
	Out   bool
}

// mergeLog is what the page shows, read once from a bundle.
type mergeLog struct {
	buildID  string
	items    []Item
	rankedBy string   // what the uncertain pairs are ranked by (see likelihood)
	types    []string // the entity types of the bundle, sorted
}

// nodeInfo is what the page keeps of an entity node.
type nodeInfo struct {
	name, typ string
	aliases   []string
	props     map[string]string
}

// readLog reads the merge log of b and everything its items show. The
// chunks and edges are streamed, keeping only those the items need.
func readLog(ctx context.Context, b *bundle.Bundle, contextBytes int) (*mergeLog, error) {
	var merges []kg.MergeDecision
	if err := b.Merges(ctx, func(m kg.MergeDecision) error { merges = append(merges, m); return nil }); err != nil {
		return nil, fmt.Errorf("review bundle %s: read merges: %w", b.Dir, err)
	}
	var links []kg.MergeLink
	if err := b.MergeLinks(ctx, func(l kg.MergeLink) error { links = append(links, l); return nil }); err != nil {
		return nil, fmt.Errorf("review bundle %s: read merge links: %w", b.Dir, err)
	}
	dataLinks, err := readLinks(ctx, b)
	if err != nil {
		return nil, err
	}
	nodes := map[string]nodeInfo{}
	err = b.Nodes(ctx, func(n kg.Node) error {
		if n.Kind == kg.NodeConcept {
			nodes[n.ID] = nodeInfo{name: n.Name, typ: nodeType(n), aliases: n.Aliases, props: n.Properties}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("review bundle %s: read nodes: %w", b.Dir, err)
	}
	items := buildItems(merges, links, dataLinks)
	joins, each := entityItems(merges, nodes)
	items = append(append(items, joins...), each...)
	for i := range items {
		items[i].N = i + 1
	}
	_, rankedBy := likelihood(links)
	if err := describeTargets(b, items, nodes); err != nil {
		return nil, err
	}

	// What the items show of the rest of the bundle.
	wantChunk := map[string]*kg.Chunk{}
	views := map[string]*NodeView{}
	for _, it := range items {
		for _, m := range it.Members {
			for _, ev := range memberEvidence(it, m) {
				if id, _, _, err := parseEvidence(ev); err == nil {
					wantChunk[id] = nil
				}
			}
		}
		for _, id := range itemNodes(it) {
			if _, ok := views[id]; !ok {
				n, ok := nodes[id]
				if !ok {
					n = nodeInfo{name: it.Canonical}
				}
				views[id] = &NodeView{ID: id, Name: n.name, Type: n.typ, Aliases: n.aliases}
			}
		}
	}
	err = b.Chunks(ctx, func(c kg.Chunk) error {
		if _, ok := wantChunk[c.ID]; ok {
			wantChunk[c.ID] = &c
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("review bundle %s: read chunks: %w", b.Dir, err)
	}
	err = b.Edges(ctx, func(e kg.Edge) error {
		src, okSrc := nodes[e.Src]
		dst, okDst := nodes[e.Dst]
		if !okSrc || !okDst {
			return nil // a structural edge: HAS_CHUNK, MENTIONS, HAS_COLUMN, JOINS
		}
		if v := views[e.Src]; v != nil {
			v.add(Neighbour{Type: e.Type, Other: dst.name, Out: true})
		}
		if v := views[e.Dst]; v != nil && e.Src != e.Dst {
			v.add(Neighbour{Type: e.Type, Other: src.name})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("review bundle %s: read edges: %w", b.Dir, err)
	}

	uris := map[string]string{}
	for _, s := range b.Manifest.Sources {
		uris[s.ID] = s.URI
	}
	for i := range items {
		it := &items[i]
		for j := range it.Members {
			m := &it.Members[j]
			for _, ev := range memberEvidence(*it, *m) {
				m.Evidence = append(m.Evidence, evidenceSnippet(ev, wantChunk, uris, contextBytes))
			}
		}
		for _, id := range itemNodes(*it) {
			it.Nodes = append(it.Nodes, *views[id])
		}
	}
	return &mergeLog{buildID: b.Manifest.BuildID, items: items, rankedBy: rankedBy, types: bundleTypes(merges, nodes)}, nil
}

func (v *NodeView) add(n Neighbour) {
	if len(v.Neighbours) < maxNeighbours {
		v.Neighbours = append(v.Neighbours, n)
	} else {
		v.More++
	}
}

// nodeType is an entity node's type: its type property, else its label
// other than Entity.
func nodeType(n kg.Node) string {
	if t := n.Properties["type"]; t != "" {
		return t
	}
	for _, l := range n.Labels {
		if l != "Entity" {
			return l
		}
	}
	return ""
}

// itemNodes returns the ids of the nodes an item involves: for a link,
// its entity or concept (the target is shown from the profile).
func itemNodes(it Item) []string {
	if (it.Kind == KindPair || it.Kind == KindJoin) && it.Link.BCluster != "" && it.Link.BCluster != it.Link.ClusterID {
		return []string{it.Link.ClusterID, it.Link.BCluster}
	}
	return []string{it.ClusterID}
}

// linkRank orders the decisions of links: uncertain pairs first, then
// merges, then what a split or an override cut.
func linkRank(decision string) int {
	switch decision {
	case linkUncertain:
		return 0
	case linkMerged:
		return 1
	case linkSplit:
		return 2
	case linkCannotLink:
		return 3
	}
	return 4
}

// buildItems orders the review: pairs by decision (uncertain, merged,
// split, cannot_link) and within each the uncertain ones most likely
// duplicates first (see likelihood), the others most doubtful first, with
// the data links beside them (see linkItems); then every node of several
// members, by the highest doubt of its links, then size. Ties are broken
// by name, so the order is stable.
func buildItems(merges []kg.MergeDecision, links []kg.MergeLink, dataLinks []kg.Link) []Item {
	pairs, clusters := mergeItems(merges, links)
	linked := linkItems(dataLinks)
	items := append(withoutSameAs(pairs, linked), linked...)
	// Both lists are in order: a stable sort by group interleaves them.
	slices.SortStableFunc(items, func(x, y Item) int { return cmp.Compare(itemGroup(x), itemGroup(y)) })
	items = append(items, clusters...)
	for i := range items {
		items[i].N = i + 1
	}
	return items
}

// withoutSameAs drops the pairs of an extracted entity and a row entity
// that a SAME_AS link item shows: the link names the row by its table and
// key, and a decision on it reaches the resolver as the pair's would.
func withoutSameAs(pairs, links []Item) []Item {
	nodes := func(a, b string) [2]string { return [2]string{min(a, b), max(a, b)} }
	covered := map[[2]string]bool{}
	for _, it := range links {
		if l := it.DataLink; l.Type == kg.LinkSameAs {
			covered[nodes(l.Src, l.Dst)] = true
		}
	}
	return slices.DeleteFunc(pairs, func(it Item) bool { return covered[nodes(it.Link.ClusterID, it.Link.BCluster)] })
}

// itemGroup places pairs and data links on the page: uncertain pairs,
// uncertain links, merged pairs, linked links, cut pairs, links an expert
// refused.
func itemGroup(it Item) int {
	if it.Kind == KindLink {
		return 2*linkBandRank(it.DataLink.Band) + 1
	}
	return 2 * linkRank(it.Link.Decision)
}

// mergeItems returns the items of the merge log: the scored pairs, in
// order, and the nodes of several members, in order.
func mergeItems(merges []kg.MergeDecision, links []kg.MergeLink) (pairs, nodes []Item) {
	type memberKey struct{ cluster, name string }
	byMember := map[memberKey]kg.MergeDecision{}
	byName := map[string]kg.MergeDecision{}
	clusters := map[string][]kg.MergeDecision{}
	for _, m := range merges {
		byMember[memberKey{m.ClusterID, m.Member}] = m
		if _, ok := byName[m.Member]; !ok {
			byName[m.Member] = m
		}
		clusters[m.ClusterID] = append(clusters[m.ClusterID], m)
	}
	member := func(cluster, name string) Member {
		m, ok := byMember[memberKey{cluster, name}]
		if !ok {
			m = byName[name]
		}
		return Member{Name: name, Type: m.MemberType, Merge: m}
	}

	score, _ := likelihood(links)
	// rank orders the pairs within their decision, highest first: the
	// uncertain ones by likelihood, the others by doubt.
	rank := func(l kg.MergeLink) float64 {
		if l.Decision == linkUncertain {
			return score(l)
		}
		return l.Doubt
	}
	links = slices.Clone(links)
	slices.SortStableFunc(links, func(x, y kg.MergeLink) int {
		return cmp.Or(
			cmp.Compare(linkRank(x.Decision), linkRank(y.Decision)),
			cmp.Compare(rank(y), rank(x)),
			cmp.Compare(y.Cosine, x.Cosine),
			strings.Compare(x.A, y.A), strings.Compare(x.B, y.B),
			strings.Compare(x.ClusterID, y.ClusterID), strings.Compare(x.BCluster, y.BCluster))
	})
	doubt := map[string]float64{}
	items := make([]Item, 0, len(links))
	for _, l := range links {
		canonical := byMember[memberKey{l.ClusterID, l.A}].Canonical
		if canonical == "" && len(clusters[l.ClusterID]) > 0 {
			canonical = clusters[l.ClusterID][0].Canonical
		}
		items = append(items, Item{
			Kind: KindPair, Link: l, Canonical: canonical, ClusterID: l.ClusterID, Doubt: l.Doubt, Likelihood: score(l),
			Members: []Member{member(l.ClusterID, l.A), member(cmp.Or(l.BCluster, l.ClusterID), l.B)},
		})
		if l.Decision == linkMerged {
			doubt[l.ClusterID] = max(doubt[l.ClusterID], l.Doubt)
		}
	}

	var multi []Item
	for id, ms := range clusters {
		if len(ms) < 2 {
			continue
		}
		slices.SortFunc(ms, func(x, y kg.MergeDecision) int {
			// The canonical member first, then by mentions and name.
			return cmp.Or(cmp.Compare(btoi(y.Member == y.Canonical), btoi(x.Member == x.Canonical)),
				cmp.Compare(y.Mentions, x.Mentions), strings.Compare(x.Member, y.Member))
		})
		it := Item{Kind: KindCluster, Canonical: ms[0].Canonical, ClusterID: id, Doubt: doubt[id]}
		for _, m := range ms {
			it.Members = append(it.Members, Member{Name: m.Member, Type: m.MemberType, Merge: m})
		}
		multi = append(multi, it)
	}
	slices.SortFunc(multi, func(x, y Item) int {
		return cmp.Or(cmp.Compare(y.Doubt, x.Doubt), cmp.Compare(len(y.Members), len(x.Members)),
			strings.Compare(x.Canonical, y.Canonical), strings.Compare(x.ClusterID, y.ClusterID))
	})
	return items, multi
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
