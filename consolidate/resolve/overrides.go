package resolve

import (
	"fmt"
	"strings"
)

// renameTarget is the canonical name a rename override asks for; order is
// the override's place in Overrides.Rename, the earlier winning a conflict.
type renameTarget struct {
	name  string
	order int
	ref   string
}

// applyOverrides matches the overrides to entities and records them:
// keep-apart first, then cannot-link, then must-link (in the order given,
// each skipped if it would join a cannot-link pair or a keep-apart entity),
// then renames. Every override that cannot be applied becomes an issue.
func (r *resolver) applyOverrides() {
	n := len(r.ents)
	ov := r.cfg.Overrides
	r.keepApart = make([]bool, n)
	r.cannot = map[uint64]bool{}
	r.renames = map[int]renameTarget{}

	byKey := make(map[string]int, n)
	byName := map[string][]int{}
	for i, e := range r.ents {
		byKey[e.Key] = i
		byName[r.feat[i].name] = append(byName[r.feat[i].name], i)
	}
	match := func(ref string) []int {
		if i, ok := byKey[ref]; ok {
			return []int{i}
		}
		if f := r.keys.features(ref, ""); f.name != "" {
			return byName[f.name]
		}
		return nil
	}
	issue := func(kind OverrideKind, reason string, refs ...string) {
		r.issues = append(r.issues, OverrideIssue{Kind: kind, Refs: refs, Reason: reason})
	}
	// pairOf matches both names of a pair, or reports why it cannot.
	pairOf := func(kind OverrideKind, p NamePair) (a, b []int, ok bool) {
		a, b = match(p.A), match(p.B)
		var none []string
		if len(a) == 0 {
			none = append(none, fmt.Sprintf("%q", p.A))
		}
		if len(b) == 0 {
			none = append(none, fmt.Sprintf("%q", p.B))
		}
		if len(none) > 0 {
			issue(kind, strings.Join(none, " and ")+" match no entity", p.A, p.B)
			return nil, nil, false
		}
		if len(a) == 1 && len(b) == 1 && a[0] == b[0] {
			issue(kind, "both name the same entity "+r.ents[a[0]].Key, p.A, p.B)
			return nil, nil, false
		}
		return a, b, true
	}

	for _, ref := range ov.KeepApart {
		m := match(ref)
		if len(m) == 0 {
			issue(OverrideKeepApart, "matches no entity", ref)
		}
		for _, i := range m {
			r.keepApart[i] = true
		}
	}

	var cannot [][2]int
	for _, p := range ov.CannotLink {
		a, b, ok := pairOf(OverrideCannotLink, p)
		if !ok {
			continue
		}
		for _, i := range a {
			for _, j := range b {
				if i != j && !r.cannot[pairKey(i, j)] {
					r.cannot[pairKey(i, j)] = true
					cannot = append(cannot, [2]int{i, j})
				}
			}
		}
	}

	must := newUnionFind(n)
	seen := map[uint64]bool{}
	for _, p := range ov.MustLink {
		a, b, ok := pairOf(OverrideMustLink, p)
		if !ok {
			continue
		}
		if reason := r.mustLinkConflict(must, cannot, append(append([]int{}, a...), b...)); reason != "" {
			issue(OverrideMustLink, reason, p.A, p.B)
			continue
		}
		for _, i := range a {
			for _, j := range b {
				if i != j && !seen[pairKey(i, j)] {
					seen[pairKey(i, j)] = true
					must.union(i, j)
					r.mustLinks = append(r.mustLinks, [2]int32{int32(min(i, j)), int32(max(i, j))})
				}
			}
		}
	}

	for k, rn := range ov.Rename {
		m := match(rn.Member)
		name := strings.Join(strings.Fields(rn.Name), " ")
		switch {
		case len(m) == 0:
			issue(OverrideRename, "matches no entity", rn.Member, rn.Name)
			continue
		case name == "":
			issue(OverrideRename, "the new name is empty", rn.Member, rn.Name)
			continue
		}
		for _, i := range m {
			if old, ok := r.renames[i]; ok && old.name != name {
				issue(OverrideRename, fmt.Sprintf("entity %s is already renamed to %q", r.ents[i].Key, old.name), rn.Member, rn.Name)
				continue
			}
			r.renames[i] = renameTarget{name: name, order: k, ref: rn.Member}
		}
	}
}

// mustLinkConflict returns why the entities cannot all be linked, or "".
func (r *resolver) mustLinkConflict(must *unionFind, cannot [][2]int, ents []int) string {
	for _, i := range ents {
		if r.keepApart[i] {
			return fmt.Sprintf("entity %s must stay apart", r.ents[i].Key)
		}
	}
	roots := map[int]bool{}
	for _, i := range ents {
		roots[must.find(i)] = true
	}
	if i, j, ok := r.twoAnchors(r.membersOf(must, roots)); ok {
		return fmt.Sprintf("it would join %s and %s, two different records (%s, %s)", r.ents[i].Key, r.ents[j].Key, r.ents[i].Anchor, r.ents[j].Anchor)
	}
	for _, c := range cannot {
		if roots[must.find(c[0])] && roots[must.find(c[1])] {
			return fmt.Sprintf("it would join %s and %s, which must not link", r.ents[c[0]].Key, r.ents[c[1]].Key)
		}
	}
	return ""
}

// membersOf returns, in index order, the anchored entities whose must-link
// set has one of the roots.
func (r *resolver) membersOf(must *unionFind, roots map[int]bool) []int {
	var out []int
	for _, i := range r.anchored {
		if roots[must.find(i)] {
			out = append(out, i)
		}
	}
	return out
}
