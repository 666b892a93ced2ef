package main

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"kgforge/bench/internal/sqlqa"
)

// The two files the generator writes.
const (
	splitTrain = "train"
	splitEval  = "eval"
)

// split is training/agent_split.json: the databases held out for
// evaluation, per set, and the rule that chose them.
type split struct {
	About   string              `json:"about"`
	Seed    string              `json:"seed"`
	Share   float64             `json:"share"`
	HeldOut map[string][]string `json:"heldout"`
}

func readSplit(path string) (*split, error) {
	var s split
	if err := sqlqa.ReadJSON(path, &s); err != nil {
		return nil, fmt.Errorf("read split: %w (run from the repository root, or give -split)", err)
	}
	if s.Seed == "" || s.Share <= 0 || s.Share >= 1 || len(s.HeldOut) == 0 {
		return nil, fmt.Errorf("split %s: needs a seed, a share between 0 and 1 and held-out databases", path)
	}
	return &s, nil
}

// of is the split of a database's questions: eval when it is held out,
// else train. Nothing else decides where a pair goes.
func (s *split) of(set, db string) string {
	if slices.Contains(s.HeldOut[set], db) {
		return splitEval
	}
	return splitTrain
}

// check refuses a split that names a database the set does not have (a
// misspelt one would leave its database in train).
func (s *split) check(set *sqlqa.Set) error {
	dbs := databases(set)
	for _, db := range s.HeldOut[set.Name] {
		if !slices.Contains(dbs, db) {
			return fmt.Errorf("split: held-out database %q is not in set %s (it has %s)", db, set.Name, strings.Join(dbs, ", "))
		}
	}
	return nil
}

// heldOutByRule applies the split's rule to a set's databases: ordered by
// the FNV-1a 64-bit hash of seed + name (ties by name), the first
// ceil(share × n).
func heldOutByRule(seed string, share float64, dbs []string) []string {
	hash := func(db string) uint64 {
		h := fnv.New64a()
		_, _ = h.Write([]byte(seed + db)) // a hash never fails to write
		return h.Sum64()
	}
	dbs = slices.Clone(dbs)
	slices.SortFunc(dbs, func(a, b string) int {
		if c := cmp.Compare(hash(a), hash(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return dbs[:int(math.Ceil(share*float64(len(dbs))))]
}

// The synthetic set made by default: its held-out databases are those
// training/agent_split.json lists.
const (
	synthDefaultSeed = 1
	synthDefaultDBs  = 60
)

// holdOutSynthetic holds out the synthetic set's databases by the same
// rule over the databases made (they depend on -synthetic-seed and
// -synthetic-dbs), and, whatever was made, those of them the file lists
// (the default set's), so that no database the file holds out reaches
// train.jsonl.
func (s *split) holdOutSynthetic(set *sqlqa.Set) {
	dbs := databases(set)
	held := heldOutByRule(s.Seed, s.Share, dbs)
	for _, db := range s.HeldOut[set.Name] {
		if slices.Contains(dbs, db) && !slices.Contains(held, db) {
			held = append(held, db)
		}
	}
	if s.HeldOut == nil {
		s.HeldOut = map[string][]string{}
	}
	s.HeldOut[set.Name] = held
}
