package resolve

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NormalizePredicate returns a predicate in lower snake case: Unicode NFKC,
// accents removed, camel case split ("worksFor" → "works_for",
// "HTTPServer" → "http_server"), every run of other characters than
// letters and digits turned into one underscore, none at either end.
func NormalizePredicate(s string) string {
	var rs []rune
	// Invalid bytes become a separator first, as in NormalizeName.
	for _, r := range norm.NFD.String(norm.NFKC.String(strings.ToValidUTF8(s, " "))) {
		if !unicode.Is(unicode.Mn, r) {
			rs = append(rs, r)
		}
	}
	var b strings.Builder
	sep := false
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			sep = true
			continue
		}
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				sep = true
			}
		}
		if sep && b.Len() > 0 {
			b.WriteByte('_')
		}
		sep = false
		b.WriteRune(unicode.ToLower(r))
	}
	return norm.NFC.String(b.String())
}

// Predicate is one predicate as extracted, with how often it occurs and the
// embedding of its name.
type Predicate struct {
	Name   string
	Count  int
	Vector []float32 // nil when there is none
}

// predicateKeys compares predicates by their normalised form only: the
// corporate-suffix, plural and acronym keys are for names of things.
var predicateKeys = keySet{features: predicateFeatures}

func predicateFeatures(name, _ string) features {
	toks := strings.Split(NormalizePredicate(name), "_")
	compact := strings.Join(toks, "")
	f := features{name: compact, short: isShort(compact)}
	f.codes = codes(toks)
	return f
}

// ClusterPredicates clusters synonymous predicates ("works_for",
// "employed_by") with the machinery of Resolve: the same bands, guards,
// bounds and overrides (which name predicates), with the normalised form as
// the only blocking key. Predicates that normalise alike are one entity,
// whose count is their sum and whose vector is that of the most frequent
// spelling (then the first in byte order). Each cluster's canonical
// predicate is its most frequent member, normalised.
//
// The map sends every name given, and every normalised form, to its
// canonical predicate; a name that normalises to nothing ("!!") is left
// out. The Result has one cluster per canonical predicate, its members
// being normalised forms.
func ClusterPredicates(ctx context.Context, preds []Predicate, cfg Config) (map[string]string, Result, error) {
	type group struct {
		count int
		best  *Predicate
	}
	groups := map[string]*group{}
	var keys []string
	for k := range preds {
		p := &preds[k]
		n := NormalizePredicate(p.Name)
		if n == "" {
			continue
		}
		g, ok := groups[n]
		if !ok {
			g = &group{}
			groups[n] = g
			keys = append(keys, n)
		}
		g.count += p.Count
		if g.best == nil || cmp.Or(cmp.Compare(g.best.Count, p.Count), strings.Compare(p.Name, g.best.Name)) < 0 {
			g.best = p
		}
	}
	slices.Sort(keys)
	ents := make([]Entity, len(keys))
	for k, n := range keys {
		ents[k] = Entity{Key: n, Name: n, Mentions: groups[n].count, Vector: groups[n].best.Vector}
	}
	res, err := resolve(ctx, ents, cfg, predicateKeys)
	if err != nil {
		return nil, Result{}, err
	}
	canon := make(map[string]string, len(preds)+len(keys))
	for _, c := range res.Clusters {
		to := NormalizePredicate(c.Canonical)
		for _, m := range c.Members {
			canon[m] = to
		}
	}
	for _, p := range preds {
		if n := NormalizePredicate(p.Name); n != "" {
			canon[p.Name] = canon[n]
		}
	}
	return canon, res, nil
}
