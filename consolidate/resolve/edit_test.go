package resolve

import (
	"math/rand/v2"
	"testing"
)

// editTable is the optimal-string-alignment distance by its full table,
// the plain form editSimilarity's three rows must agree with.
func editTable(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func TestEditSimilarity_AgreesWithTheFullTable(t *testing.T) {
	for _, c := range []struct {
		a, b string
		dist int // the distance; the similarity is 1 - dist / the longer's runes
	}{
		{"kestrel", "kestrel", 0},
		{"kestrel", "kesterl", 1}, // one transposition
		{"velora", "velorà", 1},
		{"ab", "ba", 1},
		{"abc", "", 3},
	} {
		n := max(len([]rune(c.a)), len([]rune(c.b)))
		if got, want := editSimilarity(c.a, c.b), 1-float64(c.dist)/float64(n); got != want {
			t.Errorf("editSimilarity(%q, %q) = %v, want %v", c.a, c.b, got, want)
		}
	}
	if got := editSimilarity("", ""); got != 1 {
		t.Errorf(`editSimilarity("", "") = %v, want 1`, got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdeé日")
	word := func() string {
		// Up to 40 runes: past the 32 the stack buffers hold.
		r := make([]rune, rng.IntN(41))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	for range 5000 {
		a, b := word(), word()
		n := max(len([]rune(a)), len([]rune(b)))
		want := 1.0
		if n > 0 {
			want = 1 - float64(editTable(a, b))/float64(n)
		}
		if got := editSimilarity(a, b); got != want {
			t.Fatalf("editSimilarity(%q, %q) = %v, the full table gives %v", a, b, got, want)
		}
	}
}
