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

// sameName reports whether two names denote the same entity in an
// overrides file.
func sameName(a, b string) bool { return consolidate.SameName(a, b) }

// samePair reports whether the link names the pair a, b in either order.
func samePair(l consolidate.Link, a, b string) bool {
	return (sameName(l.A, a) && sameName(l.B, b)) || (sameName(l.A, b) && sameName(l.B, a))
}

// pairStatus returns the overrides' decision on the pair a, b; the last
// entry wins, as the file is appended to.
func pairStatus(o *consolidate.Overrides, a, b string) Status {
	var s Status
	for _, l := range o.MustLink {
		if samePair(l, a, b) {
			s = Status{Kind: statusAccepted, Decision: l.Decision}
		}
	}
	for _, l := range o.CannotLink {
		if samePair(l, a, b) {
			s = Status{Kind: statusRejected, Decision: l.Decision}
		}
	}
	return s
}

// memberStatus returns the overrides' keep-apart decision on a name.
func memberStatus(o *consolidate.Overrides, name string) Status {
	var s Status
	for _, k := range o.KeepApart {
		if sameName(k.Name, name) {
			s = Status{Kind: statusSplit, Decision: k.Decision}
		}
	}
	return s
}
