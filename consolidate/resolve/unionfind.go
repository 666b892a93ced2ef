package resolve

// unionFind is a disjoint-set forest over the integers [0, n) with path
// compression (path halving) and union by rank. The partition it ends with
// does not depend on the order of the unions; which element is the root of
// a set does, so callers never use roots as names.
type unionFind struct {
	parent []int32
	rank   []uint8
	sets   int
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), rank: make([]uint8, n), sets: n}
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
	return u
}

// find returns the root of x's set, halving the path on the way.
func (u *unionFind) find(x int) int {
	for int(u.parent[x]) != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = int(u.parent[x])
	}
	return x
}

// union joins the sets of a and b and reports whether they were apart.
func (u *unionFind) union(a, b int) bool {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return false
	}
	switch {
	case u.rank[ra] < u.rank[rb]:
		ra, rb = rb, ra
	case u.rank[ra] == u.rank[rb]:
		u.rank[ra]++
	}
	u.parent[rb] = int32(ra)
	u.sets--
	return true
}

// same reports whether a and b are in one set.
func (u *unionFind) same(a, b int) bool { return u.find(a) == u.find(b) }

// groups returns the sets with at least minSize members, each sorted
// ascending, the groups ordered by their smallest member.
func (u *unionFind) groups(minSize int) [][]int {
	slot := make([]int32, len(u.parent)) // root -> 1 + index in out
	var out [][]int
	for i := range u.parent {
		r := u.find(i)
		if slot[r] == 0 {
			out = append(out, nil)
			slot[r] = int32(len(out))
		}
		out[slot[r]-1] = append(out[slot[r]-1], i)
	}
	kept := out[:0]
	for _, g := range out {
		if len(g) >= minSize {
			kept = append(kept, g)
		}
	}
	return kept
}
