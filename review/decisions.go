package review

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kgforge/bundle"
	"kgforge/consolidate"
)

// Status is what the overrides file says of an item or a member.
type Status struct {
	// Kind is "accepted", "rejected", "split", "joined", "typed",
	// "not_entity", or "" when undecided.
	Kind string
	// Type is the type a join or a set_type gives the node.
	Type string
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

// ErrOverridesInBundle means the overrides file given to New lies inside
// the bundle under review: a decision written there would change a bundle,
// which is written once and then read-only, and make it invalid.
var ErrOverridesInBundle = errors.New("the overrides file is inside the bundle under review")

// outsideBundle returns an error wrapping ErrOverridesInBundle when path,
// with every symbolic link resolved, lies inside b's directory or is b's
// archive: where Save would write (the file's directory resolved, as the
// new file is renamed over a link), or what a link there points to.
func outsideBundle(path string, b *bundle.Bundle) error {
	refuse := func() error {
		return fmt.Errorf("review: overrides file %s: %w (%s); keep it beside the bundle, for example in the pipeline's directory", path, ErrOverridesInBundle, b.Dir)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("review: overrides file %s: %w", path, err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return fmt.Errorf("review: overrides file %s: %w", path, err)
	}
	places := []string{filepath.Join(dir, filepath.Base(abs))}
	if target, err := filepath.EvalSymlinks(places[0]); err == nil {
		places = append(places, target)
	}
	var roots []string
	if bdir, err := filepath.EvalSymlinks(b.Dir); err == nil {
		roots = append(roots, bdir)
	} else if bdir, err := filepath.Abs(b.Dir); err == nil {
		roots = append(roots, bdir)
	}
	for _, p := range places {
		for _, root := range roots {
			if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
				return refuse()
			}
		}
		if b.Archive != "" {
			if st, err := os.Stat(b.Archive); err == nil {
				if pst, err := os.Stat(p); err == nil && os.SameFile(st, pst) {
					return refuse()
				}
			}
		}
	}
	return nil
}
