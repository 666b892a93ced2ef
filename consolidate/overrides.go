package consolidate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kgforge/consolidate/resolve"

	"github.com/goccy/go-yaml"
)

// Overrides is an overrides file: the decisions of domain experts, applied
// by every build before automatic merging (docs/resolution.md). Entities are
// named by name: every surface whose name is equal after resolve.NormalizeName
// (see SameName); or, with match: surface, by their surface form as written
// (case, accents and punctuation kept), so that two names equal once folded
// ("Apple" the company, "apple" the fruit) can be told apart. Either may
// also name a type: then only the surfaces of that type.
type Overrides struct {
	// MustLink pairs end in one node whatever their similarity.
	MustLink []Link `yaml:"must_link,omitempty"`
	// CannotLink pairs never end in one node, even through others.
	CannotLink []Link `yaml:"cannot_link,omitempty"`
	// KeepApart names stay alone: nothing merges with them.
	KeepApart []Single `yaml:"keep_apart,omitempty"`
	// Rename gives the node that holds a name another canonical name.
	Rename []Rename `yaml:"rename,omitempty"`
	// SetType gives the extracted entities of a name another type before
	// resolution (overrides_entities.go).
	SetType []SetType `yaml:"set_type,omitempty"`
	// NotEntity names extracted names that are not entities: a build keeps
	// no node for them and drops the triplets that need them.
	NotEntity []Single `yaml:"not_entity,omitempty"`
	// Links are the decisions on links between the semantic layer and the
	// data layer, which the link step applies before any score.
	Links *LinkOverrides `yaml:"links,omitempty"`
}

// Decision says who decided, when and why.
type Decision struct {
	By   string `yaml:"by,omitempty"`
	At   string `yaml:"at,omitempty"` // RFC 3339
	Note string `yaml:"note,omitempty"`
}

// Link is a must-link or cannot-link decision on two names: A of type
// AType and B of type BType (an empty type is any type), compared as Match
// says.
type Link struct {
	A     string `yaml:"a"`
	AType string `yaml:"a_type,omitempty"`
	B     string `yaml:"b"`
	BType string `yaml:"b_type,omitempty"`
	// Match is how A and B name surfaces: "" by name (after
	// resolve.NormalizeName), resolve.MatchSurface ("surface") as written.
	Match Match `yaml:"match,omitempty"`
	// Type, in a must_link only, is the type of the node the two end in
	// (a join of one name under two types): see joinTypes.
	Type     string `yaml:"type,omitempty"`
	Decision `yaml:",inline"`
}

// Single is a keep-apart decision on one name, of type Type (any when
// empty), compared as Match says (see Link).
type Single struct {
	Name     string `yaml:"name"`
	Type     string `yaml:"type,omitempty"`
	Match    Match  `yaml:"match,omitempty"`
	Decision `yaml:",inline"`
}

// Rename gives the node that holds Member (of type Type, any when empty,
// compared as Match says: see Link) the canonical name To.
type Rename struct {
	Member   string `yaml:"member"`
	Type     string `yaml:"type,omitempty"`
	Match    Match  `yaml:"match,omitempty"`
	To       string `yaml:"to"`
	Decision `yaml:",inline"`
}

// Match says how an entry compares its names with the surfaces': by name
// (the zero value) or as written (MatchSurface).
type Match = resolve.Match

// MatchSurface names surfaces as written: case, accents and punctuation
// kept, runs of white space folded.
const MatchSurface = resolve.MatchSurface

// Surface is one surface form of an entity as the merge log writes it: a
// name, white space folded, and its type ("" when unknown).
type Surface struct {
	Name, Type string
}

// Names reports whether the entry names the two surfaces, in either order.
func (l Link) Names(a, b Surface) bool {
	ra, rb := l.refs()
	return (a.is(ra) && b.is(rb)) || (b.is(ra) && a.is(rb))
}

// Names reports whether the entry names the surface.
func (s Single) Names(x Surface) bool { return x.is(s.ref()) }

func (s Surface) is(r resolve.Ref) bool { return r.Matches(s.Name, s.Type) }

func (l Link) refs() (a, b resolve.Ref) {
	return resolve.NamePair{A: l.A, AType: l.AType, B: l.B, BType: l.BType, Match: l.Match}.Refs()
}

func (s Single) ref() resolve.Ref { return resolve.Ref{Name: s.Name, Type: s.Type, Match: s.Match} }

const overridesHeader = `# kgforge merge overrides: expert decisions applied by every build before
# automatic merging and linking. Names match after folding case, accents,
# punctuation and white space; with match: surface, as written (white space
# aside); a type (a_type, b_type, type) restricts a name to that type.
# set_type gives a name another type, not_entity drops a name that is not
# an entity. Link targets (TABLE, TABLE.COLUMN, TABLE[KEY]) match as
# written. Written by "kgforge review"; safe to edit by hand.
`

// LoadOverrides reads an overrides file. A file that does not exist is an
// empty set of overrides, so a pipeline can name one before anyone decided
// anything.
func LoadOverrides(path string) (*Overrides, error) {
	raw, err := readOverrides(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Overrides{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read overrides %s: %w", path, err)
	}
	var o Overrides
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := yaml.NewDecoder(bytes.NewReader(raw), yaml.Strict()).Decode(&o); err != nil {
			return nil, fmt.Errorf("read overrides %s: %s", path, yaml.FormatError(err, false, true))
		}
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("read overrides %s: %w", path, err)
	}
	return &o, nil
}

// Validate reports every entry that is empty, has an unknown match, links
// a name with itself, sets a type that is not label-safe (CheckType), or
// contradicts another (the same pair both must-link and cannot-link, one
// name set to two types).
func (o *Overrides) Validate() error {
	var errs []error
	must := map[[2]string]bool{}
	for i, l := range o.MustLink {
		if err := checkLink(l); err != nil {
			errs = append(errs, fmt.Errorf("must_link[%d]: %w", i, err))
			continue
		}
		if l.Type != "" {
			if err := CheckType(l.Type); err != nil {
				errs = append(errs, fmt.Errorf("must_link[%d]: type: %w", i, err))
				continue
			}
		}
		must[l.key()] = true
	}
	for i, l := range o.CannotLink {
		if err := checkLink(l); err != nil {
			errs = append(errs, fmt.Errorf("cannot_link[%d]: %w", i, err))
		} else if l.Type != "" {
			errs = append(errs, fmt.Errorf("cannot_link[%d]: type %q: only a must_link names the type of the node it makes", i, l.Type))
		} else if must[l.key()] {
			errs = append(errs, fmt.Errorf("cannot_link[%d]: %q and %q are also a must_link", i, l.A, l.B))
		}
	}
	for i, s := range o.KeepApart {
		if strings.TrimSpace(s.Name) == "" {
			errs = append(errs, fmt.Errorf("keep_apart[%d]: empty name", i))
		} else if err := checkMatch(s.Match); err != nil {
			errs = append(errs, fmt.Errorf("keep_apart[%d]: %w", i, err))
		}
	}
	for i, r := range o.Rename {
		if strings.TrimSpace(r.Member) == "" || strings.TrimSpace(r.To) == "" {
			errs = append(errs, fmt.Errorf("rename[%d]: member and to are both required", i))
		} else if err := checkMatch(r.Match); err != nil {
			errs = append(errs, fmt.Errorf("rename[%d]: %w", i, err))
		}
	}
	errs = append(errs, o.validateEntities())
	if o.Links != nil {
		errs = append(errs, o.Links.validate())
	}
	return errors.Join(errs...)
}

func checkLink(l Link) error {
	a, b := l.refs()
	switch {
	case strings.TrimSpace(l.A) == "" || strings.TrimSpace(l.B) == "":
		return errors.New("a and b are both required")
	case checkMatch(l.Match) != nil:
		return checkMatch(l.Match)
	case a.Key() == b.Key() && l.Match == resolve.MatchSurface:
		return fmt.Errorf("%s and %s are the same surface", a, b)
	case a.Key() == b.Key():
		return fmt.Errorf("%q and %q are the same name; to tell apart two names equal once case, accents and punctuation are folded, "+
			"name them as written with match: surface (and their types with a_type, b_type)", l.A, l.B)
	}
	return nil
}

func checkMatch(m resolve.Match) error {
	if m != resolve.MatchName && m != resolve.MatchSurface {
		return fmt.Errorf("match %q: want %q, or no match to compare names once folded", m, resolve.MatchSurface)
	}
	return nil
}

// SameName reports whether two names are one name to an overrides file
// entry without match: equal after folding case, accents, punctuation and
// white space.
func SameName(a, b string) bool { return resolve.NormalizeName(a) == resolve.NormalizeName(b) }

// key is the order-free key of the pair an entry names.
func (l Link) key() [2]string {
	ra, rb := l.refs()
	a, b := ra.Key(), rb.Key()
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// Resolve returns the overrides as the resolver takes them.
func (o *Overrides) Resolve() resolve.Overrides {
	var r resolve.Overrides
	pair := func(l Link) resolve.NamePair {
		return resolve.NamePair{A: l.A, AType: l.AType, B: l.B, BType: l.BType, Match: l.Match}
	}
	for _, l := range o.MustLink {
		r.MustLink = append(r.MustLink, pair(l))
	}
	for _, l := range o.CannotLink {
		r.CannotLink = append(r.CannotLink, pair(l))
	}
	for _, s := range o.KeepApart {
		r.KeepApart = append(r.KeepApart, s.ref())
	}
	for _, x := range o.Rename {
		r.Rename = append(r.Rename, resolve.Rename{Member: x.Member, Type: x.Type, Match: x.Match, Name: x.To})
	}
	return r
}

// Accept records that the two names of l are the same: a must-link,
// replacing any earlier decision on the pair. An empty l.At is stamped
// now.
func (o *Overrides) Accept(l Link) {
	o.removePair(l)
	l.Decision = stamp(l.Decision)
	o.MustLink = append(o.MustLink, l)
}

// Reject records that the two names of l are different: a cannot-link,
// replacing any earlier decision on the pair.
func (o *Overrides) Reject(l Link) {
	o.removePair(l)
	l.Decision = stamp(l.Decision)
	o.CannotLink = append(o.CannotLink, l)
}

// Split records that the name of s must stay alone, replacing an earlier
// keep-apart of the same name.
func (o *Overrides) Split(s Single) {
	k := s.ref().Key()
	o.KeepApart = slices.DeleteFunc(o.KeepApart, func(x Single) bool { return x.ref().Key() == k })
	s.Decision = stamp(s.Decision)
	o.KeepApart = append(o.KeepApart, s)
}

func (o *Overrides) removePair(l Link) {
	k := l.key()
	same := func(x Link) bool { return x.key() == k }
	o.MustLink = slices.DeleteFunc(o.MustLink, same)
	o.CannotLink = slices.DeleteFunc(o.CannotLink, same)
}

func stamp(d Decision) Decision {
	if d.At == "" {
		d.At = time.Now().UTC().Format(time.RFC3339)
	}
	return d
}

// Save writes the overrides to path atomically: a temporary file in the same
// directory, synced, renamed over the old one. A reader sees the old file or
// the new one, never a part.
func (o *Overrides) Save(path string) (err error) {
	if err := o.Validate(); err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	body, err := yaml.Marshal(o)
	if err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	if string(body) == "{}\n" {
		body = nil
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.WriteString(overridesHeader); err != nil {
		return errors.Join(fmt.Errorf("save overrides %s: %w", path, err), f.Close())
	}
	if _, err := f.Write(body); err != nil {
		return errors.Join(fmt.Errorf("save overrides %s: %w", path, err), f.Close())
	}
	if err := f.Sync(); err != nil {
		return errors.Join(fmt.Errorf("save overrides %s: %w", path, err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("save overrides %s: %w", path, err)
	}
	return errors.Join(d.Sync(), d.Close())
}
