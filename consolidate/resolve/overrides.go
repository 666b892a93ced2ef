package resolve

import (
	"fmt"
	"slices"
	"strings"
)

// Overrides are expert decisions, each naming entities by a Ref: by key or
// by name (a name matches every entity whose name is equal after
// NormalizeName), or by surface form as written, each optionally of one
// type.
type Overrides struct {
	// MustLink pairs are merged whatever their similarity and types.
	MustLink []NamePair
	// CannotLink pairs never end in one cluster, even through others.
	CannotLink []NamePair
	// KeepApart entities stay alone.
	KeepApart []Ref
	// Rename gives the cluster that holds Member the canonical name Name.
	Rename []Rename
}

// Match says how a reference compares its name with an entity's.
type Match string

// The ways of matching.
const (
	// MatchName, the default, takes the reference for a key, else for a
	// name: it matches every entity whose name is equal after
	// NormalizeName ("Apple", "apple" and "APPLE." are one name).
	MatchName Match = ""
	// MatchSurface matches the entities whose surface form is the
	// reference's as written: case, accents and punctuation kept, runs of
	// white space folded to one space ("Apple" is not "apple").
	MatchSurface Match = "surface"
)

// Ref names entities in an override: Name, compared as Match says, and,
// when Type is not empty, only the entities of that type (folded as types
// are compared; "unknown" names the entities of unknown type).
type Ref struct {
	Name  string `json:"name" yaml:"name"`
	Type  string `json:"type,omitempty" yaml:"type,omitempty"`
	Match Match  `json:"match,omitempty" yaml:"match,omitempty"`
}

// String is the reference as an issue names it: the name alone for a
// plain name, else with its type and how it matches, e.g.
// `"apple" [Fruit] as written`.
func (f Ref) String() string {
	if f.Type == "" && f.Match == MatchName {
		return f.Name
	}
	s := fmt.Sprintf("%q", f.Name)
	if f.Type != "" {
		s += " [" + f.Type + "]"
	}
	if f.Match == MatchSurface {
		s += " as written"
	}
	return s
}

// Matches reports whether the reference names an entity of this name
// and type, as an entity resolution matches it by name or surface (a
// reference that is a key is not a name here).
func (f Ref) Matches(name, typ string) bool {
	if f.Type != "" && normalizeType(f.Type) != normalizeType(typ) {
		return false
	}
	if f.Match == MatchSurface {
		return foldSpace(f.Name) == foldSpace(name)
	}
	return compactName(f.Name) == compactName(name)
}

// Key is the reference in a canonical form: two references of one Key
// name the same entities.
func (f Ref) Key() string {
	name, typ := compactName(f.Name), "*"
	if f.Match != MatchName {
		name = string(f.Match) + ":" + foldSpace(f.Name)
	}
	if f.Type != "" {
		typ = normalizeType(f.Type)
	}
	return typ + "\x00" + name
}

// compactName is a name as a name override matches it: NormalizeName
// without spaces (the features' name).
func compactName(s string) string { return strings.Join(strings.Fields(NormalizeName(s)), "") }

// quoted is String with a plain name quoted too.
func (f Ref) quoted() string {
	if s := f.String(); s != f.Name {
		return s
	}
	return fmt.Sprintf("%q", f.Name)
}

// NamePair names two entities: A with AType and B with BType, both
// compared as Match says (see Ref).
type NamePair struct {
	A     string `json:"a" yaml:"a"`
	B     string `json:"b" yaml:"b"`
	AType string `json:"a_type,omitempty" yaml:"a_type,omitempty"`
	BType string `json:"b_type,omitempty" yaml:"b_type,omitempty"`
	Match Match  `json:"match,omitempty" yaml:"match,omitempty"`
}

// Refs returns the two references of the pair.
func (p NamePair) Refs() (a, b Ref) {
	return Ref{Name: p.A, Type: p.AType, Match: p.Match}, Ref{Name: p.B, Type: p.BType, Match: p.Match}
}

// Rename gives the cluster holding Member (of type Type, compared as Match
// says: see Ref) the canonical name Name.
type Rename struct {
	Member string `json:"member" yaml:"member"`
	Name   string `json:"name" yaml:"name"`
	Type   string `json:"type,omitempty" yaml:"type,omitempty"`
	Match  Match  `json:"match,omitempty" yaml:"match,omitempty"`
}

// Ref returns the reference to the member.
func (rn Rename) Ref() Ref { return Ref{Name: rn.Member, Type: rn.Type, Match: rn.Match} }

// refIndex finds the entities a Ref names.
type refIndex struct {
	r       *resolver
	byKey   map[string]int
	byName  map[string][]int // compact normalised name → entities
	bySurf  map[string][]int // surface, white space folded → entities
	matched map[Ref][]int
}

func newRefIndex(r *resolver) *refIndex {
	x := &refIndex{r: r, byKey: make(map[string]int, len(r.ents)), byName: map[string][]int{}, bySurf: map[string][]int{}, matched: map[Ref][]int{}}
	for i, e := range r.ents {
		x.byKey[e.Key] = i
		x.byName[r.feat[i].name] = append(x.byName[r.feat[i].name], i)
		s := foldSpace(e.Name)
		x.bySurf[s] = append(x.bySurf[s], i)
	}
	return x
}

// match returns the entities ref names, in index order: by key first,
// for a plain name; then by name or surface; then those of its type.
func (x *refIndex) match(ref Ref) []int {
	if m, ok := x.matched[ref]; ok {
		return m
	}
	var m []int
	switch i, ok := x.byKey[ref.Name]; {
	case ok && ref.Match == MatchName:
		m = []int{i}
	case ref.Match == MatchSurface:
		m = x.bySurf[foldSpace(ref.Name)]
	default:
		if f := x.r.keys.features(ref.Name, ""); f.name != "" {
			m = x.byName[f.name]
		}
	}
	if ref.Type != "" {
		typ := normalizeType(ref.Type)
		m = slices.DeleteFunc(slices.Clone(m), func(i int) bool { return x.r.feat[i].typ != typ })
	}
	x.matched[ref] = m
	return m
}

func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

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
	x := newRefIndex(r)

	for _, ref := range ov.KeepApart {
		m, _ := x.entities(OverrideKeepApart, ref)
		for _, i := range m {
			r.keepApart[i] = true
		}
	}
	var cannot [][2]int
	for _, p := range ov.CannotLink {
		a, b, ok := x.pair(OverrideCannotLink, p)
		for _, ij := range crossPairs(a, b, ok) {
			if k := pairKey(ij[0], ij[1]); !r.cannot[k] {
				r.cannot[k] = true
				cannot = append(cannot, ij)
			}
		}
	}
	must := newUnionFind(n)
	seen := map[uint64]bool{}
	for _, p := range ov.MustLink {
		a, b, ok := x.pair(OverrideMustLink, p)
		if !ok {
			continue
		}
		if reason := r.mustLinkConflict(must, cannot, append(slices.Clone(a), b...)); reason != "" {
			ra, rb := p.Refs()
			x.issue(OverrideMustLink, reason, ra, rb)
			continue
		}
		for _, ij := range crossPairs(a, b, ok) {
			if i, j := ij[0], ij[1]; !seen[pairKey(i, j)] {
				seen[pairKey(i, j)] = true
				must.union(i, j)
				r.mustLinks = append(r.mustLinks, [2]int32{int32(min(i, j)), int32(max(i, j))})
			}
		}
	}
	for k, rn := range ov.Rename {
		r.applyRename(x, k, rn)
	}
}

// crossPairs returns every pair of an entity of a and one of b, but an
// entity with itself; none unless ok.
func crossPairs(a, b []int, ok bool) [][2]int {
	var out [][2]int
	for _, i := range a {
		for _, j := range b {
			if ok && i != j {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// applyRename records the k-th rename, or the issue that stops it.
func (r *resolver) applyRename(x *refIndex, k int, rn Rename) {
	name := foldSpace(rn.Name)
	to := Ref{Name: rn.Name}
	m, ok := x.entities(OverrideRename, rn.Ref(), rn.Ref(), to)
	switch {
	case !ok:
		return
	case name == "":
		x.issue(OverrideRename, "the new name is empty", rn.Ref(), to)
		return
	}
	for _, i := range m {
		if old, ok := r.renames[i]; ok && old.name != name {
			x.issue(OverrideRename, fmt.Sprintf("entity %s is already renamed to %q", r.ents[i].Key, old.name), rn.Ref(), to)
			continue
		}
		r.renames[i] = renameTarget{name: name, order: k, ref: rn.Ref().String()}
	}
}

// issue records an override that cannot be applied, naming its references.
func (x *refIndex) issue(kind OverrideKind, reason string, refs ...Ref) {
	names := make([]string, len(refs))
	for i, f := range refs {
		names[i] = f.String()
	}
	x.r.issues = append(x.r.issues, OverrideIssue{Kind: kind, Refs: names, Reason: reason})
}

// entities returns the entities ref names, or records why there are none
// (an unknown match, no entity) naming the override by refs (ref alone
// when none are given).
func (x *refIndex) entities(kind OverrideKind, ref Ref, refs ...Ref) ([]int, bool) {
	if len(refs) == 0 {
		refs = []Ref{ref}
	}
	if ref.Match != MatchName && ref.Match != MatchSurface {
		x.issue(kind, fmt.Sprintf("unknown match %q: want %q or none", ref.Match, MatchSurface), refs...)
		return nil, false
	}
	m := x.match(ref)
	if len(m) == 0 {
		x.issue(kind, "matches no entity", refs...)
	}
	return m, len(m) > 0
}

// pair matches both references of a pair, or records why it cannot.
func (x *refIndex) pair(kind OverrideKind, p NamePair) (a, b []int, ok bool) {
	ra, rb := p.Refs()
	if p.Match != MatchName && p.Match != MatchSurface {
		x.issue(kind, fmt.Sprintf("unknown match %q: want %q or none", p.Match, MatchSurface), ra, rb)
		return nil, nil, false
	}
	a, b = x.match(ra), x.match(rb)
	var none []string
	if len(a) == 0 {
		none = append(none, ra.quoted())
	}
	if len(b) == 0 {
		none = append(none, rb.quoted())
	}
	if len(none) > 0 {
		x.issue(kind, strings.Join(none, " and ")+" match no entity", ra, rb)
		return nil, nil, false
	}
	if len(a) == 1 && len(b) == 1 && a[0] == b[0] {
		x.issue(kind, "both name the same entity "+x.r.ents[a[0]].Key, ra, rb)
		return nil, nil, false
	}
	return a, b, true
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
