package resolve

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTops_KeepsWhatSortingEveryPairWould: the best K neighbours a worker
// keeps as pairs come, in any order and with ties of cosine, are the
// first K of every pair sorted by better.
func TestTops_KeepsWhatSortingEveryPairWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 3, 10} {
		for trial := range 50 {
			var all []neighbour
			for j := range 1 + rng.IntN(40) {
				all = append(all, neighbour{j: int32(j), c: float32(rng.IntN(8)) / 8}) // few values: many ties
			}
			tp := newTops(1, k)
			for _, p := range rng.Perm(len(all)) {
				tp.add(0, all[p])
			}
			want := slices.Clone(all)
			slices.SortFunc(want, better)
			want = want[:min(k, len(want))]
			if !slices.Equal(tp.lists[0], want) {
				t.Fatalf("k %d, trial %d: kept %v, want %v", k, trial, tp.lists[0], want)
			}
		}
	}
}
