package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"

	"kgforge/consolidate/resolve"
)

// Gold is the right links of a corpus (testdata/bikeco.gold.yaml documents
// the format).
type Gold struct {
	Corpus     string        `yaml:"corpus"`
	Tables     []GoldTable   `yaml:"tables"`
	Rows       []GoldRow     `yaml:"rows"`
	FKs        []GoldFK      `yaml:"fks"`
	Concepts   []GoldConcept `yaml:"concepts"`
	Rules      []GoldRule    `yaml:"rules"`
	Values     []GoldValue   `yaml:"values"`
	Duplicates []GoldGroup   `yaml:"duplicates"`
	Distinct   []GoldGroup   `yaml:"distinct"`
	Persons    []GoldPerson  `yaml:"persons"`
}

// GoldTable says whether a table's rows become entities.
type GoldTable struct {
	Table    string `yaml:"table"`
	Entities bool   `yaml:"entities"`
	Key      string `yaml:"key"`
	Name     string `yaml:"name"`
	Why      string `yaml:"why"`
}

// GoldRow is one row that must become an entity, and its names in the
// documents.
type GoldRow struct {
	Row      string        `yaml:"row"` // TABLE[KEY]
	Name     string        `yaml:"name"`
	Why      string        `yaml:"why"`
	Surfaces []GoldSurface `yaml:"surfaces"`
}

// GoldSurface is one form of a row's name in the documents.
type GoldSurface struct {
	Name    string   `yaml:"name"`
	Variant bool     `yaml:"variant"`
	At      []string `yaml:"at"`
}

// GoldFK is one edge between two row entities.
type GoldFK struct {
	From string `yaml:"from"`
	To   string `yaml:"to"`
	Why  string `yaml:"why"`
}

// GoldConcept is a concept, quantity, KPI or rule and the tables or
// columns it is linked to; no targets: nothing of the corpus holds it.
type GoldConcept struct {
	Concept  string   `yaml:"concept"`
	Names    []string `yaml:"names"`
	Targets  []string `yaml:"targets"`
	Also     []string `yaml:"also"`
	Optional bool     `yaml:"optional"`
	Why      string   `yaml:"why"`
}

// GoldRule is a rule, threshold or KPI a document states, and the columns
// it speaks of; no targets: no column decides it.
type GoldRule struct {
	Rule    string   `yaml:"rule"`
	At      string   `yaml:"at"`
	Targets []string `yaml:"targets"`
	Also    []string `yaml:"also"`
}

// GoldValue is a name that is a value of columns, not a row entity.
type GoldValue struct {
	Name    string   `yaml:"name"`
	Aliases []string `yaml:"aliases"`
	Columns []string `yaml:"columns"`
	At      []string `yaml:"at"`
}

// GoldGroup is a set of names that are one thing (duplicates) or different
// things (distinct).
type GoldGroup struct {
	Names []string `yaml:"names"`
	Row   string   `yaml:"row"`
	Issue bool     `yaml:"issue"`
	Why   string   `yaml:"why"`
}

// GoldPerson is a person of the corpus.
type GoldPerson struct {
	Name string `yaml:"name"`
	Why  string `yaml:"why"`
}

// LoadGold reads and checks a gold file.
func LoadGold(path string) (*Gold, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gold file: %w", err)
	}
	var g Gold
	if err := yaml.UnmarshalWithOptions(b, &g, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("gold file %s: %w", path, err)
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("gold file %s: %w", path, err)
	}
	return &g, nil
}

var (
	rowRe    = regexp.MustCompile(`^([A-Za-z0-9_]+)\[([^\]]+)\]$`)
	targetRe = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?$`)
	atRe     = regexp.MustCompile(`^[^:#]+(:[0-9]+|#page=[0-9]+)$`)
)

// ParseRow splits TABLE[KEY].
func ParseRow(s string) (table, key string, ok bool) {
	m := rowRe.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// check refuses a gold file whose entries are malformed or contradict
// each other; each error names the entry.
func (g *Gold) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	entity := map[string]bool{}
	for _, t := range g.Tables {
		if t.Entities && (t.Key == "" || t.Name == "") {
			bad("table %s: an entity table needs key and name", t.Table)
		}
		entity[t.Table] = t.Entities
	}
	rows := map[string]bool{}
	for _, r := range g.Rows {
		table, _, ok := ParseRow(r.Row)
		switch {
		case !ok:
			bad("row %q: not TABLE[KEY]", r.Row)
		case !entity[table]:
			bad("row %s: table %s is not an entity table of tables:", r.Row, table)
		case rows[r.Row]:
			bad("row %s: twice", r.Row)
		}
		rows[r.Row] = true
		for _, s := range r.Surfaces {
			for _, at := range s.At {
				if !atRe.MatchString(at) {
					bad("row %s: surface %q: place %q is not FILE:LINE or FILE#page=N", r.Row, s.Name, at)
				}
			}
		}
	}
	for _, fk := range g.FKs {
		if !rows[fk.From] || !rows[fk.To] {
			bad("fk %s → %s: both ends must be rows of rows:", fk.From, fk.To)
		}
	}
	for _, c := range g.Concepts {
		if len(c.Names) == 0 {
			bad("concept %s: no names", c.Concept)
		}
		for _, t := range append(append([]string{}, c.Targets...), c.Also...) {
			if !targetRe.MatchString(t) {
				bad("concept %s: target %q is not TABLE or TABLE.COLUMN", c.Concept, t)
			}
		}
	}
	for _, r := range g.Rules {
		if !atRe.MatchString(r.At) {
			bad("rule %q: place %q is not FILE:LINE or FILE#page=N", r.Rule, r.At)
		}
		for _, t := range append(append([]string{}, r.Targets...), r.Also...) {
			if !targetRe.MatchString(t) || !strings.Contains(t, ".") {
				bad("rule %q: target %q is not TABLE.COLUMN", r.Rule, t)
			}
		}
	}
	for _, d := range g.Duplicates {
		if len(d.Names) < 2 {
			bad("duplicates %v: fewer than two names", d.Names)
		}
		if d.Row != "" && !rows[d.Row] {
			bad("duplicates %v: row %s is not in rows:", d.Names, d.Row)
		}
	}
	return errors.Join(errs...)
}

// Key is the name key names are compared by: the resolver's.
func Key(s string) string { return resolve.NormalizeName(s) }

// containsWords reports whether the word sequence w occurs in s, both
// name keys (words are separated by one space).
func containsWords(s, w string) bool {
	if w == "" {
		return false
	}
	return strings.Contains(" "+s+" ", " "+w+" ")
}

// targetTable returns the table of a TABLE or TABLE.COLUMN target.
func targetTable(t string) string {
	table, _, _ := strings.Cut(t, ".")
	return table
}
