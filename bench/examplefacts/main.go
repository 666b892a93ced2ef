package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"kgforge/bundle"
	"kgforge/kg"
)

type options struct {
	bundle, gold, json string
	verbose            bool
	minConfidence      float64
}

func main() {
	var o options
	flag.StringVar(&o.bundle, "bundle", "", "the bundle to score (a bundle directory, an output directory with a latest link, or a .tar archive)")
	flag.StringVar(&o.gold, "gold", filepath.Join("examples", "bikeco", "gold", "facts.tsv"), "the gold facts")
	flag.StringVar(&o.json, "json", "", "also write the figures as JSON to this file")
	flag.Float64Var(&o.minConfidence, "min-confidence", 0, "score only the triplets whose confidence reaches this (what extract.min_confidence would keep)")
	flag.BoolVar(&o.verbose, "v", false, "also list the gold facts missed and the triplets whose names match but whose predicate does not")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, o, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "examplefacts:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, w io.Writer) error {
	if o.bundle == "" {
		return errors.New("give -bundle DIR (e.g. out/bikeco/latest)")
	}
	g, err := LoadGold(o.gold)
	if err != nil {
		return err
	}
	ts, err := readTriplets(ctx, o.bundle)
	if err != nil {
		return err
	}
	ts = slices.DeleteFunc(ts, func(t kg.Triplet) bool { return t.Confidence < o.minConfidence })
	r := Score(g, ts)
	r.Bundle, r.Gold = o.bundle, o.gold
	if err := Print(w, r, o.verbose); err != nil {
		return err
	}
	if o.json == "" {
		return nil
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.json, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func readTriplets(ctx context.Context, path string) (_ []kg.Triplet, err error) {
	b, err := bundle.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	var ts []kg.Triplet
	err = b.Triplets(ctx, func(t kg.Triplet) error {
		ts = append(ts, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read triplets of %s: %w", path, err)
	}
	return ts, nil
}

// NormName normalises a name for comparison: lower case, punctuation and
// symbols dropped, white space runs made one space, trimmed, a leading
// "the " dropped.
func NormName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
		case unicode.IsSpace(r):
			space = b.Len() > 0
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return strings.TrimPrefix(b.String(), "the ")
}

// NormPredicate normalises a predicate as NormName does, after reading '_'
// and '-' as spaces and splitting camelCase (basedIn, isCEOOf), so that
// based_in, basedIn, BASED_IN and "based in" are equal.
func NormPredicate(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if r == '_' || r == '-' {
			b.WriteByte(' ')
			continue
		}
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			next := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && next) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return NormName(b.String())
}

// Fact is one line of the gold file.
type Fact struct {
	Source     string   `json:"source"` // PATH:LINE, or PATH:PAGE:LINE for a PDF
	Subject    string   `json:"subject"`
	Predicates []string `json:"predicates"`
	Object     string   `json:"object"`

	subjects, objects, predicates map[string]bool // normalised
}

// Gold is the gold file: its facts and alias groups.
type Gold struct {
	Facts   []Fact
	Aliases [][]string // each: the canonical name, then its variants

	groups    map[string][]int // normalised name → the alias groups it is in
	bySubject map[string][]int // normalised subject variant → facts
}

// LoadGold reads and parses the gold file at path.
func LoadGold(path string) (_ *Gold, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load gold: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	g, err := ParseGold(f)
	if err != nil {
		return nil, fmt.Errorf("load gold %s: %w", path, err)
	}
	return g, nil
}

// ParseGold parses a gold file: comment lines start with '#', an alias
// group is "# alias<TAB>canonical<TAB>variant...", every other non-blank
// line is a fact of four tab-separated fields.
func ParseGold(r io.Reader) (*Gold, error) {
	g := &Gold{groups: map[string][]int{}, bySubject: map[string][]int{}}
	sc := bufio.NewScanner(r)
	var errs []error
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if rest, ok := strings.CutPrefix(line, "# alias\t"); ok {
			names := strings.Split(rest, "\t")
			if len(names) < 2 || slices.Contains(names, "") {
				errs = append(errs, fmt.Errorf("line %d: an alias group needs a canonical name and at least one variant, no empty field", n))
				continue
			}
			g.Aliases = append(g.Aliases, names)
			continue
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 4 {
			errs = append(errs, fmt.Errorf("line %d: %d tab-separated fields, want 4 (source:line, subject, predicates, object)", n, len(fields)))
			continue
		}
		if _, _, _, err := ParseSource(fields[0]); err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", n, err))
			continue
		}
		preds := strings.Split(fields[2], "|")
		if slices.Contains(preds, "") || fields[1] == "" || fields[3] == "" {
			errs = append(errs, fmt.Errorf("line %d: empty subject, object or predicate form", n))
			continue
		}
		g.Facts = append(g.Facts, Fact{Source: fields[0], Subject: fields[1], Predicates: preds, Object: fields[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("after line %d: %w", n, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, names := range g.Aliases {
		for _, n := range names {
			k := NormName(n)
			if !slices.Contains(g.groups[k], i) {
				g.groups[k] = append(g.groups[k], i)
			}
		}
	}
	for i := range g.Facts {
		f := &g.Facts[i]
		f.subjects, f.objects = g.Variants(f.Subject), g.Variants(f.Object)
		f.predicates = map[string]bool{}
		for _, p := range f.Predicates {
			f.predicates[NormPredicate(p)] = true
		}
		for s := range f.subjects {
			g.bySubject[s] = append(g.bySubject[s], i)
		}
	}
	return g, nil
}

// Variants returns the normalised forms a name may take: its own and those
// of every alias group it is in (not transitively).
func (g *Gold) Variants(name string) map[string]bool {
	k := NormName(name)
	v := map[string]bool{k: true}
	for _, i := range g.groups[k] {
		for _, n := range g.Aliases[i] {
			v[NormName(n)] = true
		}
	}
	return v
}

// ParseSource splits a fact's source, PATH:LINE or PATH:PAGE:LINE (a PDF's
// page and its text line), into its parts; page is 0 without one.
func ParseSource(s string) (path string, page, line int, err error) {
	parts := strings.Split(s, ":")
	nums := make([]int, 0, 2)
	for _, p := range parts[1:] {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return "", 0, 0, fmt.Errorf("source %q: want PATH:LINE or PATH:PAGE:LINE with numbers from 1", s)
		}
		nums = append(nums, n)
	}
	switch {
	case parts[0] == "" || len(nums) == 0 || len(nums) > 2:
		return "", 0, 0, fmt.Errorf("source %q: want PATH:LINE or PATH:PAGE:LINE", s)
	case len(nums) == 2:
		return parts[0], nums[0], nums[1], nil
	}
	return parts[0], 0, nums[0], nil
}

// Kept is one distinct extracted triplet (after normalisation).
type Kept struct {
	Subject     string `json:"subject"`
	SubjectType string `json:"subject_type,omitempty"`
	Predicate   string `json:"predicate"`
	Object      string `json:"object"`
	ObjectType  string `json:"object_type,omitempty"`
	ChunkID     string `json:"chunk_id"` // of the first copy read
	Copies      int    `json:"copies"`
}

// Report is the score of one bundle.
type Report struct {
	Bundle    string `json:"bundle"`
	Gold      string `json:"gold"`
	GoldFacts int    `json:"gold_facts"`
	Triplets  int    `json:"triplets"` // rows read
	Kept      int    `json:"kept"`     // distinct after normalisation

	CorrectStrict   int     `json:"correct_strict"`
	CorrectPair     int     `json:"correct_pair"`
	PrecisionStrict float64 `json:"precision_strict"`
	PrecisionPair   float64 `json:"precision_pair"`
	FoundStrict     int     `json:"found_strict"` // gold facts matched by a kept triplet
	FoundPair       int     `json:"found_pair"`
	RecallStrict    float64 `json:"recall_strict"`
	RecallPair      float64 `json:"recall_pair"`

	Unmatched    []Kept `json:"unmatched"`     // kept triplets that match no fact
	PairOnly     []Kept `json:"pair_only"`     // match a fact's names, none of its predicates
	MissedPair   []Fact `json:"missed_pair"`   // gold facts no kept triplet names
	MissedStrict []Fact `json:"missed_strict"` // gold facts no kept triplet matches strictly
}

// Score matches the triplets against the gold facts.
func Score(g *Gold, ts []kg.Triplet) *Report {
	r := &Report{GoldFacts: len(g.Facts), Triplets: len(ts)}
	type key struct{ s, p, o string }
	index := map[key]int{}
	var kept []Kept
	var keys []key
	for _, t := range ts {
		k := key{NormName(t.Subject.Surface), NormPredicate(t.Predicate), NormName(t.Object.Surface)}
		if i, ok := index[k]; ok {
			kept[i].Copies++
			continue
		}
		index[k] = len(kept)
		keys = append(keys, k)
		kept = append(kept, Kept{
			Subject: t.Subject.Surface, SubjectType: t.Subject.Type,
			Predicate: t.Predicate,
			Object:    t.Object.Surface, ObjectType: t.Object.Type,
			ChunkID: t.ChunkID, Copies: 1,
		})
	}
	r.Kept = len(kept)
	foundStrict := make([]bool, len(g.Facts))
	foundPair := make([]bool, len(g.Facts))
	for i, k := range keys {
		strict, pair := false, false
		for _, fi := range g.bySubject[k.s] {
			f := &g.Facts[fi]
			if !f.objects[k.o] {
				continue
			}
			pair, foundPair[fi] = true, true
			if f.predicates[k.p] {
				strict, foundStrict[fi] = true, true
			}
		}
		switch {
		case strict:
			r.CorrectStrict++
			r.CorrectPair++
		case pair:
			r.CorrectPair++
			r.PairOnly = append(r.PairOnly, kept[i])
		default:
			r.Unmatched = append(r.Unmatched, kept[i])
		}
	}
	for i, f := range g.Facts {
		if foundStrict[i] {
			r.FoundStrict++
		} else {
			r.MissedStrict = append(r.MissedStrict, f)
		}
		if foundPair[i] {
			r.FoundPair++
		} else {
			r.MissedPair = append(r.MissedPair, f)
		}
	}
	r.PrecisionStrict, r.PrecisionPair = ratio(r.CorrectStrict, r.Kept), ratio(r.CorrectPair, r.Kept)
	r.RecallStrict, r.RecallPair = ratio(r.FoundStrict, r.GoldFacts), ratio(r.FoundPair, r.GoldFacts)
	byChunk := func(a, b Kept) int {
		return cmp.Or(cmp.Compare(a.ChunkID, b.ChunkID), cmp.Compare(a.Subject, b.Subject),
			cmp.Compare(a.Predicate, b.Predicate), cmp.Compare(a.Object, b.Object))
	}
	slices.SortFunc(r.Unmatched, byChunk)
	slices.SortFunc(r.PairOnly, byChunk)
	return r
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// Print writes the report for a person: the figures, the unmatched
// triplets and, when verbose, the pair-only matches and the facts missed.
func Print(w io.Writer, r *Report, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintf(tw, "bundle\t%s\n", r.Bundle)
	_, _ = fmt.Fprintf(tw, "gold\t%s (%d facts)\n", r.Gold, r.GoldFacts)
	_, _ = fmt.Fprintf(tw, "triplets\t%d read, %d kept (distinct after normalisation)\n\n", r.Triplets, r.Kept)
	_, _ = fmt.Fprintln(tw, "match\tcorrect\tprecision\tgold found\trecall\t")
	_, _ = fmt.Fprintf(tw, "strict\t%d\t%.3f\t%d\t%.3f\t\n", r.CorrectStrict, r.PrecisionStrict, r.FoundStrict, r.RecallStrict)
	_, _ = fmt.Fprintf(tw, "pair\t%d\t%.3f\t%d\t%.3f\t\n", r.CorrectPair, r.PrecisionPair, r.FoundPair, r.RecallPair)
	if err := tw.Flush(); err != nil {
		return err
	}
	printKept(w, fmt.Sprintf("\nunmatched triplets (%d):", len(r.Unmatched)), r.Unmatched)
	if verbose {
		printKept(w, fmt.Sprintf("\nnames match, predicate does not (%d):", len(r.PairOnly)), r.PairOnly)
		printFacts(w, fmt.Sprintf("\ngold facts missed, names (%d):", len(r.MissedPair)), r.MissedPair)
		printFacts(w, fmt.Sprintf("\ngold facts missed, strict (%d):", len(r.MissedStrict)), r.MissedStrict)
	}
	return nil
}

func printKept(w io.Writer, title string, ks []Kept) {
	_, _ = fmt.Fprintln(w, title)
	for _, k := range ks {
		_, _ = fmt.Fprintf(w, "  %s  %s%s | %s | %s%s\n", k.ChunkID, k.Subject, typed(k.SubjectType), k.Predicate, k.Object, typed(k.ObjectType))
	}
}

func typed(t string) string {
	if t == "" {
		return ""
	}
	return " (" + t + ")"
}

func printFacts(w io.Writer, title string, fs []Fact) {
	_, _ = fmt.Fprintln(w, title)
	for _, f := range fs {
		_, _ = fmt.Fprintf(w, "  %s  %s | %s | %s\n", f.Source, f.Subject, strings.Join(f.Predicates, "|"), f.Object)
	}
}
