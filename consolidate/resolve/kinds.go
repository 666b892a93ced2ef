package resolve

import "strings"

// Kind is a kind of name: names of one kind behave alike (legal forms and
// group members in organisation names; initials in person names; variant
// words and model numbers in product titles), so each kind has its own
// decision rule (Config.KindRules).
type Kind string

// The kinds of name.
const (
	KindOrganization Kind = "organization"
	KindPerson       Kind = "person"
	KindProduct      Kind = "product"
	KindConcept      Kind = "concept" // any other type, and an unknown one
)

// Kinds are the kinds of name, in the order the docs list them.
var Kinds = []Kind{KindOrganization, KindPerson, KindProduct, KindConcept}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// kindTypes maps folded entity types (as NormalizeName spells them) to
// their kind; a type not listed is KindConcept.
var kindTypes = func() map[string]Kind {
	m := map[string]Kind{}
	for k, ts := range map[Kind]string{
		KindOrganization: "organization organisation org company corporation business firm enterprise supplier vendor manufacturer customer institution agency group brand subsidiary",
		KindPerson:       "person people per human individual author inventor employee contact",
		KindProduct:      "product item model part device component sku good goods offering",
	} {
		for _, t := range strings.Fields(ts) {
			m[t] = k
		}
	}
	return m
}()

// KindOf returns the kind of names of an entity type: organisation,
// person, product, or concept for every other type and an unknown one.
// Types compare after folding case and white space, and a plural type
// ("Companies", "Suppliers") is its singular.
func KindOf(typ string) Kind {
	t := normalizeType(typ)
	if k, ok := kindTypes[t]; ok {
		return k
	}
	if k, ok := kindTypes[singular(t)]; ok {
		return k
	}
	return KindConcept
}

// DefaultKindRules are the rules each kind is decided by under RulesKind,
// the default (see docs/resolution.md and docs/benchmarks.md, "Entity
// resolution by kind of name", for the measurements that chose them). No
// kind keeps the learned score: out of sample its probabilities were far
// from the truth (0.99 right about 40 % of the time), and on no kind did
// it win on both pairwise and B³ F1 on both samples.
var DefaultKindRules = map[Kind]RuleSet{
	KindOrganization: RulesThreshold,
	KindPerson:       RulesThreshold,
	KindProduct:      RulesThreshold,
	KindConcept:      RulesCosine,
}

// ruleSetOf returns the rule set that decides the pair (i, j): the
// configured one, or under RulesKind the rule of the pair's kind. Two
// names of different kinds (compatible types, or an unknown type beside a
// known one) take the rule of the known kind when one is unknown, else
// RulesCosine, the strictest.
func (r *resolver) ruleSetOf(i, j int) RuleSet {
	if r.cfg.Rules != RulesKind {
		return r.cfg.Rules
	}
	ki, kj := r.kind[i], r.kind[j]
	switch {
	case ki == kj:
	case r.feat[i].typ == "":
		ki = kj
	case r.feat[j].typ != "":
		return RulesCosine
	}
	return r.kindRule(ki)
}

// kindRule returns the rule set of a kind under RulesKind.
func (r *resolver) kindRule(k Kind) RuleSet {
	if rs, ok := r.cfg.KindRules[k]; ok {
		return rs
	}
	return DefaultKindRules[k]
}
