package resolve

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"

	"github.com/coder/hnsw"
)

// dot returns the cosine of two unit vectors of equal length. It leaves
// the arithmetic to coder/hnsw's CosineDistance, whose vek kernels use
// AVX2 where the processor has it: about four times faster than a Go loop
// on 384 dimensions.
func dot(a, b []float32) float32 { return 1 - hnsw.CosineDistance(a, b) }

// unitTolerance is how far from 1 a vector's squared length may be and
// the vector still be read as a unit vector: float32's own rounding of a
// normalised vector of a few hundred dimensions.
const unitTolerance = 1e-5

// isUnit reports whether v has unit length (within unitTolerance); an
// error for a zero or non-finite vector, as normalizeInto's.
func isUnit(v []float32) (bool, error) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return false, errors.New("vector is zero or not finite")
	}
	return math.Abs(sum-1) <= unitTolerance, nil
}

// normalizeInto writes v scaled to unit length into dst.
func normalizeInto(dst, v []float32) error {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return errors.New("vector is zero or not finite")
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		dst[i] = float32(float64(x) * inv)
	}
	return nil
}

// parallel calls fn on consecutive ranges of [0, n) from workers goroutines
// that take the next chunk of size chunk as they finish one; worker is the
// caller's index in [0, workers), for per-worker buffers.
func parallel(n, workers int, fn func(lo, hi int)) {
	parallelChunks(n, workers, 0, func(_, lo, hi int) { fn(lo, hi) })
}

func parallelChunks(n, workers, chunk int, fn func(worker, lo, hi int)) {
	if chunk <= 0 {
		chunk = max(1, n/(workers*8))
	}
	if workers <= 1 || n <= chunk {
		for lo := 0; lo < n; lo += chunk {
			fn(0, lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(w, lo, min(lo+chunk, n))
			}
		})
	}
	wg.Wait()
}
