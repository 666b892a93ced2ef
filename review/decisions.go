package review

import (
	"kgforge/consolidate"
)

// Status is what the overrides file says of an item or a member.
type Status struct {
	Kind string // "accepted", "rejected", "split", or "" when undecided
	consolidate.Decision
}

// Decided reports whether the overrides file holds a decision.
func (s Status) Decided() bool { return s.Kind != "" }

// The status kinds.
const (
	statusAccepted = "accepted"
	statusRejected = "rejected"
	statusSplit    = "split"
)

// surface is the surface form a member of an item shows.
func surface(m Member) consolidate.Surface { return consolidate.Surface{Name: m.Name, Type: m.Type} }

// sameSurface reports whether two members are one surface as the
// overrides file can name it: the same name as written, of one type. The
// file cannot tell such a pair apart.
func sameSurface(a, b Member) bool {
	return consolidate.Single{Name: a.Name, Type: typeRef(a.Type), Match: consolidate.MatchSurface}.Names(surface(b))
}

// typeRef is a member's type as an overrides entry names it: an unknown
// type is "unknown", as "" would be any type.
func typeRef(t string) string {
	if t == "" {
		return "unknown"
	}
	return t
}

// pairEntry is the entry the page writes for a decision on the pair a, b:
// by name, which names every spelling of the two, when their names differ
// once folded; else by surface as written and type, the only way to tell
// them apart.
func pairEntry(a, b Member, d consolidate.Decision) consolidate.Link {
	if !consolidate.SameName(a.Name, b.Name) {
		return consolidate.Link{A: a.Name, B: b.Name, Decision: d}
	}
	return consolidate.Link{A: a.Name, AType: typeRef(a.Type), B: b.Name, BType: typeRef(b.Type), Match: consolidate.MatchSurface, Decision: d}
}

// splitEntry is the entry the page writes to split member m off an item:
// by name, unless another member of the item has the same name once
// folded; then by surface as written and type.
func splitEntry(it Item, m Member, d consolidate.Decision) consolidate.Single {
	for _, o := range it.Members {
		if (o.Name != m.Name || o.Type != m.Type) && consolidate.SameName(o.Name, m.Name) {
			return consolidate.Single{Name: m.Name, Type: typeRef(m.Type), Match: consolidate.MatchSurface, Decision: d}
		}
	}
	return consolidate.Single{Name: m.Name, Decision: d}
}

// pairStatus returns the overrides' decision on the pair a, b; the last
// entry wins, as the file is appended to.
func pairStatus(o *consolidate.Overrides, a, b Member) Status {
	var s Status
	for _, l := range o.MustLink {
		if l.Names(surface(a), surface(b)) {
			s = Status{Kind: statusAccepted, Decision: l.Decision}
		}
	}
	for _, l := range o.CannotLink {
		if l.Names(surface(a), surface(b)) {
			s = Status{Kind: statusRejected, Decision: l.Decision}
		}
	}
	return s
}

// memberStatus returns the overrides' keep-apart decision on a member.
func memberStatus(o *consolidate.Overrides, m Member) Status {
	var s Status
	for _, k := range o.KeepApart {
		if k.Names(surface(m)) {
			s = Status{Kind: statusSplit, Decision: k.Decision}
		}
	}
	return s
}
