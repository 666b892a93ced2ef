package consolidate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// SetType gives the extracted entities of a name another type: every
// mention of Name (of type Type, any when empty; compared as Match says,
// see Link) is of type To before resolution, so that resolution's type
// guard takes it for a To. Row entities keep the type their table gives.
type SetType struct {
	Name     string `yaml:"name"`
	Type     string `yaml:"type,omitempty"`
	Match    Match  `yaml:"match,omitempty"`
	To       string `yaml:"to"`
	Decision `yaml:",inline"`
}

func (s SetType) ref() resolve.Ref { return resolve.Ref{Name: s.Name, Type: s.Type, Match: s.Match} }

// Names reports whether the entry names the surface: its name of the
// entry's type, as extracted.
func (s SetType) Names(x Surface) bool { return x.is(s.ref()) }

// The kinds of the overrides of overrides_entities.go, as the run report's
// unmatched overrides name them.
const (
	OverrideSetType   resolve.OverrideKind = "set_type"
	OverrideNotEntity resolve.OverrideKind = "not_entity"
)

// DropNotEntity is the reason a triplet is dropped when its subject or
// object is a name an expert marked as not an entity (Resolution's
// TripletsDropped).
const DropNotEntity = "not_entity"

// maxTypeLen bounds a type an expert sets: the loader's longest label.
const maxTypeLen = 64

// CheckType returns why t cannot be a type an expert sets, or nil: it must
// be label-safe, an ASCII letter followed by at most 63 ASCII letters,
// digits or underscores, and none of kgforge's own labels
// (kg.StructuralLabels) or "unknown" (the unknown type).
func CheckType(t string) error {
	switch {
	case t == "":
		return errors.New("empty type")
	case len(t) > maxTypeLen:
		return fmt.Errorf("type %q: longer than %d characters", t, maxTypeLen)
	case !isLetter(t[0]):
		return fmt.Errorf("type %q: want an ASCII letter first, then ASCII letters, digits or _", t)
	case strings.EqualFold(t, "unknown"):
		return fmt.Errorf("type %q: that is the unknown type; name a type", t)
	}
	for i := 1; i < len(t); i++ {
		if c := t[i]; !isLetter(c) && (c < '0' || c > '9') && c != '_' {
			return fmt.Errorf("type %q: %q is not a letter, digit or _: want an ASCII letter first, then ASCII letters, digits or _", t, c)
		}
	}
	for _, l := range kg.StructuralLabels {
		if strings.EqualFold(t, l) {
			return fmt.Errorf("type %q: %s is a label of kgforge's own nodes (%s)", t, l, strings.Join(kg.StructuralLabels, ", "))
		}
	}
	return nil
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// validateEntities reports the set_type and not_entity entries that are
// empty, have an unknown match or a type that is not label-safe, and a
// name set to two types.
func (o *Overrides) validateEntities() error {
	var errs []error
	to := map[string]int{} // ref key → first set_type entry
	for i, s := range o.SetType {
		switch {
		case strings.TrimSpace(s.Name) == "":
			errs = append(errs, fmt.Errorf("set_type[%d]: empty name", i))
		case checkMatch(s.Match) != nil:
			errs = append(errs, fmt.Errorf("set_type[%d]: %w", i, checkMatch(s.Match)))
		case CheckType(s.To) != nil:
			errs = append(errs, fmt.Errorf("set_type[%d]: to: %w", i, CheckType(s.To)))
		default:
			k := s.ref().Key()
			if j, ok := to[k]; ok && o.SetType[j].To != s.To {
				errs = append(errs, fmt.Errorf("set_type[%d]: %s is set to %q here and to %q by set_type[%d]", i, s.ref(), s.To, o.SetType[j].To, j))
			} else if !ok {
				to[k] = i
			}
		}
	}
	for i, s := range o.NotEntity {
		if strings.TrimSpace(s.Name) == "" {
			errs = append(errs, fmt.Errorf("not_entity[%d]: empty name", i))
		} else if err := checkMatch(s.Match); err != nil {
			errs = append(errs, fmt.Errorf("not_entity[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Retype records that the entities s names are of type s.To, replacing an
// earlier set_type of the same name and type.
func (o *Overrides) Retype(s SetType) {
	k := s.ref().Key()
	o.SetType = slices.DeleteFunc(o.SetType, func(x SetType) bool { return x.ref().Key() == k })
	s.Decision = stamp(s.Decision)
	o.SetType = append(o.SetType, s)
}

// MarkNotEntity records that the name of s is not an entity, replacing an
// earlier not_entity of the same name.
func (o *Overrides) MarkNotEntity(s Single) {
	k := s.ref().Key()
	o.NotEntity = slices.DeleteFunc(o.NotEntity, func(x Single) bool { return x.ref().Key() == k })
	s.Decision = stamp(s.Decision)
	o.NotEntity = append(o.NotEntity, s)
}

// NameKey is the key under which an entry without match names name: two
// names of one NameKey are one name to an overrides file.
func NameKey(name string) string { return resolve.Ref{Name: name}.Key() }

// NotEntityDrop is what the build dropped for one not_entity entry.
type NotEntityDrop struct {
	// Ref is the entry's name, with its type and match when it has them.
	Ref string `json:"ref"`
	// Surfaces are the names as extracted that it dropped, "NAME [TYPE]".
	Surfaces []string `json:"surfaces"`
	// Mentions counts the mentions dropped (in triplets or not); Triplets
	// the triplets dropped because their subject or object was one.
	Mentions int    `json:"mentions"`
	Triplets int    `json:"triplets"`
	By       string `json:"by,omitempty"`
	Note     string `json:"note,omitempty"`
}

// extractionOverrides is the outcome of applying set_type and not_entity
// to an extraction.
type extractionOverrides struct {
	triplets []kg.Triplet
	entities []kg.Mention
	drops    []NotEntityDrop
	dropped  int // triplets
	issues   []resolve.OverrideIssue
}

// entityIndex finds the set_type and not_entity entries that name a
// mention, by the two keys a mention's name can be named by.
type entityIndex struct {
	o       *Overrides
	setType map[string][]int // name key, type aside → set_type entries
	notEnt  map[string][]int // name key, type aside → not_entity entries
	seen    map[[2]string]verdict
}

// verdict is what the entries say of one surface: its type after
// set_type, and the not_entity entry that drops it (-1 for none).
type verdict struct {
	typ     string
	setBy   int // set_type entry, -1 for none
	dropBy  int
	changed bool
}

func untypedKey(r resolve.Ref) string { r.Type = ""; return r.Key() }

func newEntityIndex(o *Overrides) *entityIndex {
	x := &entityIndex{o: o, setType: map[string][]int{}, notEnt: map[string][]int{}, seen: map[[2]string]verdict{}}
	for i, s := range o.SetType {
		k := untypedKey(s.ref())
		x.setType[k] = append(x.setType[k], i)
	}
	for i, s := range o.NotEntity {
		k := untypedKey(s.ref())
		x.notEnt[k] = append(x.notEnt[k], i)
	}
	return x
}

// of returns the verdict on the surface name (white space folded) of type
// typ: the last set_type entry that names it sets its type (the file is
// appended to, so the latest decision wins); the first not_entity entry
// that names it, as extracted or as set, drops it.
func (x *entityIndex) of(name, typ string) verdict {
	if v, ok := x.seen[[2]string{name, typ}]; ok {
		return v
	}
	v := verdict{typ: typ, setBy: -1, dropBy: -1}
	keys := []string{untypedKey(resolve.Ref{Name: name}), untypedKey(resolve.Ref{Name: name, Match: resolve.MatchSurface})}
	for _, k := range keys {
		for _, i := range x.setType[k] {
			if s := x.o.SetType[i]; s.ref().Matches(name, typ) && i > v.setBy {
				v.setBy, v.typ = i, s.To
			}
		}
	}
	v.changed = v.typ != typ
	for _, k := range keys {
		for _, i := range x.notEnt[k] {
			r := x.o.NotEntity[i].ref()
			if (r.Matches(name, typ) || r.Matches(name, v.typ)) && (v.dropBy < 0 || i < v.dropBy) {
				v.dropBy = i
			}
		}
	}
	x.seen[[2]string{name, typ}] = v
	return v
}

// applyToExtraction applies the set_type and not_entity entries to the
// extraction, before resolution: a mention a set_type names takes its
// type; one a not_entity names is dropped, and so is every triplet whose
// subject or object it is, the other end of which stays as a mention of
// an entity. triplets and entities are not modified: the result holds
// copies when anything changed, and keeps their order.
func (o *Overrides) applyToExtraction(triplets []kg.Triplet, entities []kg.Mention) extractionOverrides {
	out := extractionOverrides{triplets: triplets, entities: entities}
	if o == nil || len(o.SetType)+len(o.NotEntity) == 0 {
		return out
	}
	x := newEntityIndex(o)
	usedSet := make([]bool, len(o.SetType))
	drops := make([]NotEntityDrop, len(o.NotEntity))
	surfaces := make([]map[string]bool, len(o.NotEntity))
	// apply returns the mention as the entries make it, and the not_entity
	// entry that drops it (-1 for none).
	apply := func(m kg.Mention) (kg.Mention, int) {
		name := foldSpace(m.Surface)
		v := x.of(name, m.Type)
		if i := v.dropBy; i >= 0 {
			drops[i].Mentions++
			if surfaces[i] == nil {
				surfaces[i] = map[string]bool{}
			}
			surfaces[i][fmt.Sprintf("%s [%s]", name, cmp.Or(m.Type, "unknown"))] = true
			return m, i
		}
		if v.setBy >= 0 {
			usedSet[v.setBy] = true
			m.Type = v.typ
		}
		return m, -1
	}
	out.triplets = make([]kg.Triplet, 0, len(triplets))
	out.entities = make([]kg.Mention, 0, len(entities))
	var kept []kg.Mention // the other ends of dropped triplets
	for _, t := range triplets {
		s, sDrop := apply(t.Subject)
		ob, oDrop := apply(t.Object)
		if sDrop < 0 && oDrop < 0 {
			t.Subject, t.Object = s, ob
			out.triplets = append(out.triplets, t)
			continue
		}
		out.dropped++
		if sDrop >= 0 {
			drops[sDrop].Triplets++
		} else {
			kept = append(kept, s)
		}
		if oDrop >= 0 && oDrop != sDrop {
			drops[oDrop].Triplets++
		} else if oDrop < 0 {
			kept = append(kept, ob)
		}
	}
	for _, m := range entities {
		if m, drop := apply(m); drop < 0 {
			out.entities = append(out.entities, m)
		}
	}
	out.entities = append(out.entities, kept...)
	for i, s := range o.SetType {
		if !usedSet[i] {
			out.issues = append(out.issues, resolve.OverrideIssue{Kind: OverrideSetType, Refs: []string{s.ref().String()}, Reason: "matches no extracted entity"})
		}
	}
	for i, s := range o.NotEntity {
		if drops[i].Mentions == 0 {
			out.issues = append(out.issues, resolve.OverrideIssue{Kind: OverrideNotEntity, Refs: []string{s.ref().String()}, Reason: "matches no extracted entity"})
			continue
		}
		d := drops[i]
		d.Ref, d.By, d.Note = s.ref().String(), s.By, s.Note
		d.Surfaces = slices.Sorted(maps.Keys(surfaces[i]))
		out.drops = append(out.drops, d)
	}
	return out
}

// joinTypes gives the node a typed must-link made its type: for each
// must_link entry with a type whose names all ended in one node, that
// node's type property and label. A must-link that did not join its names
// is an issue of the resolver already.
func joinTypes(o *Overrides, nodes []kg.Node, surfaces map[string]*surface, r resolved) {
	if o == nil {
		return
	}
	var typed []Link
	for _, l := range o.MustLink {
		if l.Type != "" {
			typed = append(typed, l)
		}
	}
	if len(typed) == 0 {
		return
	}
	byKey := map[string][]*surface{}
	for _, k := range slices.Sorted(maps.Keys(surfaces)) {
		s := surfaces[k]
		for _, key := range []string{untypedKey(resolve.Ref{Name: s.name}), untypedKey(resolve.Ref{Name: s.name, Match: resolve.MatchSurface})} {
			byKey[key] = append(byKey[key], s)
		}
	}
	at := map[string]int{}
	for i, n := range nodes {
		at[n.ID] = i
	}
	for _, l := range typed {
		clusters := map[string]bool{}
		for _, ref := range []resolve.Ref{refA(l), refB(l)} {
			for _, s := range byKey[untypedKey(ref)] {
				if c := r.clusterOf[s.key]; c != nil && ref.Matches(s.name, s.typ) {
					clusters[c.ID] = true
				}
			}
		}
		if len(clusters) != 1 {
			continue
		}
		for id := range clusters {
			if i, ok := at[id]; ok {
				setNodeType(&nodes[i], l.Type)
			}
		}
	}
}

func refA(l Link) resolve.Ref { a, _ := l.refs(); return a }
func refB(l Link) resolve.Ref { _, b := l.refs(); return b }

// setNodeType makes typ the type of an entity node: its type property and
// its one label besides Entity.
func setNodeType(n *kg.Node, typ string) {
	n.Properties = maps.Clone(n.Properties)
	if n.Properties == nil {
		n.Properties = map[string]string{}
	}
	n.Properties["type"] = typ
	n.Labels = []string{"Entity", typ}
}
