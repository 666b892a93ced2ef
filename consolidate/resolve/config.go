package resolve

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
)

// Default settings; a zero field of Config takes the default.
const (
	DefaultHigh               = 0.92
	DefaultLow                = 0.80
	DefaultFloor              = 0.50
	DefaultShortHigh          = 0.97
	DefaultMinClusterSim      = 0.75
	DefaultMaxClusterSize     = 50
	DefaultK                  = 10
	DefaultExactLimit         = 5000
	DefaultMaxBlockSize       = 100
	DefaultIndex              = IndexIVF
	DefaultIVFProbes          = 4
	DefaultIVFSamplePerCell   = 32
	DefaultIVFIterations      = 6
	DefaultHNSWM              = 32
	DefaultHNSWEfSearch       = 16
	DefaultHNSWEfConstruction = 16
	DefaultHNSWMl             = 0.25
	DefaultHNSWSeed           = 1
)

// Config tunes resolution. The zero value is usable: every zero field takes
// its default (Default… constants), so a threshold cannot be set to zero.
type Config struct {
	// High and Low bound the cosine bands: a pair at or above High merges,
	// one in [Low, High) is uncertain and merges only when a blocking key
	// agrees, one below Low stays apart.
	High, Low float64
	// Floor is the least cosine of a nearest-neighbour candidate: each
	// entity's K nearest neighbours with a cosine of at least Floor are
	// decided by the rules (a pair under Low merges only by a key or the
	// score). Lower than Low so that candidates find the pairs ("Japan" /
	// "Japanese"); at most Low.
	Floor float64
	// ShortHigh is the cosine a short name (see the package doc) needs to
	// merge when no blocking key agrees.
	ShortHigh float64
	// MinClusterSim is the least similarity that every two members of a
	// cluster must have; a cluster under it is split. See the package doc
	// for what counts as similarity.
	MinClusterSim float64
	// MaxClusterSize is the largest cluster kept whole; larger ones are split.
	MaxClusterSize int
	// K is the number of nearest neighbours (with cosine ≥ Low) each entity
	// keeps as candidates.
	K int
	// ExactLimit is the group size from which neighbours are searched in an
	// HNSW index rather than by comparing every pair.
	ExactLimit int
	// MaxBlockSize is the most entities a blocking key may share and still
	// count as evidence; a larger block of equal names is linked as a star
	// and a larger block of other keys is ignored.
	MaxBlockSize int
	// Compatible lists, for a type, the other types its entities may merge
	// with; the relation is made symmetric. Entities of the same type are
	// always compatible, and an unknown type ("" or "unknown") is compatible
	// with every type. Types compare after folding case and white space.
	Compatible map[string][]string
	// Index is how groups of ExactLimit members or more are searched.
	Index IndexKind
	// IVF tunes IndexIVF.
	IVF IVFConfig
	// HNSW tunes IndexHNSW.
	HNSW HNSWConfig
	// Overrides are the expert's decisions, applied before automatic merging.
	Overrides Overrides
	// Workers is the number of goroutines that compare vectors; zero means
	// GOMAXPROCS.
	Workers int
	// Rules chooses how candidate pairs are decided: RulesKind (the
	// default) by the rule of the names' kind (KindRules), RulesScore by
	// the calibrated score of their signals, RulesCosine by the cosine
	// bands and keys alone (the rules before calibration), RulesThreshold
	// by a cosine of at least Low with every guard.
	Rules RuleSet
	// KindRules, under RulesKind, sets the rule set of a kind of name
	// (KindOf of the entity type); a kind not listed takes
	// DefaultKindRules. RulesKind itself is not a kind's rule.
	KindRules map[Kind]RuleSet
	// Model is the calibrated score under RulesScore; nil means
	// DefaultModel (fitted on the development sets, model.json).
	Model *Model
}

// RuleSet names a way to decide candidate pairs.
type RuleSet string

// The rule sets.
const (
	RulesKind      RuleSet = "kind"      // each kind of name by its own rule set (KindRules)
	RulesScore     RuleSet = "score"     // the calibrated score over the signals
	RulesCosine    RuleSet = "cosine"    // cosine ≥ High, or a key with cosine ≥ Low
	RulesThreshold RuleSet = "threshold" // cosine ≥ Low, behind every guard
)

// ruleSets are the rule sets a kind may take.
var ruleSets = []RuleSet{RulesScore, RulesCosine, RulesThreshold}

// IndexKind names a way to find near neighbours in a large group.
type IndexKind string

// The index kinds.
const (
	// IndexIVF is an inverted file: spherical k-means cells, each member
	// compared with the members of its Probes nearest cells. Deterministic.
	IndexIVF IndexKind = "ivf"
	// IndexHNSW is a github.com/coder/hnsw graph, built on one goroutine
	// and searched on all workers.
	IndexHNSW IndexKind = "hnsw"
)

// IVFConfig tunes IndexIVF. More probes raise recall and cost; the
// defaults found 99.9% of the exact candidate pairs of 100k synthetic
// 384-dimension names (TestRecall; 3 probes 99.5%, 2 probes 98.6%).
type IVFConfig struct {
	// Cells is the number of k-means cells; zero means √(Probes·n), which
	// balances assigning members to cells against comparing within them.
	Cells int
	// Probes is the number of nearest cells each member is compared with.
	Probes int
	// SamplePerCell sizes the training sample: Cells·SamplePerCell members.
	SamplePerCell int
	// Iterations of k-means.
	Iterations int
}

// HNSWConfig tunes IndexHNSW. Larger M and EfSearch raise recall and
// cost; coder/hnsw keeps at most M neighbours on every layer, so recall
// depends on M far more than on EfSearch. The defaults found 99.4% of the
// exact candidate pairs of 100k synthetic 384-dimension names (TestRecall).
type HNSWConfig struct {
	// M is the most neighbours a node keeps in each layer of the graph.
	M int
	// EfSearch is how many nodes a search keeps while it walks the graph;
	// each search asks for max(K+1, EfSearch) results, of which the best K
	// with cosine ≥ Low are kept.
	EfSearch int
	// EfConstruction is EfSearch while the index is built: how widely each
	// insertion looks for its neighbours.
	EfConstruction int
	// Ml is the level generation factor.
	Ml float64
	// Seed seeds the level generator.
	Seed int64
}

// withDefaults returns c with every zero field set to its default.
func (c Config) withDefaults() Config {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.High, DefaultHigh)
	def(&c.Low, DefaultLow)
	def(&c.Floor, min(DefaultFloor, c.Low))
	def(&c.ShortHigh, DefaultShortHigh)
	def(&c.MinClusterSim, DefaultMinClusterSim)
	defInt(&c.MaxClusterSize, DefaultMaxClusterSize)
	defInt(&c.K, DefaultK)
	defInt(&c.ExactLimit, DefaultExactLimit)
	defInt(&c.MaxBlockSize, DefaultMaxBlockSize)
	if c.Index == "" {
		c.Index = DefaultIndex
	}
	defInt(&c.IVF.Probes, DefaultIVFProbes)
	defInt(&c.IVF.SamplePerCell, DefaultIVFSamplePerCell)
	defInt(&c.IVF.Iterations, DefaultIVFIterations)
	defInt(&c.HNSW.M, DefaultHNSWM)
	defInt(&c.HNSW.EfSearch, DefaultHNSWEfSearch)
	defInt(&c.HNSW.EfConstruction, DefaultHNSWEfConstruction)
	def(&c.HNSW.Ml, DefaultHNSWMl)
	if c.HNSW.Seed == 0 {
		c.HNSW.Seed = DefaultHNSWSeed
	}
	defInt(&c.Workers, runtime.GOMAXPROCS(0))
	if c.Rules == "" {
		c.Rules = RulesKind
	}
	return c
}

// Validate returns every problem of the configuration at once, after
// defaults are applied.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(field string, v any, rule string) {
		errs = append(errs, fmt.Errorf("resolve config: %s = %v: %s", field, v, rule))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"high", c.High}, {"low", c.Low}, {"floor", c.Floor}, {"short_high", c.ShortHigh}, {"min_cluster_sim", c.MinClusterSim}} {
		if f.v < -1 || f.v > 1 {
			bad(f.name, f.v, "must be a cosine in [-1, 1]")
		}
	}
	if c.Low > c.High {
		bad("low", c.Low, fmt.Sprintf("must not exceed high (%v)", c.High))
	}
	if c.Floor > c.Low {
		bad("floor", c.Floor, fmt.Sprintf("must not exceed low (%v)", c.Low))
	}
	if c.ShortHigh < c.High {
		bad("short_high", c.ShortHigh, fmt.Sprintf("must not be under high (%v)", c.High))
	}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"max_cluster_size", c.MaxClusterSize, 2},
		{"k", c.K, 1},
		{"exact_limit", c.ExactLimit, 2},
		{"max_block_size", c.MaxBlockSize, 2},
		{"hnsw.m", c.HNSW.M, 2},
		{"hnsw.ef_search", c.HNSW.EfSearch, 1},
		{"hnsw.ef_construction", c.HNSW.EfConstruction, 1},
		{"workers", c.Workers, 1},
		{"ivf.probes", c.IVF.Probes, 1},
		{"ivf.sample_per_cell", c.IVF.SamplePerCell, 1},
		{"ivf.iterations", c.IVF.Iterations, 1},
		{"ivf.cells", c.IVF.Cells, 0},
	} {
		if f.v < f.min {
			bad(f.name, f.v, fmt.Sprintf("must be at least %d", f.min))
		}
	}
	if c.Index != IndexIVF && c.Index != IndexHNSW {
		bad("index", c.Index, fmt.Sprintf("must be %q or %q", IndexIVF, IndexHNSW))
	}
	if c.Rules != RulesKind && !slices.Contains(ruleSets, c.Rules) {
		bad("rules", c.Rules, fmt.Sprintf("must be %q, %q, %q or %q", RulesKind, RulesScore, RulesCosine, RulesThreshold))
	}
	for _, k := range slices.Sorted(maps.Keys(c.KindRules)) {
		if !slices.Contains(Kinds, k) {
			bad("kind_rules", k, fmt.Sprintf("is no kind of name (%s)", kindList()))
		}
		if v := c.KindRules[k]; !slices.Contains(ruleSets, v) {
			bad("kind_rules."+string(k), v, fmt.Sprintf("must be %q, %q or %q", RulesScore, RulesCosine, RulesThreshold))
		}
	}
	if c.Model != nil {
		if err := c.Model.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.HNSW.Ml <= 0 || c.HNSW.Ml >= 1 {
		bad("hnsw.ml", c.HNSW.Ml, "must be in (0, 1)")
	}
	return errors.Join(errs...)
}

// compatibility answers which folded types may merge.
type compatibility map[[2]string]bool

func newCompatibility(m map[string][]string) compatibility {
	c := compatibility{}
	for a, bs := range m {
		for _, b := range bs {
			na, nb := normalizeType(a), normalizeType(b)
			c[[2]string{na, nb}] = true
			c[[2]string{nb, na}] = true
		}
	}
	return c
}

func (c compatibility) ok(a, b string) bool {
	return a == b || a == "" || b == "" || c[[2]string{a, b}]
}
