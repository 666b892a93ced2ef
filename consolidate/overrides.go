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
// (see SameName).
type Overrides struct {
	// MustLink pairs end in one node whatever their similarity.
	MustLink []Link `yaml:"must_link,omitempty"`
	// CannotLink pairs never end in one node, even through others.
	CannotLink []Link `yaml:"cannot_link,omitempty"`
	// KeepApart names stay alone: nothing merges with them.
	KeepApart []Single `yaml:"keep_apart,omitempty"`
	// Rename gives the node that holds a name another canonical name.
	Rename []Rename `yaml:"rename,omitempty"`
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

// Link is a must-link or cannot-link decision on two names.
type Link struct {
	A        string `yaml:"a"`
	B        string `yaml:"b"`
	Decision `yaml:",inline"`
}

// Single is a keep-apart decision on one name.
type Single struct {
	Name     string `yaml:"name"`
	Decision `yaml:",inline"`
}

// Rename gives the node that holds Member the canonical name To.
type Rename struct {
	Member   string `yaml:"member"`
	To       string `yaml:"to"`
	Decision `yaml:",inline"`
}

const overridesHeader = `# kgforge merge overrides: expert decisions applied by every build before
# automatic merging and linking. Names match after folding case, accents,
# punctuation and white space; link targets (TABLE, TABLE.COLUMN, TABLE[KEY])
# match as written. Written by "kgforge review"; safe to edit by hand.
`

// LoadOverrides reads an overrides file. A file that does not exist is an
// empty set of overrides, so a pipeline can name one before anyone decided
// anything.
func LoadOverrides(path string) (*Overrides, error) {
	raw, err := os.ReadFile(path)
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

// Validate reports every entry that is empty, links a name with itself, or
// contradicts another (the same pair both must-link and cannot-link).
func (o *Overrides) Validate() error {
	var errs []error
	must := map[[2]string]bool{}
	for i, l := range o.MustLink {
		if err := checkLink(l); err != nil {
			errs = append(errs, fmt.Errorf("must_link[%d]: %w", i, err))
			continue
		}
		must[pairKey(l.A, l.B)] = true
	}
	for i, l := range o.CannotLink {
		if err := checkLink(l); err != nil {
			errs = append(errs, fmt.Errorf("cannot_link[%d]: %w", i, err))
		} else if must[pairKey(l.A, l.B)] {
			errs = append(errs, fmt.Errorf("cannot_link[%d]: %q and %q are also a must_link", i, l.A, l.B))
		}
	}
	for i, s := range o.KeepApart {
		if strings.TrimSpace(s.Name) == "" {
			errs = append(errs, fmt.Errorf("keep_apart[%d]: empty name", i))
		}
	}
	for i, r := range o.Rename {
		if strings.TrimSpace(r.Member) == "" || strings.TrimSpace(r.To) == "" {
			errs = append(errs, fmt.Errorf("rename[%d]: member and to are both required", i))
		}
	}
	if o.Links != nil {
		errs = append(errs, o.Links.validate())
	}
	return errors.Join(errs...)
}

func checkLink(l Link) error {
	switch {
	case strings.TrimSpace(l.A) == "" || strings.TrimSpace(l.B) == "":
		return errors.New("a and b are both required")
	case resolve.NormalizeName(l.A) == resolve.NormalizeName(l.B):
		return fmt.Errorf("%q and %q are the same name", l.A, l.B)
	}
	return nil
}

// SameName reports whether two names are one name to an overrides file:
// equal after folding case, accents, punctuation and white space.
func SameName(a, b string) bool { return resolve.NormalizeName(a) == resolve.NormalizeName(b) }

// pairKey is the order-free key of a pair of names.
func pairKey(a, b string) [2]string {
	a, b = resolve.NormalizeName(a), resolve.NormalizeName(b)
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// Resolve returns the overrides as the resolver takes them.
func (o *Overrides) Resolve() resolve.Overrides {
	var r resolve.Overrides
	for _, l := range o.MustLink {
		r.MustLink = append(r.MustLink, resolve.NamePair{A: l.A, B: l.B})
	}
	for _, l := range o.CannotLink {
		r.CannotLink = append(r.CannotLink, resolve.NamePair{A: l.A, B: l.B})
	}
	for _, s := range o.KeepApart {
		r.KeepApart = append(r.KeepApart, s.Name)
	}
	for _, x := range o.Rename {
		r.Rename = append(r.Rename, resolve.Rename{Member: x.Member, Name: x.To})
	}
	return r
}

// Accept records that a and b are the same: a must-link, replacing any
// earlier cannot-link of the pair.
func (o *Overrides) Accept(a, b string, d Decision) {
	o.removePair(a, b)
	o.MustLink = append(o.MustLink, Link{A: a, B: b, Decision: stamp(d)})
}

// Reject records that a and b are different: a cannot-link, replacing any
// earlier must-link of the pair.
func (o *Overrides) Reject(a, b string, d Decision) {
	o.removePair(a, b)
	o.CannotLink = append(o.CannotLink, Link{A: a, B: b, Decision: stamp(d)})
}

// Split records that name must stay alone.
func (o *Overrides) Split(name string, d Decision) {
	n := resolve.NormalizeName(name)
	o.KeepApart = slices.DeleteFunc(o.KeepApart, func(s Single) bool { return resolve.NormalizeName(s.Name) == n })
	o.KeepApart = append(o.KeepApart, Single{Name: name, Decision: stamp(d)})
}

func (o *Overrides) removePair(a, b string) {
	k := pairKey(a, b)
	same := func(l Link) bool { return pairKey(l.A, l.B) == k }
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
