package resolve

import (
	"context"
	"fmt"
)

// Candidate is a candidate pair with the values of its signals, in the
// order of Features: what a model is fitted on. Decided says which rule
// decides the pair whatever its score (guard_number, same_name,
// guard_variant, key_and_cosine: the rules decideByScore applies before the
// score); such a pair teaches the score nothing.
type Candidate struct {
	A, B    string // entity keys, A < B
	Values  []float64
	Decided Rule
}

// Candidates returns the candidate pairs Resolve would decide, with their
// signal values, for fitting a Model on gold data (bench/erq -fit). It
// takes the same input and configuration as Resolve.
func Candidates(ctx context.Context, entities []Entity, cfg Config) ([]Candidate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Rules, cfg.Model = RulesCosine, nil // the values need no model
	r, err := newResolver(entities, cfg.withDefaults(), entityKeys)
	if err != nil {
		return nil, err
	}
	r.applyOverrides()
	cands, err := r.candidates(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve candidates: %w", err)
	}
	out := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		i, j := int(c.i), int(c.j)
		if r.ents[i].Key > r.ents[j].Key {
			i, j = j, i
		}
		cos, _ := r.cosine(i, j)
		x := r.values(i, j, c.keys, cos)
		k := Candidate{A: r.ents[i].Key, B: r.ents[j].Key, Values: x[:]}
		switch {
		case numbersDiffer(&r.feat[i], &r.feat[j]):
			k.Decided = RuleGuardNumber
		case c.keys&keyName != 0:
			k.Decided = RuleSameName
		case variantDiffer(r.text.name[i], r.text.name[j], r.variant, r.text.names.words):
			k.Decided = RuleGuardVariant
		case c.keys != 0 && r.hasVec[i] && r.hasVec[j] && cos >= r.cfg.Low:
			k.Decided = RuleKeyCosine
		}
		out = append(out, k)
	}
	return out, nil
}
