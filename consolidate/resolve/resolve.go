package resolve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Entity is one distinct name to resolve, with its embedding.
type Entity struct {
	Key         string    // stable id, unique in the input
	Name        string    // surface form
	Type        string    // entity type; "" or "unknown" when not known
	Description string    // what the extractor said of it, if anything
	Mentions    int       // how often it was mentioned
	Evidence    int       // how many grounded facts it takes part in
	Vector      []float32 // embedding of the name; nil when there is none
	// Neighbours are the names of the entities this one is related to in
	// the graph (the other ends of its facts), for the neighbours signal:
	// two names that share neighbours are more likely one entity.
	Neighbours []string
	// Anchor is non-empty for an entity that is a record of data (a row
	// entity: TABLE[KEY]). Two entities of different anchors never end in
	// one cluster, even through others or by a must-link; an anchored
	// entity names its cluster (canonical name and type) and gives it its
	// id: the cluster's ID is the anchored entity's Key.
	Anchor string
	// Title marks a name that is the title or a heading of a source (a
	// report's title, a section heading): it names a document or a part of
	// one, not an entity, so it merges only with an equal name (or by a
	// must-link) and is never paired with another name for review.
	Title bool
}

// Band is the cosine band a pair falls in.
type Band string

// The bands, from the strongest.
const (
	BandHigh      Band = "high"      // cosine ≥ High
	BandUncertain Band = "uncertain" // Low ≤ cosine < High
	BandLow       Band = "low"       // cosine < Low
	BandNone      Band = ""          // no cosine: an entity has no vector
)

// Signal is one piece of evidence that two entities are the same.
type Signal string

// The signals: the blocking keys that agree, a cosine at or above Low, and
// an expert's must-link.
const (
	SignalName     Signal = "name"    // equal after NormalizeName, spaces ignored
	SignalSuffix   Signal = "suffix"  // equal once corporate suffixes are removed
	SignalPlural   Signal = "plural"  // equal once the last word is singular
	SignalAcronym  Signal = "acronym" // one is the initials of the other
	SignalCosine   Signal = "cosine"
	SignalMustLink Signal = "must_link"
)

// The second signals of a candidate pair, each with its value in
// Pair.Values; a signal is listed in Pair.Signals when its value is at
// least the level that counts as agreement (see the package doc).
const (
	SignalContainment Signal = "containment" // the rarer name's tokens are inside the other's, IDF-weighted
	SignalIDFOverlap  Signal = "idf_overlap" // IDF-weighted Jaccard of the name tokens
	SignalTrigram     Signal = "trigram"     // Jaccard of the character trigrams of the compact names
	SignalDescription Signal = "description" // IDF-weighted overlap of the descriptions' words
	SignalType        Signal = "type"        // both types known and equal
	SignalNeighbours  Signal = "neighbours"  // IDF-weighted overlap of the names they are related to
	SignalVariant     Signal = "variant"     // the names differ only in a variant word: evidence against
	SignalTypo        Signal = "typo"        // the names differ in one word each, and those two words by a typo
	// SignalSharedCore, on a merge: its shorter name is the core of a name
	// family, all its words in both of two members that the cluster bounds
	// keep together only because of it (cluster.go, sharedCore).
	SignalSharedCore Signal = "shared_core"
	// SignalDescriptionNumbers: the descriptions hold different numbers
	// (another year, another model): evidence against.
	SignalDescriptionNumbers Signal = "description_numbers"
)

// Rule names the rule that decided a pair.
type Rule string

// Rules that merge.
const (
	RuleSameName    Rule = "same_name"         // the name keys agree
	RuleCosineHigh  Rule = "cosine_high"       // cosine ≥ High
	RuleKeyCosine   Rule = "key_and_cosine"    // a key agrees and cosine ≥ Low
	RuleShortCosine Rule = "short_name_cosine" // a short name without key, cosine ≥ ShortHigh
	RuleMustLink    Rule = "must_link"         // an expert's override
	RuleScore       Rule = "score"             // the calibrated score reaches the merge band
	RuleThreshold   Rule = "cosine_threshold"  // cosine ≥ Low, and no guard stops it (RulesThreshold)
	RuleSoleAcronym Rule = "sole_acronym"      // an acronym of 3+ letters and the one name of the build it abbreviates
	RuleSoleSurname Rule = "sole_surname"      // a person's surname alone and the one person name of the build that holds it
	RuleTypo        Rule = "typo_and_cosine"   // the names differ by a typo in one word, cosine ≥ Low; not person names
)

// Rules that leave a pair uncertain.
const (
	RuleUncertainCosine Rule = "uncertain_cosine"   // Low ≤ cosine < High, no key agrees
	RuleKeyOnly         Rule = "key_without_cosine" // a key agrees, cosine < Low
	RuleGuardNumber     Rule = "guard_number"       // the names differ in a number or date
	RuleGuardShort      Rule = "guard_short"        // a short name, no key, cosine < ShortHigh
	RuleGuardVariant    Rule = "guard_variant"      // the names differ only in a variant word (a colour, a size, a counterpart)
	RuleGuardWords      Rule = "guard_words"        // the names differ in one word each, not a respelling, and the cosine is under High
	RuleUncertainScore  Rule = "uncertain_score"    // the calibrated score is in the uncertain band
	// RuleGuardSubset: one name's words are a strict subset of the
	// other's ("Philips" / "Intellectual Philips Property Standards",
	// "Sanofi" / "Sanofi Synthelabo", "Supplier" / "Supplier scores") and
	// no second signal agrees (see subsetAlone): a group and its
	// subsidiary, a company and its report or its plant.
	RuleGuardSubset Rule = "guard_subset"
)

// Pair is a decision about two entities: a merge of the merge log, an
// uncertain pair for review, or a merge that a split cut.
type Pair struct {
	A       string   `json:"a"` // entity key, A < B
	B       string   `json:"b"`
	AName   string   `json:"a_name"`
	BName   string   `json:"b_name"`
	Cosine  float64  `json:"cosine"` // 0 when Band is BandNone
	Signals []Signal `json:"signals,omitempty"`
	Band    Band     `json:"band"`
	Rule    Rule     `json:"rule"`
	// Margin, for an uncertain pair, is how far its cosine is from the
	// threshold that would have merged it (High, Low with a key, ShortHigh
	// for a short name); a pair stopped by a guard uses High. Smaller is
	// more doubtful.
	Margin float64 `json:"margin,omitempty"`
	// Score is the calibrated probability, in [0, 1], that the two are one
	// entity: the fitted model over the pair's signals (Values), for a pair
	// decided by RulesScore. The review ranks the uncertain band by it,
	// most likely duplicates first; 0 for a pair decided without the model
	// (a kind decided by a simple rule, an override, a split's weakest
	// pair): the rule and its signals say why, not a number.
	Score float64 `json:"score"`
	// Values are the values of the signals the score was computed from,
	// by signal; nil when no score was computed.
	Values map[Signal]float64 `json:"values,omitempty"`
}

// Cluster is one resolved entity.
type Cluster struct {
	ID        string   `json:"id"` // kg.ID("entity", kg.NormalizeName(Canonical), folded Type)
	Canonical string   `json:"canonical"`
	Type      string   `json:"type"`
	Members   []string `json:"members"` // entity keys, sorted
	// Anchor is the anchor of the cluster's anchored member, if it has one.
	Anchor string `json:"anchor,omitempty"`
	// Band is the weakest cosine band among Merges; BandNone for a single
	// entity or when no merge has a cosine.
	Band Band `json:"band"`
	// Merges are the accepted links between members, sorted by A then B.
	Merges []Pair `json:"merges,omitempty"`
}

// SplitReason says why a connected group of merges was split.
type SplitReason string

// The reasons for a split.
const (
	SplitCannotLink SplitReason = "cannot_link"        // it held a cannot-link pair
	SplitSize       SplitReason = "size"               // it had more than MaxClusterSize members
	SplitMinSim     SplitReason = "min_similarity"     // two members were less similar than MinClusterSim
	SplitTypes      SplitReason = "incompatible_types" // two members had incompatible types, joined through others
	SplitAnchors    SplitReason = "two_anchors"        // two members were different records of data (rows), joined through others
	SplitNumbers    SplitReason = "numbers_differ"     // two members differ in their numbers ("11 April 2025" / "8 April 2025"), joined through a name with fewer ("April 2025")
	SplitGivenNames SplitReason = "given_names_differ" // two person names with different given names ("Hugo Kenji Hernandez" / "Sven Hernandez"), joined through others
)

// Split records a group that union-find connected and the bounds split.
type Split struct {
	Reason SplitReason `json:"reason"`
	Size   int         `json:"size"` // members before the split
	// Weakest is the pair that broke the bound: the cannot-link pair, the
	// pair of incompatible types, or the least similar pair (Cosine is then
	// its similarity as the bounds count it); empty for SplitSize.
	Weakest  Pair     `json:"weakest"`
	Clusters []string `json:"clusters"` // ids of the clusters it became
	Cut      []Pair   `json:"cut"`      // accepted links whose ends ended apart
}

// OverrideKind names a kind of override.
type OverrideKind string

// The override kinds.
const (
	OverrideMustLink   OverrideKind = "must_link"
	OverrideCannotLink OverrideKind = "cannot_link"
	OverrideKeepApart  OverrideKind = "keep_apart"
	OverrideRename     OverrideKind = "rename"
)

// OverrideIssue is an override that was not applied, and why.
type OverrideIssue struct {
	Kind   OverrideKind `json:"kind"`
	Refs   []string     `json:"refs"` // the override's names or keys, as given
	Reason string       `json:"reason"`
}

// Stats counts what resolution did.
type Stats struct {
	Entities      int `json:"entities"`
	Groups        int `json:"groups"`         // type-compatible groups compared
	ExactGroups   int `json:"exact_groups"`   // of them, compared pair by pair
	IndexedGroups int `json:"indexed_groups"` // of them, searched in an HNSW index
	VectorPairs   int `json:"vector_pairs"`   // neighbour pairs with cosine ≥ Floor
	KeyPairs      int `json:"key_pairs"`      // pairs sharing a blocking key, once per kind of key
	TokenPairs    int `json:"token_pairs"`    // pairs found by a rare name word they share
	GramPairs     int `json:"gram_pairs"`     // pairs found by rare character trigrams they share
	Candidates    int `json:"candidates"`     // distinct candidate pairs
	Merged        int `json:"merged"`         // accepted links, must-links included, before splits
	Uncertain     int `json:"uncertain"`
	Splits        int `json:"splits"`
}

// Result is the outcome of a resolution. Every slice is sorted, so equal
// inputs in any order give equal results.
type Result struct {
	Clusters           []Cluster       `json:"clusters"` // every entity is in one; sorted by ID
	Uncertain          []Pair          `json:"uncertain"`
	Splits             []Split         `json:"splits"`
	UnmatchedOverrides []OverrideIssue `json:"unmatched_overrides"`
	Stats              Stats           `json:"stats"`
}

// Resolve groups entities that name the same thing. It returns an error
// for an invalid configuration or input (an empty or repeated key, vectors
// of different lengths, a zero or non-finite vector) and when ctx ends.
// It does not modify entities.
func Resolve(ctx context.Context, entities []Entity, cfg Config) (Result, error) {
	return resolve(ctx, entities, cfg, entityKeys)
}

// keySet says which blocking keys a resolution uses.
type keySet struct {
	corporate bool // suffix and plural keys
	acronyms  bool
	signals   bool // the second signals, token candidates and the calibrated score (under RulesScore)
	features  func(name, typ string) features
}

var entityKeys = keySet{corporate: true, acronyms: true, signals: true, features: nameFeatures}

func resolve(ctx context.Context, entities []Entity, cfg Config, keys keySet) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	r, err := newResolver(entities, cfg.withDefaults(), keys)
	if err != nil {
		return Result{}, err
	}
	return r.run(ctx)
}

// resolver holds one resolution's state. Entities are indexed by their
// position once sorted by key; every later step works on indexes and
// visits them in order, which is what makes the result independent of the
// input order.
type resolver struct {
	cfg    Config
	keys   keySet
	ents   []Entity
	feat   []features
	dim    int
	vecs   [][]float32 // unit vectors, nil where hasVec is false: the entity's own when it is one, else a normalised copy
	hasVec []bool
	compat compatibility

	typeNames []string  // the folded types present, sorted
	typeOf    []int32   // entity → index in typeNames
	typeOK    [][]bool  // compatibility of two type indexes
	links     [][]int32 // entity → the entities it has an accepted link with
	coreQueue []int32   // sharedCore's scratch: the entities it reached
	formQueue []int32   // formsReach's scratch: the forms it reached

	keepApart []bool
	cannot    map[uint64]bool // pairKey(i, j) of cannot-link pairs
	mustLinks [][2]int32
	issues    []OverrideIssue
	renames   map[int]renameTarget // entity → the rename an override asks for

	accepted   map[uint64]Pair      // pairKey(i, j) → the merge
	signalSets map[sigMask][]Signal // signalsOf's lists

	text    *textIndex // the second signals' bags; nil without keys.signals
	variant []bool     // name word id → a variant word (guards.go)
	model   *Model     // the calibrated score; nil when no pair is decided by RulesScore, or without keys.signals
	kind    []Kind     // entity → the kind of its name
	// soleAcronym holds the pairKey of each acronym pair whose acronym
	// has three letters or more and abbreviates one name of the build
	// only (keyCandidates).
	soleAcronym map[uint64]bool
	// personWords are the person names by name word, for containers;
	// built on first use.
	personWords map[uint32][]int32
	anchored    []int // the entities with an Anchor, in index order
	stats       Stats
}

func newResolver(entities []Entity, cfg Config, keys keySet) (*resolver, error) {
	r := &resolver{cfg: cfg, keys: keys, compat: newCompatibility(cfg.Compatible)}
	r.ents = slices.Clone(entities)
	slices.SortFunc(r.ents, func(a, b Entity) int { return strings.Compare(a.Key, b.Key) })
	var errs []error
	for i, e := range r.ents {
		if e.Anchor != "" {
			r.anchored = append(r.anchored, i)
		}
		if e.Key == "" {
			errs = append(errs, fmt.Errorf("resolve entity %q: empty key", e.Name))
		} else if i > 0 && r.ents[i-1].Key == e.Key {
			errs = append(errs, fmt.Errorf("resolve entity %s: key repeated", e.Key))
		}
		if len(e.Vector) == 0 {
			continue
		}
		if r.dim == 0 {
			r.dim = len(e.Vector)
		} else if len(e.Vector) != r.dim {
			errs = append(errs, fmt.Errorf("resolve entity %s: vector has %d dimensions, others %d", e.Key, len(e.Vector), r.dim))
		}
	}
	if len(r.ents) > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("resolve: %d entities, at most %d", len(r.ents), math.MaxInt32))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	n := len(r.ents)
	r.vecs = make([][]float32, n)
	r.hasVec = make([]bool, n)
	for i, e := range r.ents {
		if len(e.Vector) == 0 {
			continue
		}
		unit, err := isUnit(e.Vector)
		if err != nil {
			errs = append(errs, fmt.Errorf("resolve entity %s: %w", e.Key, err))
			continue
		}
		// A vector of unit length already (an embedder that writes unit
		// vectors) is read where it is, not copied: the same cosines to
		// float32's precision in half the memory. Resolve only reads it.
		if unit {
			r.vecs[i] = e.Vector
		} else {
			r.vecs[i] = make([]float32, len(e.Vector))
			_ = normalizeInto(r.vecs[i], e.Vector) // isUnit checked it
		}
		r.hasVec[i] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.feat = make([]features, n)
	parallel(n, cfg.Workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r.feat[i] = keys.features(r.ents[i].Name, r.ents[i].Type)
		}
	})
	r.kind = make([]Kind, n)
	for i, e := range r.ents {
		r.kind[i] = KindOf(e.Type)
	}
	if keys.signals {
		r.text = newTextIndex(r.ents, r.feat)
		r.variant = variantWords(r.variantBags(), r.text.names)
		if r.usesScore() {
			if cfg.Model != nil {
				r.model = cfg.Model
			} else {
				m := DefaultModel()
				r.model = &m
			}
		}
	}
	r.stats.Entities = n
	return r, nil
}

// usesScore reports whether some pair may be decided by RulesScore.
func (r *resolver) usesScore() bool {
	if r.cfg.Rules != RulesKind {
		return r.cfg.Rules == RulesScore
	}
	for _, k := range Kinds {
		if r.kindRule(k) == RulesScore {
			return true
		}
	}
	return false
}

// vec returns entity i's unit vector.
func (r *resolver) vec(i int) []float32 { return r.vecs[i] }

// cosine returns the cosine of entities i and j and whether both have vectors.
func (r *resolver) cosine(i, j int) (float64, bool) {
	if !r.hasVec[i] || !r.hasVec[j] {
		return 0, false
	}
	return float64(dot(r.vec(i), r.vec(j))), true
}

func (r *resolver) run(ctx context.Context) (Result, error) {
	r.applyOverrides()
	cands, err := r.candidates(ctx)
	if err != nil {
		return Result{}, err
	}
	uf := newUnionFind(len(r.ents))
	r.accepted = make(map[uint64]Pair)
	for _, m := range r.mustLinks {
		i, j := int(m[0]), int(m[1])
		p, sig := r.pairMask(i, j, keyKind(0))
		p.Signals = r.signalsOf(sig | 1<<sigMustLink)
		p.Rule = RuleMustLink
		r.accepted[pairKey(i, j)] = p
		uf.union(i, j)
	}
	// The uncertain pairs are kept as their candidates, moved to the front
	// of cands (the loop has read past where each is written): a million
	// names have millions of them, and a Pair is ten times a candidate's
	// size. Those a merge leaves apart become Pairs once the clusters are
	// known, decided again (decide depends on the two names alone).
	doubts := 0
	for _, c := range cands {
		i, j := int(c.i), int(c.j)
		if r.keepApart[i] || r.keepApart[j] || r.cannot[pairKey(i, j)] || r.anchorsClash(i, j) {
			continue
		}
		if (r.ents[i].Title || r.ents[j].Title) && c.keys&keyName == 0 {
			continue // a title is not an entity: it merges with its own name only
		}
		if _, ok := r.accepted[pairKey(i, j)]; ok {
			continue
		}
		p, merge, doubt := r.decide(i, j, c.keys)
		switch {
		case merge:
			r.accepted[pairKey(i, j)] = p
			uf.union(i, j)
		case doubt:
			cands[doubts] = c
			doubts++
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("resolve: %w", err)
	}
	// Only the uncertain candidates are needed again: the others (most of
	// them) are let go before the clusters are built.
	cands = slices.Clone(cands[:doubts])
	must := newUnionFind(len(r.ents))
	for _, m := range r.mustLinks {
		must.union(int(m[0]), int(m[1]))
	}
	res := Result{}
	parts, splits := r.bound(uf, must)
	clusters, of := r.clusters(parts)
	for _, s := range splits {
		res.Splits = append(res.Splits, s.record(r, clusters, of))
	}
	slices.SortFunc(res.Splits, func(a, b Split) int { return strings.Compare(a.Clusters[0], b.Clusters[0]) })
	// The clusters hold their merges: the accepted links are not needed
	// again, and the uncertain list is the resolution's largest part.
	r.stats.Merged = len(r.accepted)
	r.accepted = nil
	n := 0
	for _, c := range cands {
		if of[c.i] != of[c.j] {
			cands[n] = c
			n++
		}
	}
	if n > 0 {
		res.Uncertain = make([]Pair, n)
		for k, c := range cands[:n] {
			res.Uncertain[k], _, _ = r.decide(int(c.i), int(c.j), c.keys)
		}
	}
	slices.SortFunc(res.Uncertain, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(a.Margin, b.Margin), cmp.Compare(b.Cosine, a.Cosine),
			strings.Compare(a.A, b.A), strings.Compare(a.B, b.B))
	})
	res.Clusters = clusters
	res.UnmatchedOverrides = r.issues
	r.stats.Uncertain = len(res.Uncertain)
	r.stats.Splits = len(res.Splits)
	res.Stats = r.stats
	return res, nil
}

// anchorsClash reports whether i and j are different records of data,
// which never merge.
func (r *resolver) anchorsClash(i, j int) bool {
	a, b := r.ents[i].Anchor, r.ents[j].Anchor
	return a != "" && b != "" && a != b
}

// pairKey packs an unordered pair of indexes into one map key.
func pairKey(i, j int) uint64 {
	if i > j {
		i, j = j, i
	}
	return uint64(i)<<32 | uint64(j)
}

// pair returns the pair (i, j) with its cosine, band and the signals of the
// agreeing keys; the rule is left to the caller.
func (r *resolver) pair(i, j int, keys keyKind) Pair {
	p, m := r.pairMask(i, j, keys)
	p.Signals = r.signalsOf(m)
	return p
}

// pairMask returns the pair (i, j) without its Signals, and the signals
// its keys and cosine give.
func (r *resolver) pairMask(i, j int, keys keyKind) (Pair, sigMask) {
	if r.ents[i].Key > r.ents[j].Key {
		i, j = j, i
	}
	p := Pair{A: r.ents[i].Key, B: r.ents[j].Key, AName: r.ents[i].Name, BName: r.ents[j].Name}
	m := keys.signalMask()
	if c, ok := r.cosine(i, j); ok {
		p.Cosine = c
		p.Band = r.band(c)
		if c >= r.cfg.Low {
			m |= 1 << sigCosine
		}
	}
	return p, m
}

// sigMask is a set of signals, bit k for signalOrder[k].
type sigMask uint32

// The bits of a sigMask, in the order a pair lists its signals: the
// keys, the cosine, the second signals, an expert's must-link.
const (
	sigName = iota
	sigSuffix
	sigPlural
	sigAcronym
	sigCosine
	sigContainment
	sigIDFOverlap
	sigTrigram
	sigDescription
	sigNeighbours
	sigDescriptionNumbers
	sigTypo
	sigVariant
	sigType
	sigMustLink
)

// signalOrder is the signal of each bit of a sigMask.
var signalOrder = [...]Signal{
	sigName: SignalName, sigSuffix: SignalSuffix, sigPlural: SignalPlural, sigAcronym: SignalAcronym,
	sigCosine: SignalCosine, sigContainment: SignalContainment, sigIDFOverlap: SignalIDFOverlap,
	sigTrigram: SignalTrigram, sigDescription: SignalDescription, sigNeighbours: SignalNeighbours,
	sigDescriptionNumbers: SignalDescriptionNumbers, sigTypo: SignalTypo, sigVariant: SignalVariant,
	sigType: SignalType, sigMustLink: SignalMustLink,
}

// signalsOf returns the resolution's one list of the signals of m, in
// signalOrder, its capacity its length, so a caller's append copies it: a
// million names keep millions of pairs, and a few dozen distinct lists.
func (r *resolver) signalsOf(m sigMask) []Signal {
	if m == 0 {
		return nil
	}
	if s, ok := r.signalSets[m]; ok {
		return s
	}
	if r.signalSets == nil {
		r.signalSets = make(map[sigMask][]Signal)
	}
	var s []Signal
	for k, sig := range signalOrder {
		if m&(1<<k) != 0 {
			s = append(s, sig)
		}
	}
	s = slices.Clip(s)
	r.signalSets[m] = s
	return s
}

func (r *resolver) band(c float64) Band {
	switch {
	case c >= r.cfg.High:
		return BandHigh
	case c >= r.cfg.Low:
		return BandUncertain
	}
	return BandLow
}

// decide applies the rules of the package doc to a candidate pair: it
// returns the pair, whether it merges, and whether it is uncertain.
func (r *resolver) decide(i, j int, keys keyKind) (p Pair, merge, uncertain bool) {
	p, m := r.pairMask(i, j, keys)
	rs := RulesCosine
	if r.text != nil {
		rs = r.ruleSetOf(i, j)
		if rs == RulesScore && r.model == nil {
			rs = RulesCosine
		}
		if rs != RulesScore && keys == 0 && (p.Band == BandNone || p.Cosine < r.cfg.Low) && !r.soleSurname(i, j) {
			// Neither merged nor listed by the simple rules: the most
			// candidates of the wider blocks, whose signals are not needed.
			p.Signals = r.signalsOf(m)
			return p, false, false
		}
		m |= r.addSignals(&p, i, j, keys, rs == RulesScore)
	}
	p.Signals = r.signalsOf(m)
	switch rs {
	case RulesScore:
		return r.decideByScore(p, i, j, keys)
	case RulesThreshold:
		return r.decideByThreshold(p, i, j, keys)
	}
	fi, fj := &r.feat[i], &r.feat[j]
	c, hasCos := p.Cosine, p.Band != BandNone
	if !hasCos {
		c = math.Inf(-1)
	}
	doubt := func(rule Rule, threshold float64) (Pair, bool, bool) {
		p.Rule = rule
		if hasCos {
			p.Margin = math.Abs(threshold - c)
		} else {
			p.Margin = 1
		}
		return p, false, true
	}
	short := fi.short || fj.short
	switch {
	case numbersDiffer(fi, fj):
		if c >= r.cfg.Low || keys != 0 {
			return doubt(RuleGuardNumber, r.cfg.High)
		}
	case keys&keyName != 0:
		p.Rule = RuleSameName
		return p, true, false
	case keys&keyAcronym != 0 && r.soleAcronym[pairKey(i, j)]:
		p.Rule = RuleSoleAcronym
		return p, true, false
	case r.soleSurname(i, j):
		p.Rule = RuleSoleSurname
		return p, true, false
	case c >= r.cfg.Low && keys == 0 && r.subsetAlone(i, j, keys):
		return doubt(RuleGuardSubset, r.cfg.High)
	case c >= r.cfg.High && (!short || keys != 0 || c >= r.cfg.ShortHigh):
		p.Rule = RuleCosineHigh
		if short && keys == 0 {
			p.Rule = RuleShortCosine
		}
		return p, true, false
	case c >= r.cfg.High:
		return doubt(RuleGuardShort, r.cfg.ShortHigh)
	case c >= r.cfg.Low && keys != 0:
		p.Rule = RuleKeyCosine
		return p, true, false
	case c >= r.cfg.Low && !short && r.text != nil && r.typoPairOf(i, j):
		p.Rule = RuleTypo
		return p, true, false
	case c >= r.cfg.Low:
		if short {
			return doubt(RuleGuardShort, r.cfg.ShortHigh)
		}
		return doubt(RuleUncertainCosine, r.cfg.High)
	case keys != 0:
		return doubt(RuleKeyOnly, r.cfg.Low)
	}
	return p, false, false
}

// decideByScore applies the rules of the calibrated score (see the package
// doc): the guards first, absolute; equal names merge, and so does a key
// with a cosine of at least Low (two witnesses the development sets hold
// too few of to weigh); then the score's band decides. A pair the score
// leaves apart is still shown for review when its cosine reaches Low or a
// key agrees.
func (r *resolver) decideByScore(p Pair, i, j int, keys keyKind) (Pair, bool, bool) {
	fi, fj := &r.feat[i], &r.feat[j]
	m := r.model
	doubt := func(rule Rule) (Pair, bool, bool) {
		p.Rule, p.Margin = rule, math.Abs(m.Merge-p.Score)
		return p, false, true
	}
	c := p.Cosine
	if p.Band == BandNone {
		c = math.Inf(-1)
	}
	listed := p.Score >= m.Uncertain || keys != 0 || c >= r.cfg.Low
	short := (fi.short || fj.short) && keys == 0 && c < r.cfg.ShortHigh
	// Without a vector the score is outside what it was fitted on (every
	// candidate pair of the fit has its cosine): it ranks, but never merges.
	merges := p.Score >= m.Merge && p.Band != BandNone
	switch {
	case numbersDiffer(fi, fj):
		if listed {
			return doubt(RuleGuardNumber)
		}
	case keys&keyName != 0:
		p.Rule = RuleSameName
		return p, true, false
	case variantDiffer(r.text.name[i], r.text.name[j], r.variant, r.text.names.words):
		if listed {
			return doubt(RuleGuardVariant)
		}
	case keys != 0 && c >= r.cfg.Low:
		p.Rule = RuleKeyCosine
		return p, true, false
	case merges && short:
		return doubt(RuleGuardShort)
	case merges && c < r.cfg.High && substituted(r.text.name[i], r.text.name[j], r.text.names.words):
		return doubt(RuleGuardWords)
	case merges && r.subsetAlone(i, j, keys):
		return doubt(RuleGuardSubset)
	case merges:
		p.Rule = RuleScore
		return p, true, false
	case keys != 0 && (p.Score < m.Uncertain || p.Band == BandNone):
		return doubt(RuleKeyOnly)
	case listed:
		return doubt(RuleUncertainScore)
	}
	return p, false, false
}

// decideByThreshold applies RulesThreshold, the simple rule of a kind
// whose learned score does not win out of sample: a cosine of at least Low
// merges (neo4j-graphrag's semantic resolver, which beat the score on
// company names), but only behind every guard of the score's rules
// (numbers, variant words, a short name without a key, one word each, a
// name inside a longer one without a second signal). Equal names and a
// key with a cosine of at least Low merge as under the other rules. A
// pair left apart is shown for review when a key agrees or its cosine
// reaches Low; its margin is the distance of its cosine from Low.
func (r *resolver) decideByThreshold(p Pair, i, j int, keys keyKind) (Pair, bool, bool) {
	fi, fj := &r.feat[i], &r.feat[j]
	c := p.Cosine
	if p.Band == BandNone {
		c = math.Inf(-1)
	}
	doubt := func(rule Rule) (Pair, bool, bool) {
		p.Rule, p.Margin = rule, 1
		if p.Band != BandNone {
			p.Margin = math.Abs(r.cfg.Low - c)
		}
		return p, false, true
	}
	listed := keys != 0 || c >= r.cfg.Low
	bi, bj := r.guardBags(i, j)
	switch {
	case numbersDiffer(fi, fj):
		if listed {
			return doubt(RuleGuardNumber)
		}
	case keys&keyName != 0:
		p.Rule = RuleSameName
		return p, true, false
	case keys&keyAcronym != 0 && r.soleAcronym[pairKey(i, j)]:
		p.Rule = RuleSoleAcronym
		return p, true, false
	case r.soleSurname(i, j):
		p.Rule = RuleSoleSurname
		return p, true, false
	case variantDiffer(bi, bj, r.variant, r.text.names.words):
		if listed {
			return doubt(RuleGuardVariant)
		}
	case keys != 0 && c >= r.cfg.Low:
		p.Rule = RuleKeyCosine
		return p, true, false
	case c >= r.cfg.Low && (fi.short || fj.short) && keys == 0 && c < r.cfg.ShortHigh:
		return doubt(RuleGuardShort)
	case c >= r.cfg.Low && r.typoPair(i, j, bi, bj):
		p.Rule = RuleTypo
		return p, true, false
	case c >= r.cfg.Low && c < r.cfg.High && substituted(bi, bj, r.text.names.words):
		return doubt(RuleGuardWords)
	case c >= r.cfg.Low && r.givenNamesDiffer(i, j):
		return doubt(RuleGuardWords)
	case c >= r.cfg.Low && c < r.cfg.High && r.organisationsDiffer(i, j, bi, bj):
		return doubt(RuleGuardWords)
	case c >= r.cfg.Low && r.subsetAlone(i, j, keys):
		return doubt(RuleGuardSubset)
	case c >= r.cfg.Low:
		p.Rule = RuleThreshold
		return p, true, false
	case keys != 0:
		return doubt(RuleKeyOnly)
	}
	return p, false, false
}

// soleSurname reports whether one of two person names is a surname alone
// and the other a longer name whose surname it is (surnameWord), the only
// person name of the build that holds the word at all (containers):
// "Guattari" / "Félix Guattari", "Perkis" / "Tim Perkis", where a text
// names a person in full once and by surname after. Such a pair merges
// whatever its cosine (sole_surname), as an acronym with one expansion
// does: a sentence encoder puts a surname alone far from the full name
// (cosines 0.6–0.8 on Re-DocRED), and one holder leaves nothing to confuse
// it with. A short surname ("Li"), a word a second person name also holds
// ("Page" beside "Jimmy Page" and "Larry Page", or "Page" as a given
// name), or a one-word name that is the longer name's given name ("John" /
// "John MacDonald") does not merge this way.
func (r *resolver) soleSurname(i, j int) bool {
	if r.text == nil || r.kind[i] != KindPerson || r.kind[j] != KindPerson {
		return false
	}
	t := r.text
	s, l := i, j
	if len(t.name[s]) > len(t.name[l]) {
		s, l = l, s
	}
	if len(t.name[s]) != 1 || len(t.name[l]) < 2 || r.feat[s].short || t.surname[l] != int32(t.name[s][0]) {
		return false
	}
	return r.containers(s) == 1
}
