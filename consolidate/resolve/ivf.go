package resolve

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// ivf finds neighbours in a group too large to compare pair by pair with
// an inverted file: spherical k-means, trained on an evenly spaced sample,
// cuts the group into cells; every member lives in the cell of its nearest
// centroid and is compared with the members of its Probes nearest cells.
// Two near duplicates fall in one cell, or in neighbouring cells that a
// probe reaches, so recall stays high while the work is about
// n·(cells + Probes·n/cells) products instead of n²/2. Every step runs in a
// fixed order or on independent items, so the result is deterministic.
func (r *resolver) ivf(ctx context.Context, m []int32) ([]cand, error) {
	cfg := r.cfg.IVF
	n := len(m)
	cells := cfg.Cells
	if cells == 0 {
		cells = int(math.Sqrt(float64(cfg.Probes*n)) + 0.5)
	}
	cells = max(1, min(cells, n/2))
	probes := min(cfg.Probes, cells)
	cent := r.train(ctx, m, cells)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("resolve: train %d cells: %w", cells, err)
	}
	// nearest[k*probes:(k+1)*probes] are member k's nearest cells, best first.
	nearest := make([]int32, n*probes)
	parallelChunks(n, r.cfg.Workers, 256, func(_, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		best := make([]neighbour, probes)
		for k := lo; k < hi; k++ {
			nearestCells(best, r.vec(int(m[k])), cent)
			for p, b := range best {
				nearest[k*probes+p] = b.j
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("resolve: assign %d entities to cells: %w", n, err)
	}
	// Cell by cell, the members that probe it against the members that
	// live in it, tile by tile.
	home := make([][]int32, cells)
	probing := make([][]int32, cells)
	for k := range m {
		home[nearest[k*probes]] = append(home[nearest[k*probes]], int32(k))
		for _, c := range nearest[k*probes : (k+1)*probes] {
			probing[c] = append(probing[c], int32(k))
		}
	}
	workers := make([]*tops, r.cfg.Workers)
	parallelChunks(cells, r.cfg.Workers, 1, func(w, lo, hi int) {
		if workers[w] == nil {
			workers[w] = newTops(len(m), r.cfg.K)
		}
		for c := lo; c < hi; c++ {
			if ctx.Err() != nil {
				return
			}
			for q := 0; q < len(probing[c]); q += tileSize {
				xs := probing[c][q:min(q+tileSize, len(probing[c]))]
				for h := 0; h < len(home[c]); h += tileSize {
					r.compare(workers[w], m, xs, home[c][h:min(h+tileSize, len(home[c]))], false, false, float32(r.cfg.Floor))
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("resolve: search %d entities in %d cells: %w", n, cells, err)
	}
	return r.neighbours(m, workers), nil
}

// train returns cells unit centroids of spherical k-means over an evenly
// spaced sample of the members, seeded with evenly spaced members.
func (r *resolver) train(ctx context.Context, m []int32, cells int) [][]float32 {
	cfg := r.cfg.IVF
	sample := m
	if s := cells * cfg.SamplePerCell; s < len(m) {
		sample = make([]int32, s)
		for k := range sample {
			sample[k] = m[k*len(m)/s]
		}
	}
	cent := make([][]float32, cells)
	for c := range cent {
		cent[c] = slices.Clone(r.vec(int(sample[c*len(sample)/cells])))
	}
	assign := make([]int32, len(sample))
	for range cfg.Iterations {
		if ctx.Err() != nil {
			return cent
		}
		parallelChunks(len(sample), r.cfg.Workers, 256, func(_, lo, hi int) {
			best := make([]neighbour, 1)
			for k := lo; k < hi; k++ {
				nearestCells(best, r.vec(int(sample[k])), cent)
				assign[k] = best[0].j
			}
		})
		sums := make([][]float64, cells)
		for k, i := range sample {
			c := assign[k]
			if sums[c] == nil {
				sums[c] = make([]float64, r.dim)
			}
			for d, x := range r.vec(int(i)) {
				sums[c][d] += float64(x)
			}
		}
		for c, sum := range sums {
			if sum == nil {
				continue // an empty cell keeps its centroid
			}
			v := make([]float32, r.dim)
			for d, x := range sum {
				v[d] = float32(x)
			}
			_ = normalizeInto(cent[c], v) // on a zero sum the centroid stays

		}
	}
	return cent
}

// nearestCells fills best (of length p, p ≥ 1) with the p centroids
// nearest v, best first, ties going to the lower cell number.
func nearestCells(best []neighbour, v []float32, cent [][]float32) {
	for k := range best {
		best[k] = neighbour{j: -1, c: float32(math.Inf(-1))}
	}
	last := len(best) - 1
	for c, cv := range cent {
		n := neighbour{j: int32(c), c: dot(v, cv)}
		if n.c <= best[last].c {
			continue // a later cell never wins a tie
		}
		k := last
		for k > 0 && n.c > best[k-1].c {
			best[k] = best[k-1]
			k--
		}
		best[k] = n
	}
}
