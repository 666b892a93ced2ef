package review

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kgforge/consolidate"
	"kgforge/kg"
)

// The items of this file come after those of the merge and link logs
// (buildItems): one name under two types, which an expert may join, and
// every extracted entity node, which an expert may give another type or
// mark as not an entity. Row entities take their name and type from the
// data, so they have no node item; they are joined like any other node.

// entityItems returns the join items (KindJoin), by name, then types, and
// the node items (KindNode), by type, then name, of the merge log's
// nodes; nodes are the bundle's entity nodes, whose properties tell the
// row entities.
func entityItems(merges []kg.MergeDecision, nodes map[string]nodeInfo) (joins, each []Item) {
	clusters := map[string][]kg.MergeDecision{}
	for _, m := range merges {
		clusters[m.ClusterID] = append(clusters[m.ClusterID], m)
	}
	ids := slices.Sorted(maps.Keys(clusters))
	isRow := func(id string) bool { return nodes[id].props[kg.PropTable] != "" }
	typeOf := func(id string) string {
		if n, ok := nodes[id]; ok && n.typ != "" {
			return n.typ
		}
		return clusters[id][0].MemberType
	}

	// One name under several types: the first member of each node of that
	// name, by NameKey, in node order.
	byName := map[string][]kg.MergeDecision{}
	for _, id := range ids {
		seen := map[string]bool{}
		for _, m := range clusters[id] {
			if k := consolidate.NameKey(m.Member); !seen[k] {
				seen[k] = true
				byName[k] = append(byName[k], m)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		ms := byName[k]
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				a, b := ms[i], ms[j]
				if sameType(a.MemberType, b.MemberType) {
					continue
				}
				it := Item{
					Kind: KindJoin, ClusterID: a.ClusterID, Canonical: a.Canonical,
					Link:    kg.MergeLink{ClusterID: a.ClusterID, BCluster: b.ClusterID, A: a.Member, B: b.Member},
					Members: []Member{{Name: a.Member, Type: a.MemberType, Merge: a}, {Name: b.Member, Type: b.MemberType, Merge: b}},
				}
				// The row entity's type wins, else the type of the name
				// mentioned most.
				switch {
				case isRow(b.ClusterID) && !isRow(a.ClusterID):
					it.JoinType = typeOf(b.ClusterID)
				case isRow(a.ClusterID):
					it.JoinType = typeOf(a.ClusterID)
				case b.Mentions > a.Mentions:
					it.JoinType = b.MemberType
				default:
					it.JoinType = a.MemberType
				}
				joins = append(joins, it)
			}
		}
	}

	for _, id := range ids {
		if isRow(id) {
			continue
		}
		ms := clusters[id]
		slices.SortFunc(ms, func(x, y kg.MergeDecision) int {
			return cmp.Or(cmp.Compare(btoi(y.Member == y.Canonical), btoi(x.Member == x.Canonical)),
				cmp.Compare(y.Mentions, x.Mentions), strings.Compare(x.Member, y.Member), strings.Compare(x.MemberType, y.MemberType))
		})
		it := Item{Kind: KindNode, ClusterID: id, Canonical: ms[0].Canonical, JoinType: typeOf(id)}
		for _, m := range ms {
			it.Members = append(it.Members, Member{Name: m.Member, Type: m.MemberType, Merge: m})
		}
		each = append(each, it)
	}
	slices.SortStableFunc(each, func(x, y Item) int {
		return cmp.Or(strings.Compare(strings.ToLower(x.JoinType), strings.ToLower(y.JoinType)), strings.Compare(x.Canonical, y.Canonical))
	})
	return joins, each
}

// sameType reports whether two types are one type to resolution: equal
// once case and white space are folded, "unknown" the empty type.
func sameType(a, b string) bool {
	norm := func(t string) string {
		t = kg.NormalizeName(t)
		if t == "unknown" {
			return ""
		}
		return t
	}
	return norm(a) == norm(b)
}

// bundleTypes returns the entity types of the bundle, sorted, for the
// page to offer when an expert sets a type.
func bundleTypes(merges []kg.MergeDecision, nodes map[string]nodeInfo) []string {
	set := map[string]bool{}
	for _, n := range nodes {
		if n.typ != "" {
			set[n.typ] = true
		}
	}
	for _, m := range merges {
		if m.MemberType != "" {
			set[m.MemberType] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// The status kinds of the items of this file.
const (
	statusJoined    = "joined"
	statusTyped     = "typed"
	statusNotEntity = "not_entity"
)

// joinEntry is the entry the page writes to join the two members of a
// join item as one node of type typ: a must-link of the two names, each
// restricted to its type, by name, so that it holds for every spelling.
func joinEntry(a, b Member, typ string, d consolidate.Decision) consolidate.Link {
	return consolidate.Link{A: a.Name, AType: typeRef(a.Type), B: b.Name, BType: typeRef(b.Type), Type: typ, Decision: d}
}

// setTypeEntries are the entries the page writes to give the node of a
// node item the type typ: a set_type of each of its names, of the type
// it was extracted with.
func setTypeEntries(it Item, typ string, d consolidate.Decision) []consolidate.SetType {
	var out []consolidate.SetType
	seen := map[consolidate.Surface]bool{}
	for _, m := range it.Members {
		s := consolidate.Surface{Name: consolidate.NameKey(m.Name), Type: kg.NormalizeName(typeRef(m.Type))}
		if !seen[s] {
			seen[s] = true
			out = append(out, consolidate.SetType{Name: m.Name, Type: typeRef(m.Type), To: typ, Decision: d})
		}
	}
	return out
}

// notEntityEntries are the entries the page writes to mark the names of
// a node item as not entities: one not_entity per name, of any type.
func notEntityEntries(it Item, d consolidate.Decision) []consolidate.Single {
	var out []consolidate.Single
	seen := map[string]bool{}
	for _, m := range it.Members {
		if k := consolidate.NameKey(m.Name); !seen[k] {
			seen[k] = true
			out = append(out, consolidate.Single{Name: m.Name, Decision: d})
		}
	}
	return out
}

// joinStatus returns the overrides' decision on the pair of a join item:
// joined by a must-link (with the type it sets), kept apart by a
// cannot-link; the last entry wins.
func joinStatus(o *consolidate.Overrides, a, b Member) Status {
	var s Status
	for _, l := range o.MustLink {
		if l.Names(surface(a), surface(b)) {
			s = Status{Kind: statusJoined, Decision: l.Decision, Type: l.Type}
		}
	}
	for _, l := range o.CannotLink {
		if l.Names(surface(a), surface(b)) {
			s = Status{Kind: statusRejected, Decision: l.Decision}
		}
	}
	return s
}

// nodeStatus returns the overrides' decision on the node of a node item:
// not an entity when a not_entity names one of its names, else the type
// a set_type gives one of them; a member already of the type an entry
// sets (the build that obeyed it) counts as named.
func nodeStatus(o *consolidate.Overrides, it Item) Status {
	var s Status
	for _, m := range it.Members {
		for _, x := range o.SetType {
			anyType := consolidate.SetType{Name: x.Name, Match: x.Match}
			if x.Names(surface(m)) || (anyType.Names(surface(m)) && sameType(m.Type, x.To)) {
				s = Status{Kind: statusTyped, Decision: x.Decision, Type: x.To}
			}
		}
	}
	for _, m := range it.Members {
		for _, x := range o.NotEntity {
			if x.Names(surface(m)) {
				return Status{Kind: statusNotEntity, Decision: x.Decision}
			}
		}
	}
	return s
}

// otherActions says which actions an item of kind k takes.
func otherActions(k Kind) string {
	switch k {
	case KindPair:
		return "accept or reject it instead"
	case KindLink:
		return "accept or reject the link instead"
	case KindCluster:
		return "split one of its members instead"
	case KindJoin:
		return "join its two nodes instead"
	default:
		return "set its type or mark it as not an entity instead"
	}
}

// entityDecision returns the change to the overrides file that action
// makes on the item it (typ is the form's type field), what the log says
// of it, or why it cannot be made.
func entityDecision(it Item, action, typ string, d consolidate.Decision) (apply func(*consolidate.Overrides), logArgs []any, problem string) {
	want := map[string]Kind{actionJoin: KindJoin, actionType: KindNode, actionNotEntity: KindNode}[action]
	if it.Kind != want {
		return nil, nil, fmt.Sprintf("%s does not apply to a %s item: %s", action, it.Kind, otherActions(it.Kind))
	}
	if action != actionNotEntity {
		if err := consolidate.CheckType(typ); err != nil {
			return nil, nil, fmt.Sprintf("the type: %v", err)
		}
	}
	switch action {
	case actionJoin:
		a, b := it.Members[0], it.Members[1]
		entry := joinEntry(a, b, typ, d)
		return func(o *consolidate.Overrides) { o.Accept(entry) }, []any{"a", a.Name, "a_type", a.Type, "b", b.Name, "b_type", b.Type, "type", typ}, ""
	case actionType:
		entries := setTypeEntries(it, typ, d)
		return func(o *consolidate.Overrides) {
			for _, e := range entries {
				o.Retype(e)
			}
		}, []any{"node", it.Canonical, "type", typ}, ""
	default:
		entries := notEntityEntries(it, d)
		return func(o *consolidate.Overrides) {
			for _, e := range entries {
				o.MarkNotEntity(e)
			}
		}, []any{"node", it.Canonical}, ""
	}
}
