package link

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	aho "github.com/petar-dambovaliev/aho-corasick"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// Entry is one name of the dictionary and the node it stands for.
type Entry struct {
	Name   string
	NodeID string
}

// DictConfig tunes the dictionary. Zero fields take the defaults.
//
// A name is left out of the dictionary when its key (Key) has fewer than
// MinLen letters and digits ("BM", "X1"), when it has no letter at all (a
// number, a date, a code like "2025-03"), or when it stands for more than
// MaxNodes nodes. After the pass, a name found in more than MaxShare of the
// chunks (and in more than MinCommon of them, so a small corpus keeps its
// names) is dropped as too common to tell anything: a plant called
// "Central" would otherwise link half the corpus.
type DictConfig struct {
	MinLen    int     // default DefaultDictMinLen
	MaxNodes  int     // default DefaultDictMaxNodes
	MaxShare  float64 // default DefaultDictMaxShare
	MinCommon int     // default DefaultDictMinCommon
}

// The defaults of DictConfig.
const (
	DefaultDictMinLen    = 4
	DefaultDictMaxNodes  = 5
	DefaultDictMaxShare  = 0.05
	DefaultDictMinCommon = 20
)

func (c DictConfig) withDefaults() DictConfig {
	c.MinLen = cmp.Or(c.MinLen, DefaultDictMinLen)
	c.MaxNodes = cmp.Or(c.MaxNodes, DefaultDictMaxNodes)
	c.MaxShare = cmp.Or(c.MaxShare, DefaultDictMaxShare)
	c.MinCommon = cmp.Or(c.MinCommon, DefaultDictMinCommon)
	return c
}

// Dictionary finds every name of a set of entries in a text in one
// Aho–Corasick pass over the text's normalised words. It is read-only once
// built: Find may be called from several goroutines.
type Dictionary struct {
	ac    aho.AhoCorasick
	keys  []string   // pattern i's key
	nodes [][]string // pattern i's node ids, sorted
	// Skipped counts the names left out, by reason: short, no_letter,
	// ambiguous.
	Skipped map[string]int
}

// Hit is one occurrence of a dictionary name in a text.
type Hit struct {
	Start, End int      // bytes of the text: text[Start:End] is the surface
	Key        string   // the name's key
	Nodes      []string // the nodes the name stands for (the dictionary's own slice: do not modify)
}

// NewDictionary builds the dictionary of the entries' names. A name spelled
// with or without a trailing legal form ("Kestrel Alloys Ltd.", "Kestrel
// Alloys") matches both spellings. The same entries in any order give the
// same dictionary.
func NewDictionary(entries []Entry, cfg DictConfig) *Dictionary {
	cfg = cfg.withDefaults()
	d := &Dictionary{Skipped: map[string]int{}}
	byKey := map[string][]string{}
	for _, e := range entries {
		for _, k := range variants(Key(e.Name)) {
			if why := skipKey(k, cfg.MinLen); why != "" {
				d.Skipped[why]++
				continue
			}
			if !slices.Contains(byKey[k], e.NodeID) {
				byKey[k] = append(byKey[k], e.NodeID)
			}
		}
	}
	var patterns []string
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		if len(byKey[k]) > cfg.MaxNodes {
			d.Skipped["ambiguous"]++
			continue
		}
		d.keys = append(d.keys, k)
		d.nodes = append(d.nodes, slices.Sorted(slices.Values(byKey[k])))
		patterns = append(patterns, " "+strings.ReplaceAll(k, " ", "  ")+" ")
	}
	if len(patterns) > 0 {
		b := aho.NewAhoCorasickBuilder(aho.Opts{MatchKind: aho.LeftMostLongestMatch})
		d.ac = b.Build(patterns)
	}
	return d
}

// Len returns the number of keys in the dictionary.
func (d *Dictionary) Len() int { return len(d.keys) }

// variants returns a key and, when it ends in legal-form words, the key
// without them ("kestrel alloys ltd" → "kestrel alloys").
func variants(k string) []string {
	words := strings.Fields(k)
	core := words
	for len(core) > 1 && resolve.IsCorporateSuffix(core[len(core)-1]) {
		core = core[:len(core)-1]
	}
	if len(core) == len(words) {
		return []string{k}
	}
	return []string{k, strings.Join(core, " ")}
}

// skipKey says why a key stays out of the dictionary, or "".
func skipKey(k string, minLen int) string {
	n, letter := 0, false
	for _, r := range k {
		if r != ' ' {
			n++
		}
		letter = letter || unicode.IsLetter(r)
	}
	switch {
	case !letter:
		return "no_letter"
	case n < minLen:
		return "short"
	}
	return ""
}

// Find returns the leftmost-longest, non-overlapping occurrences of the
// dictionary's names in text, in text order. A hit starts and ends on word
// boundaries; a legal form that follows it in capitals ("Kestrel Alloys"
// then "Ltd.") is part of its surface.
func (d *Dictionary) Find(text string) []Hit {
	if len(d.keys) == 0 {
		return nil
	}
	n := normalizers.Get().(*normalizer)
	defer normalizers.Put(n)
	n.run(text)
	return d.find(n, text)
}

func (d *Dictionary) find(n *normalizer, text string) []Hit {
	var hits []Hit
	last := 0
	it := d.ac.IterByte(n.buf)
	for m := it.Next(); m != nil; m = it.Next() {
		// The iterator resumes one byte after each match's start, so it
		// also yields matches that overlap the one before: skip them.
		if m.Start() < last {
			continue
		}
		first := sort.Search(len(n.words), func(i int) bool { return n.words[i].norm > m.Start() })
		end := sort.Search(len(n.words), func(i int) bool { return n.words[i].norm >= m.End() }) - 1
		end = extendSuffix(n, text, end)
		last = n.words[end].normEnd + 1
		p := m.Pattern()
		hits = append(hits, Hit{Start: n.words[first].start, End: n.words[end].end, Key: d.keys[p], Nodes: d.nodes[p]})
	}
	return hits
}

// extendSuffix returns the index of the last word of a hit that ends at
// word i, taking in up to two legal-form words that follow it and start
// with a capital ("Ltd", "S.A.", "GmbH"), so the surface is the name as the
// text writes it.
func extendSuffix(n *normalizer, text string, i int) int {
	for k := 0; k < 2 && i+1 < len(n.words); k++ {
		w := n.words[i+1]
		r, _ := utf8.DecodeRuneInString(text[w.start:])
		if !unicode.IsUpper(r) || !resolve.IsCorporateSuffix(string(n.buf[w.norm:w.normEnd])) {
			break
		}
		i++
	}
	return i
}

// EdgeMentions is the type of the chunk → entity edges, the same as
// consolidate.EdgeMentions.
const EdgeMentions = "MENTIONS"

// SourceDictionary is the "source" property of a MENTIONS edge that the
// dictionary found; merged with the model's, the edge says "model+dictionary".
const SourceDictionary = "dictionary"

// Mentions finds the names and aliases of the row entities among nodes (the
// nodes with a kg.PropTable property) in every chunk, in one dictionary
// pass per chunk. It returns a mention per hit and node, with its span in
// the source's text, and a MENTIONS edge per chunk and node, shaped like
// the ones consolidate.Build makes from the model's mentions, with the
// first hit as evidence. Names found in too many chunks are dropped (see
// DictConfig). The result is sorted by id.
func Mentions(chunks []kg.Chunk, nodes []kg.Node, cfg DictConfig) ([]kg.Mention, []kg.Edge) {
	cfg = cfg.withDefaults()
	typ := map[string]string{}
	var entries []Entry
	for _, n := range nodes {
		if n.Properties[kg.PropTable] == "" {
			continue
		}
		typ[n.ID] = n.Properties["type"]
		for _, name := range append([]string{n.Name}, n.Aliases...) {
			entries = append(entries, Entry{Name: name, NodeID: n.ID})
		}
	}
	hits, common := NewDictionary(entries, cfg).findChunks(chunks, cfg)
	var mentions []kg.Mention
	edges, count := map[string]*kg.Edge{}, map[string]int{}
	for i, c := range chunks {
		for _, h := range hits[i] {
			if common[h.Key] {
				continue
			}
			span := kg.Span{Start: c.Span.Start + h.Start, End: c.Span.Start + h.End}
			surface := c.Text[h.Start:h.End]
			for _, id := range h.Nodes {
				mentions = append(mentions, kg.Mention{
					ID: kg.ID("mention", c.ID, SourceDictionary, id, fmt.Sprint(span.Start)), ChunkID: c.ID,
					Surface: surface, Type: typ[id], Span: span,
				})
				eid := kg.EdgeID(c.ID, EdgeMentions, id)
				if count[eid]++; count[eid] == 1 {
					edges[eid] = dictEdge(c, id, surface, span, len(h.Nodes))
				}
			}
		}
	}
	slices.SortFunc(mentions, func(a, b kg.Mention) int { return strings.Compare(a.ID, b.ID) })
	out := make([]kg.Edge, 0, len(edges))
	for _, id := range slices.Sorted(maps.Keys(edges)) {
		edges[id].Properties["hits"] = fmt.Sprint(count[id])
		out = append(out, *edges[id])
	}
	return mentions, out
}

// findChunks runs the dictionary over every chunk and returns the hits of
// each, and the keys found in too many chunks to keep.
func (d *Dictionary) findChunks(chunks []kg.Chunk, cfg DictConfig) ([][]Hit, map[string]bool) {
	hits := make([][]Hit, len(chunks))
	if d.Len() == 0 {
		return hits, nil
	}
	inChunks := map[string]int{}
	n := newNormalizer()
	for i, c := range chunks {
		n.run(c.Text)
		hits[i] = d.find(n, c.Text)
		for j, h := range hits[i] {
			if !slices.ContainsFunc(hits[i][:j], func(o Hit) bool { return o.Key == h.Key }) {
				inChunks[h.Key]++
			}
		}
	}
	limit := max(cfg.MinCommon, int(cfg.MaxShare*float64(len(chunks))))
	common := map[string]bool{}
	for k, c := range inChunks {
		if c > limit {
			common[k] = true
		}
	}
	return hits, common
}

// dictEdge returns the MENTIONS edge of chunk c to node id, its first hit
// in the text as evidence.
func dictEdge(c kg.Chunk, id, surface string, span kg.Span, nodes int) *kg.Edge {
	e := &kg.Edge{
		ID: kg.EdgeID(c.ID, EdgeMentions, id), Src: c.ID, Dst: id, Type: EdgeMentions, Confidence: 1,
		Evidence: surface, ChunkIDs: []string{c.ID},
		Properties: map[string]string{
			"source": SourceDictionary, "evidence_span": fmt.Sprintf("%s:%d-%d", c.SourceID, span.Start, span.End),
		},
	}
	if nodes > 1 {
		e.Properties["ambiguous"] = fmt.Sprint(nodes)
	}
	return e
}

// MergeMentions adds the dictionary's MENTIONS edges to the model's, keyed
// by edge id: an edge both found keeps the model's fields, takes the
// dictionary's evidence span and hits, and says "model+dictionary". It
// returns the edges that were new.
func MergeMentions(model map[string]*kg.Edge, dict []kg.Edge) []kg.Edge {
	var added []kg.Edge
	for _, e := range dict {
		m, ok := model[e.ID]
		if !ok {
			e := e
			model[e.ID] = &e
			added = append(added, e)
			continue
		}
		if m.Properties == nil {
			m.Properties = map[string]string{}
		}
		m.Properties["source"] = "model+" + SourceDictionary
		for _, k := range []string{"evidence_span", "hits", "ambiguous"} {
			if v, ok := e.Properties[k]; ok {
				m.Properties[k] = v
			}
		}
	}
	return added
}

// AddChunkIDs adds to each node the chunks whose MENTIONS edges among
// edges point at it, keeping its ChunkIDs sorted.
func AddChunkIDs(nodes []kg.Node, edges []kg.Edge) {
	of := map[string][]string{}
	for _, e := range edges {
		if e.Type == EdgeMentions {
			of[e.Dst] = append(of[e.Dst], e.Src)
		}
	}
	for i := range nodes {
		if add := of[nodes[i].ID]; len(add) > 0 {
			nodes[i].ChunkIDs = slices.Compact(slices.Sorted(slices.Values(append(nodes[i].ChunkIDs, add...))))
		}
	}
}
