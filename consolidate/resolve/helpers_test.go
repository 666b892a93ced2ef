package resolve

import (
	"context"
	"math"
	"slices"
	"testing"
)

const testDim = 64

// space hands out orthonormal axes, so that tests can set cosines exactly.
type space struct{ next int }

func (s *space) axis() []float32 {
	v := make([]float32, testDim)
	v[s.next] = 1
	s.next++
	return v
}

// near returns a unit vector at cosine c from the unit vector a, leaning
// on a fresh axis: two vectors near a at c1 and c2 are at c1·c2.
func (s *space) near(a []float32, c float64) []float32 {
	return plane(a, s.axis(), math.Acos(c))
}

// plane returns cos θ·e0 + sin θ·e1.
func plane(e0, e1 []float32, theta float64) []float32 {
	v := make([]float32, len(e0))
	for i := range v {
		v[i] = float32(math.Cos(theta))*e0[i] + float32(math.Sin(theta))*e1[i]
	}
	return v
}

func ent(key, name, typ string, v []float32) Entity {
	return Entity{Key: key, Name: name, Type: typ, Mentions: 1, Vector: v}
}

func mustResolve(t *testing.T, ents []Entity, cfg Config) Result {
	t.Helper()
	res, err := Resolve(context.Background(), ents, cfg)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	checkPartition(t, ents, res)
	return res
}

// checkPartition checks that every entity is in exactly one cluster.
func checkPartition(t *testing.T, ents []Entity, res Result) {
	t.Helper()
	seen := map[string]int{}
	for _, c := range res.Clusters {
		for _, m := range c.Members {
			seen[m]++
		}
		if !slices.IsSorted(c.Members) {
			t.Errorf("cluster %s: members not sorted: %v", c.ID, c.Members)
		}
	}
	for _, e := range ents {
		if seen[e.Key] != 1 {
			t.Errorf("entity %s is in %d clusters, want 1", e.Key, seen[e.Key])
		}
	}
	if len(seen) != len(ents) {
		t.Errorf("clusters hold %d entities, input has %d", len(seen), len(ents))
	}
}

func clusterOf(res Result, key string) *Cluster {
	for k := range res.Clusters {
		if slices.Contains(res.Clusters[k].Members, key) {
			return &res.Clusters[k]
		}
	}
	return nil
}

func together(res Result, a, b string) bool {
	ca := clusterOf(res, a)
	return ca != nil && slices.Contains(ca.Members, b)
}

func uncertainPair(res Result, a, b string) *Pair {
	if a > b {
		a, b = b, a
	}
	for k, p := range res.Uncertain {
		if p.A == a && p.B == b {
			return &res.Uncertain[k]
		}
	}
	return nil
}

func mergeOf(res Result, a, b string) *Pair {
	if a > b {
		a, b = b, a
	}
	c := clusterOf(res, a)
	if c == nil {
		return nil
	}
	for k, p := range c.Merges {
		if p.A == a && p.B == b {
			return &c.Merges[k]
		}
	}
	return nil
}
