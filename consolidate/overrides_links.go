package consolidate

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// LinkOverrides is the links: section of an overrides file: experts'
// decisions on links between an entity or concept, named by its name as
// the graph has it (matched after resolve.NormalizeName, like the merge
// decisions), and a target of the data layer: TABLE, TABLE.COLUMN or
// TABLE[KEY] (kg.RowTarget), matched exactly.
type LinkOverrides struct {
	// MustLink pairs are linked whatever their score.
	MustLink []TargetLink `yaml:"must_link,omitempty"`
	// CannotLink pairs are never linked: the link is logged in band none.
	CannotLink []TargetLink `yaml:"cannot_link,omitempty"`
}

// TargetLink is one decision between an entity or concept and a target.
type TargetLink struct {
	Entity   string `yaml:"entity"`
	Target   string `yaml:"target"`
	Decision `yaml:",inline"`
}

// Target is a parsed link target: a table, a column of it (Column set) or
// a row of it by its key (Key set).
type Target struct {
	Table, Column, Key string
}

// String is the target as links and overrides name it.
func (t Target) String() string {
	switch {
	case t.Key != "":
		return kg.RowTarget(t.Table, t.Key)
	case t.Column != "":
		return t.Table + "." + t.Column
	}
	return t.Table
}

// ParseTarget reads a link target: TABLE, TABLE.COLUMN or TABLE[KEY].
// A table name holds no dot, bracket or white space (kgforge's table names
// are lower snake case), so the first dot or [ ends it: after a dot, all
// the rest is the column ("parts.weight [kg]"); after a [, all up to the
// closing ] at the end is the key ("suppliers[S.1]"). White space around
// the table and the column is dropped; a key is kept as written.
func ParseTarget(s string) (Target, error) {
	const want = "want TABLE, TABLE.COLUMN or TABLE[KEY]"
	s = strings.TrimSpace(s)
	if s == "" {
		return Target{}, fmt.Errorf("empty target: %s", want)
	}
	var t Target
	switch i := strings.IndexAny(s, ".["); {
	case i < 0:
		t.Table = s
	case s[i] == '.':
		t.Table, t.Column = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
		if t.Column == "" {
			return Target{}, fmt.Errorf("target %q: empty column: %s", s, want)
		}
	default:
		if !strings.HasSuffix(s, "]") {
			return Target{}, fmt.Errorf("target %q: a row target ends with ]: %s", s, want)
		}
		t.Table, t.Key = strings.TrimSpace(s[:i]), s[i+1:len(s)-1]
		if strings.TrimSpace(t.Key) == "" {
			return Target{}, fmt.Errorf("target %q: empty key: %s", s, want)
		}
	}
	switch {
	case t.Table == "":
		return Target{}, fmt.Errorf("target %q: empty table: %s", s, want)
	case strings.ContainsAny(t.Table, "] \t\r\n"):
		return Target{}, fmt.Errorf("target %q: the table %q holds a bracket or white space: %s", s, t.Table, want)
	}
	return t, nil
}

// validate reports every link decision that lacks its entity, has a bad
// target, or is both a must_link and a cannot_link.
func (l *LinkOverrides) validate() error {
	var errs []error
	must := map[[2]string]bool{}
	for i, x := range l.MustLink {
		k, err := x.key()
		if err != nil {
			errs = append(errs, fmt.Errorf("links.must_link[%d]: %w", i, err))
			continue
		}
		must[k] = true
	}
	for i, x := range l.CannotLink {
		k, err := x.key()
		if err != nil {
			errs = append(errs, fmt.Errorf("links.cannot_link[%d]: %w", i, err))
		} else if must[k] {
			errs = append(errs, fmt.Errorf("links.cannot_link[%d]: %q and %s are also a must_link", i, x.Entity, k[1]))
		}
	}
	return errors.Join(errs...)
}

// key is the decision's pair as overrides compare it: the entity's name
// folded by resolve.NormalizeName, the target in its canonical form.
func (x TargetLink) key() ([2]string, error) {
	e := resolve.NormalizeName(x.Entity)
	if e == "" {
		return [2]string{}, fmt.Errorf("entity %q: an entity or concept name is required", x.Entity)
	}
	t, err := ParseTarget(x.Target)
	if err != nil {
		return [2]string{}, err
	}
	return [2]string{e, t.String()}, nil
}

// Check reports what keeps the overrides file from holding the decision:
// an entity with no name once folded, or a target that does not parse.
func (x TargetLink) Check() error {
	_, err := x.key()
	return err
}

// SameLink reports whether a decision on (entity, target) is about the
// link from a node named name to target: the names equal after
// resolve.NormalizeName, the targets in their canonical form.
func SameLink(x TargetLink, name, target string) bool {
	k, err := x.key()
	if err != nil {
		return false
	}
	t, err := ParseTarget(target)
	return err == nil && k == [2]string{resolve.NormalizeName(name), t.String()}
}

// AcceptLink records that entity links to target: a must_link, replacing
// any earlier decision on the pair.
func (o *Overrides) AcceptLink(entity, target string, d Decision) {
	o.removeLink(entity, target)
	o.Links.MustLink = append(o.Links.MustLink, TargetLink{Entity: entity, Target: target, Decision: stamp(d)})
}

// RejectLink records that entity does not link to target: a cannot_link,
// replacing any earlier decision on the pair.
func (o *Overrides) RejectLink(entity, target string, d Decision) {
	o.removeLink(entity, target)
	o.Links.CannotLink = append(o.Links.CannotLink, TargetLink{Entity: entity, Target: target, Decision: stamp(d)})
}

// removeLink drops every decision on the pair (entity, target), making
// sure o.Links is there to take a new one.
func (o *Overrides) removeLink(entity, target string) {
	if o.Links == nil {
		o.Links = &LinkOverrides{}
	}
	same := func(x TargetLink) bool { return SameLink(x, entity, target) }
	o.Links.MustLink = slices.DeleteFunc(o.Links.MustLink, same)
	o.Links.CannotLink = slices.DeleteFunc(o.Links.CannotLink, same)
}

// Link returns the link decisions as the link step takes them, each
// target in its canonical form (the form of kg.Link.Target). It is empty
// when the file has no links: section. Call it on validated overrides (as
// LoadOverrides returns them): a decision that does not parse is left out.
// The link step matches a Pair's Entity to a node's name after
// resolve.NormalizeName, and its Target to kg.Link.Target as a string.
// A decision that names no one is by "override", as merges are.
func (o *Overrides) Link() link.Overrides {
	var r link.Overrides
	if o == nil || o.Links == nil {
		return r
	}
	pair := func(x TargetLink) (link.Pair, bool) {
		t, err := ParseTarget(x.Target)
		return link.Pair{Entity: strings.TrimSpace(x.Entity), Target: t.String(), By: cmp.Or(x.By, "override")}, err == nil
	}
	for _, x := range o.Links.MustLink {
		if p, ok := pair(x); ok {
			r.MustLink = append(r.MustLink, p)
		}
	}
	for _, x := range o.Links.CannotLink {
		if p, ok := pair(x); ok {
			r.CannotLink = append(r.CannotLink, p)
		}
	}
	return r
}

// The kinds of link overrides in Resolution.UnmatchedOverrides.
const (
	OverrideLinkMust   resolve.OverrideKind = "links.must_link"
	OverrideLinkCannot resolve.OverrideKind = "links.cannot_link"
)

// unmatchedLinkOverrides reports the link decisions of o that the build
// could not apply, so that a typo in a hand edit is a warning, not a
// silent no-op: no entity or concept has the name, the data layer has no
// such table, column or row entity, or a must-link to a table or column
// that the link step did not link (a row entity's name: only extracted
// entities and concepts link to tables and columns). A row decision goes
// to the resolver, which reports its own failures.
func unmatchedLinkOverrides(o *Overrides, g kg.Graph) []resolve.OverrideIssue {
	if o == nil || o.Links == nil {
		return nil
	}
	names, ids, linked := map[string]bool{}, map[string]bool{}, map[[2]string]bool{}
	for _, n := range g.Nodes {
		ids[n.ID] = true
		if n.Kind == kg.NodeConcept {
			for _, a := range append([]string{n.Name}, n.Aliases...) {
				names[resolve.NormalizeName(a)] = true
			}
		}
	}
	for _, l := range g.Links {
		if l.Band == kg.LinkBandLinked {
			linked[[2]string{resolve.NormalizeName(l.SrcName), l.Target}] = true
		}
	}
	var out []resolve.OverrideIssue
	check := func(kind resolve.OverrideKind, x TargetLink) {
		t, err := ParseTarget(x.Target)
		if err != nil {
			return // LoadOverrides refused the file already
		}
		var why string
		switch name := resolve.NormalizeName(x.Entity); {
		case !names[name]:
			why = fmt.Sprintf("no entity or concept is named %q", x.Entity)
		case t.Key != "" && !ids[link.RowID(t.Table, t.Key)]:
			why = fmt.Sprintf("no row entity is %s: its table gives no row entities, or no row has that key", t)
		case t.Key == "" && t.Column != "" && !ids[kg.ColumnNodeID(t.Table, t.Column)]:
			why = fmt.Sprintf("the data layer has no column %s", t)
		case t.Key == "" && !ids[kg.TableNodeID(t.Table)]:
			why = fmt.Sprintf("the data layer has no table %q", t.Table)
		case kind == OverrideLinkMust && t.Key == "" && !linked[[2]string{name, t.String()}]:
			why = fmt.Sprintf("%q is not linked to %s after the link step: only an extracted entity or concept links to a table or column", x.Entity, t)
		default:
			return
		}
		out = append(out, resolve.OverrideIssue{Kind: kind, Refs: []string{x.Entity, x.Target}, Reason: why})
	}
	for _, x := range o.Links.MustLink {
		check(OverrideLinkMust, x)
	}
	for _, x := range o.Links.CannotLink {
		check(OverrideLinkCannot, x)
	}
	return out
}
