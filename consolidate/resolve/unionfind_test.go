package resolve

import (
	"reflect"
	"testing"
)

func TestUnionFind(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		unions   [][2]int
		joined   []bool // what each union returns
		want     [][]int
		wantSets int
	}{
		{name: "no unions", n: 3, want: [][]int{{0}, {1}, {2}}, wantSets: 3},
		{name: "one pair", n: 3, unions: [][2]int{{2, 0}}, joined: []bool{true}, want: [][]int{{0, 2}, {1}}, wantSets: 2},
		{name: "repeated union", n: 2, unions: [][2]int{{0, 1}, {1, 0}}, joined: []bool{true, false}, want: [][]int{{0, 1}}, wantSets: 1},
		{name: "self union", n: 2, unions: [][2]int{{1, 1}}, joined: []bool{false}, want: [][]int{{0}, {1}}, wantSets: 2},
		{
			name: "transitive", n: 6, unions: [][2]int{{0, 1}, {2, 3}, {1, 3}, {4, 5}, {0, 2}},
			joined: []bool{true, true, true, true, false}, want: [][]int{{0, 1, 2, 3}, {4, 5}}, wantSets: 2,
		},
		{name: "groups ordered by smallest member", n: 5, unions: [][2]int{{4, 1}, {3, 0}}, joined: []bool{true, true}, want: [][]int{{0, 3}, {1, 4}, {2}}, wantSets: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnionFind(tt.n)
			for k, p := range tt.unions {
				if got := u.union(p[0], p[1]); got != tt.joined[k] {
					t.Errorf("union(%d, %d) = %v, want %v", p[0], p[1], got, tt.joined[k])
				}
			}
			if got := u.groups(1); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("groups = %v, want %v", got, tt.want)
			}
			if u.sets != tt.wantSets {
				t.Errorf("sets = %d, want %d", u.sets, tt.wantSets)
			}
			for _, g := range tt.want {
				for _, x := range g[1:] {
					if !u.same(g[0], x) {
						t.Errorf("same(%d, %d) = false", g[0], x)
					}
				}
			}
		})
	}
}

func TestUnionFind_GroupsMinSize(t *testing.T) {
	u := newUnionFind(4)
	u.union(1, 2)
	if got, want := u.groups(2), [][]int{{1, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("groups(2) = %v, want %v", got, want)
	}
}

// TestUnionFind_RankAndCompression checks that union by rank keeps trees
// shallow and that find compresses the path it walks.
func TestUnionFind_RankAndCompression(t *testing.T) {
	u := newUnionFind(8)
	// Pairs, then pairs of pairs, then the two halves: a tree of rank 3.
	for _, p := range [][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {4, 6}, {0, 4}} {
		u.union(p[0], p[1])
	}
	root := u.find(0)
	if u.rank[root] != 3 {
		t.Errorf("rank of root = %d, want 3 (union by rank)", u.rank[root])
	}
	depth := func(x int) int {
		d := 0
		for int(u.parent[x]) != x {
			x = int(u.parent[x])
			d++
		}
		return d
	}
	for x := range 8 {
		if d := depth(x); d > 3 {
			t.Errorf("depth(%d) = %d, want ≤ 3 with union by rank", x, d)
		}
	}
	// Build a chain by hand, then find from its far end.
	c := newUnionFind(5)
	for i := 1; i < 5; i++ {
		c.parent[i] = int32(i - 1)
	}
	if c.find(4) != 0 {
		t.Fatal("find(4) != 0")
	}
	if c.parent[4] == 3 {
		t.Errorf("parent of 4 still 3 after find: path not compressed")
	}
}
