package resolve

import (
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode"
)

// vocabulary numbers words and weighs each by its inverse document
// frequency over the build: ln(1 + n/df), n the entities and df those
// whose bag holds the word. A word most names share ("v", "inc", "the")
// weighs little; a rare one ("nobel") much.
type vocabulary struct {
	ids   map[string]uint32
	words []string // by id
	df    []int
	idf   []float64
}

// bags numbers the words of every entity's bag, and weighs them.
func bags(words [][]string) (*vocabulary, [][]uint32) {
	v := &vocabulary{ids: map[string]uint32{}}
	out := make([][]uint32, len(words))
	for i, ws := range words {
		for _, w := range ws {
			id, ok := v.ids[w]
			if !ok {
				id = uint32(len(v.df))
				v.ids[w] = id
				v.words = append(v.words, w)
				v.df = append(v.df, 0)
			}
			out[i] = append(out[i], id)
		}
		slices.Sort(out[i])
		out[i] = slices.Compact(out[i])
		for _, id := range out[i] {
			v.df[id]++
		}
	}
	v.idf = make([]float64, len(v.df))
	for id, df := range v.df {
		v.idf[id] = math.Log1p(float64(len(words)) / float64(df))
	}
	return v, out
}

// weight is the summed IDF of a bag.
func (v *vocabulary) weight(bag []uint32) float64 {
	s := 0.0
	for _, id := range bag {
		s += v.idf[id]
	}
	return s
}

// overlap returns the IDF weight of the words two sorted bags share.
func (v *vocabulary) overlap(a, b []uint32) float64 {
	s := 0.0
	for x, y := 0, 0; x < len(a) && y < len(b); {
		switch {
		case a[x] < b[y]:
			x++
		case a[x] > b[y]:
			y++
		default:
			s += v.idf[a[x]]
			x++
			y++
		}
	}
	return s
}

// containment is the IDF weight of the shared words over that of the
// lighter bag: 1 when every word of one is in the other ("Philips" in
// "Koninklijke Philips Electronics").
func (v *vocabulary) containment(a, b []uint32) float64 {
	m := min(v.weight(a), v.weight(b))
	if m == 0 {
		return 0
	}
	return v.overlap(a, b) / m
}

// jaccard is the IDF-weighted Jaccard of two bags: the weight shared over
// the weight of their union.
func (v *vocabulary) jaccard(a, b []uint32) float64 {
	in := v.overlap(a, b)
	u := v.weight(a) + v.weight(b) - in
	if u == 0 {
		return 0
	}
	return in / u
}

// nameWords returns the words of a name as NormalizeName spells them,
// leaving out those that hold a digit: numbers are the number guard's, and
// "Station 9" / "Line 9" share no word.
func nameWords(name string) []string {
	return slices.DeleteFunc(strings.Fields(NormalizeName(name)), func(w string) bool {
		return strings.ContainsFunc(w, unicode.IsDigit)
	})
}

// descriptionWords returns the words of a description of three letters or
// more that are not stop words: what two descriptions of one thing share.
func descriptionWords(d string) []string {
	var out []string
	for _, w := range strings.Fields(NormalizeName(d)) {
		if len(w) >= 3 && !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// neighbourWords returns the normalised, compact names of an entity's
// neighbours in the graph.
func neighbourWords(ns []string) []string {
	var out []string
	for _, n := range ns {
		if c := strings.Join(nameWords(n), ""); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// trigrams returns the sorted, distinct hashes of the character trigrams
// of a compact name padded with a space at each end: names that differ in
// a typo or in words run together ("GISTBROCADES" / "GIST BROCADES")
// share most of them.
func trigrams(compact string) []uint32 {
	rs := []rune(" " + compact + " ")
	var out []uint32
	for k := 0; k+3 <= len(rs); k++ {
		h := fnv.New32a()
		h.Write([]byte(string(rs[k : k+3])))
		out = append(out, h.Sum32())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// setJaccard is the Jaccard of two sorted sets.
func setJaccard(a, b []uint32) float64 {
	in := 0
	for x, y := 0, 0; x < len(a) && y < len(b); {
		switch {
		case a[x] < b[y]:
			x++
		case a[x] > b[y]:
			y++
		default:
			in++
			x++
			y++
		}
	}
	if u := len(a) + len(b) - in; u > 0 {
		return float64(in) / float64(u)
	}
	return 0
}

// textIndex is what the second signals need of every entity: its name,
// description and neighbour words as bags over their vocabularies, and its
// name's trigrams.
type textIndex struct {
	names, descs, neigh *vocabulary
	name, desc, nb      [][]uint32
	tri                 [][]uint32
	descNum             []features // the codes and compact form of each description
	surname             []int32    // a person's surname as a word of names (surnameWord); -1 for none and for other kinds
}

func newTextIndex(ents []Entity, feat []features) *textIndex {
	n := len(ents)
	nw, dw, bw := make([][]string, n), make([][]string, n), make([][]string, n)
	t := &textIndex{tri: make([][]uint32, n), descNum: make([]features, n)}
	for i, e := range ents {
		dt := strings.Fields(NormalizeName(e.Description))
		t.descNum[i] = features{name: strings.Join(dt, ""), codes: codes(dt)}
		nw[i] = nameWords(e.Name)
		dw[i] = descriptionWords(e.Description)
		bw[i] = neighbourWords(e.Neighbours)
		t.tri[i] = trigrams(feat[i].name)
	}
	t.names, t.name = bags(nw)
	t.descs, t.desc = bags(dw)
	t.neigh, t.nb = bags(bw)
	t.surname = make([]int32, n)
	for i, e := range ents {
		t.surname[i] = -1
		if KindOf(e.Type) == KindPerson {
			if id, ok := t.names.ids[surnameWord(e.Name, nw[i])]; ok {
				t.surname[i] = int32(id)
			}
		}
	}
	return t
}

// The levels at which a second signal counts as agreement and is listed in
// Pair.Signals; the score uses the values whatever they are.
const (
	containmentLevel = 0.999
	idfOverlapLevel  = 0.5
	trigramLevel     = 0.5
	descriptionLevel = 0.3
	neighboursLevel  = 1e-9 // any shared neighbour
)

// featureValues are a pair's values of Features, in their order.
type featureValues [15]float64

// values returns the feature values of the pair (i, j), in the order of
// Features.
func (r *resolver) values(i, j int, keys keyKind, cosine float64) featureValues {
	t := r.text
	b := func(ok bool) float64 {
		if ok {
			return 1
		}
		return 0
	}
	x := featureValues{
		max(0, cosine), b(keys&(keySuffix|keyPlural) != 0), b(keys&keyAcronym != 0),
		t.names.containment(t.name[i], t.name[j]), t.names.jaccard(t.name[i], t.name[j]), setJaccard(t.tri[i], t.tri[j]),
	}
	x[14] = b(typoDiffer(t.name[i], t.name[j], t.names.words))
	long := min(1, float64(min(len(t.name[i]), len(t.name[j])))/10)
	x[11], x[12], x[13] = long, x[0]*long, x[3]*long
	if len(t.desc[i]) > 0 && len(t.desc[j]) > 0 {
		x[6], x[7] = t.descs.jaccard(t.desc[i], t.desc[j]), 1
	}
	if di, dj := &t.descNum[i], &t.descNum[j]; len(di.codes) > 0 && len(dj.codes) > 0 {
		x[10] = b(numbersDiffer(di, dj))
	}
	if len(t.nb[i]) > 0 && len(t.nb[j]) > 0 {
		x[8], x[9] = t.neigh.jaccard(t.nb[i], t.nb[j]), 1
	}
	return x
}

// addSignals sets the pair's Values and Score when scored (the pair is
// decided by the calibrated score), and returns the second signals that
// agree.
func (r *resolver) addSignals(p *Pair, i, j int, keys keyKind, scored bool) sigMask {
	x := r.values(i, j, keys, p.Cosine)
	if scored {
		// The values only where a score was computed from them: a map a
		// pair is most of a pair's memory, and a million names have
		// millions of uncertain pairs.
		p.Values = make(map[Signal]float64, len(x))
		for k, f := range Features {
			p.Values[f] = x[k]
		}
		p.Score = r.model.Score(x[:])
	}
	var m sigMask
	for _, s := range [...]struct {
		bit      int
		v, level float64
	}{
		{sigContainment, x[3], containmentLevel},
		{sigIDFOverlap, x[4], idfOverlapLevel},
		{sigTrigram, x[5], trigramLevel},
		{sigDescription, x[6], descriptionLevel},
		{sigNeighbours, x[8], neighboursLevel},
		{sigDescriptionNumbers, x[10], 1},
		{sigTypo, x[14], 1},
	} {
		if s.v >= s.level {
			m |= 1 << s.bit
		}
	}
	if variantDiffer(r.text.name[i], r.text.name[j], r.variant, r.text.names.words) {
		m |= 1 << sigVariant
	}
	if ti, tj := r.feat[i].typ, r.feat[j].typ; ti != "" && ti == tj {
		m |= 1 << sigType
	}
	return m
}
