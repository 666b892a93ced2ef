package consolidate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// RuleJudge is the rule of a merge the LLM judge decided.
const RuleJudge resolve.Rule = "llm_judge"

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Cache stores vectors by content address; implementations are safe for
// concurrent use.
type Cache interface {
	Get(key string) (val []byte, ok bool)
	Put(key string, val []byte) error
}

// ModelEmbedder embeds through a model with a content-addressed cache: a text
// embedded once by a model (named by its digest) is never sent again.
type ModelEmbedder struct {
	// Send embeds texts through the server (llm.Client.Embed).
	Send   func(ctx context.Context, model string, texts []string, batch int) ([][]float32, error)
	Model  string
	Digest string
	Cache  Cache // nil: no cache
	Batch  int   // texts per request; 0 means 64

	// Calls and Hits count requests sent and texts served by the cache.
	Calls, Hits int
}

// Embed returns the vectors of texts, from the cache where it has them.
func (m *ModelEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var todo []int
	keys := make([]string, len(texts))
	for i, t := range texts {
		sum := sha256.Sum256([]byte("embed\x00" + m.Digest + "\x00" + t))
		keys[i] = hex.EncodeToString(sum[:])
		if m.Cache != nil {
			if raw, ok := m.Cache.Get(keys[i]); ok && len(raw)%4 == 0 && len(raw) > 0 {
				out[i] = decodeVector(raw)
				m.Hits++
				continue
			}
		}
		todo = append(todo, i)
	}
	batch := cmp.Or(m.Batch, 64)
	for start := 0; start < len(todo); start += batch {
		idx := todo[start:min(start+batch, len(todo))]
		in := make([]string, len(idx))
		for k, i := range idx {
			in[k] = texts[i]
		}
		vecs, err := m.Send(ctx, m.Model, in, len(in))
		m.Calls++
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			out[i] = vecs[k]
			if m.Cache != nil {
				if err := m.Cache.Put(keys[i], encodeVector(vecs[k])); err != nil {
					return nil, fmt.Errorf("cache embedding: %w", err)
				}
			}
		}
	}
	return out, nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// surface is one distinct entity as extracted: a name (white space folded)
// with a type. The same name with two types is two surfaces, which resolve
// merges when the types are compatible.
type surface struct {
	key          string
	name, typ    string
	mentions     int
	facts        int
	descriptions map[string]int
	evidence     []string        // sample mentions CHUNK_ID:START-END
	row          *kg.Node        // the row entity, for a surface that is one (its key is the node's id)
	neighbours   map[string]bool // names of the other ends of its facts, at most maxNeighbours
	title        bool            // the name is a source's title or a heading (titles)
}

// maxNeighbours bounds the neighbour names a surface keeps for resolution's
// neighbours signal.
const maxNeighbours = 64

// neighbour records that the surface has a fact with a surface of that name.
func (s *surface) neighbour(name string) {
	if s.neighbours == nil {
		s.neighbours = map[string]bool{}
	}
	if len(s.neighbours) < maxNeighbours && name != s.name {
		s.neighbours[name] = true
	}
}

func surfaceKey(name, typ string) string { return kg.ID("surface", name, typ) }

func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// collectSurfaces gathers the distinct surfaces of triplets and entities.
func collectSurfaces(triplets []kg.Triplet, extra []kg.Mention) map[string]*surface {
	out := map[string]*surface{}
	add := func(m kg.Mention, fact bool) *surface {
		name := foldSpace(m.Surface)
		k := surfaceKey(name, m.Type)
		s, ok := out[k]
		if !ok {
			s = &surface{key: k, name: name, typ: m.Type, descriptions: map[string]int{}}
			out[k] = s
		}
		s.mentions++
		if fact {
			s.facts++
		}
		if m.Description != "" {
			s.descriptions[m.Description]++
		}
		if len(s.evidence) < 3 && m.ChunkID != "" {
			ev := fmt.Sprintf("%s:%d-%d", m.ChunkID, m.Span.Start, m.Span.End)
			if !slices.Contains(s.evidence, ev) {
				s.evidence = append(s.evidence, ev)
			}
		}
		return s
	}
	for _, t := range triplets {
		s, o := add(t.Subject, true), add(t.Object, true)
		s.neighbour(o.name)
		o.neighbour(s.name)
	}
	for _, m := range extra {
		add(m, false)
	}
	return out
}

// Resolution is what resolving the entities gave.
type Resolution struct {
	Stats              resolve.Stats           `json:"stats"`
	Predicates         map[string]string       `json:"predicates,omitempty"` // merged predicate → canonical
	UnmatchedOverrides []resolve.OverrideIssue `json:"unmatched_overrides,omitempty"`
	Embedded           int                     `json:"embedded"` // surfaces with a vector
	Splits             int                     `json:"splits"`
	Judged             int                     `json:"judged,omitempty"`       // uncertain pairs the LLM judge was asked about
	JudgeMerged        int                     `json:"judge_merged,omitempty"` // of them, called the same and merged
	JudgeFailed        int                     `json:"judge_failed,omitempty"` // asked but not answered usably: left uncertain
	// NotEntities are the names experts marked as not entities
	// (not_entity) and what the build dropped for each;
	// TripletsDropped counts the triplets dropped, by reason
	// (DropNotEntity), as the extract stage counts its own.
	NotEntities     []NotEntityDrop `json:"not_entities,omitempty"`
	TripletsDropped map[string]int  `json:"triplets_dropped,omitempty"`
}

// resolved maps every surface to its cluster.
type resolved struct {
	clusterOf map[string]*resolve.Cluster // surface key → cluster
	result    resolve.Result
	vectors   map[string][]float32 // surface key → vector
}

// embedSurfaces returns the vector of every surface (by key), none when
// emb is nil. The name alone is embedded: descriptions are written per
// chunk by the model and differ even for one thing, which would pull
// duplicates apart; types are compared by the compatibility table.
func embedSurfaces(ctx context.Context, surfaces map[string]*surface, emb Embedder) (map[string][]float32, error) {
	vectors := map[string][]float32{}
	if emb == nil || len(surfaces) == 0 {
		return vectors, nil
	}
	keys := slices.Sorted(maps.Keys(surfaces))
	texts := make([]string, len(keys))
	for i, k := range keys {
		texts[i] = surfaces[k].name
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed %d entity names: %w", len(texts), err)
	}
	for i, k := range keys {
		vectors[k] = vecs[i]
	}
	return vectors, nil
}

// resolveVectors resolves the surfaces with the vectors already computed.
func resolveVectors(ctx context.Context, surfaces map[string]*surface, vectors map[string][]float32, cfg resolve.Config) (resolved, error) {
	keys := slices.Sorted(maps.Keys(surfaces))
	r := resolved{clusterOf: map[string]*resolve.Cluster{}, vectors: vectors}
	ents := make([]resolve.Entity, len(keys))
	for i, k := range keys {
		s := surfaces[k]
		ents[i] = resolve.Entity{
			Key: k, Name: s.name, Type: s.typ, Description: top(s.descriptions), Mentions: s.mentions, Evidence: s.facts, Vector: vectors[k],
			Anchor: s.anchor(), Neighbours: slices.Sorted(maps.Keys(s.neighbours)), Title: s.title,
		}
	}
	res, err := resolve.Resolve(ctx, ents, cfg)
	if err != nil {
		return r, fmt.Errorf("resolve %d entities: %w", len(ents), err)
	}
	r.result = res
	for i := range res.Clusters {
		c := &res.Clusters[i]
		for _, m := range c.Members {
			r.clusterOf[m] = c
		}
	}
	return r, nil
}

// judgeUncertain asks the judge about the most doubtful uncertain pairs, up
// to limit, never one stopped by the number guard; it returns the pairs
// (surface keys, sorted) it called the same, how many it asked, and how
// many answers were unusable (those pairs stay uncertain).
func judgeUncertain(ctx context.Context, j Judge, surfaces map[string]*surface, pairs []resolve.Pair, limit int) (map[[2]string]bool, int, int, error) {
	same := map[[2]string]bool{}
	asked, failed := 0, 0
	for _, p := range pairs { // most doubtful first
		if asked == limit {
			break
		}
		if p.Rule == resolve.RuleGuardNumber {
			continue
		}
		a, b := surfaces[p.A], surfaces[p.B]
		asked++
		ok, err := j.Same(ctx, JudgeInput{a.name, a.typ, top(a.descriptions)}, JudgeInput{b.name, b.typ, top(b.descriptions)})
		if ctx.Err() != nil {
			return nil, asked, failed, ctx.Err()
		}
		if err != nil {
			failed++
			continue
		}
		if ok {
			same[keyPair(p.A, p.B)] = true
		}
	}
	return same, asked, failed, nil
}

func keyPair(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// entityNodes returns a node per cluster and the merge log.
func entityNodes(surfaces map[string]*surface, r resolved, high, low float64, judged map[[2]string]bool) ([]kg.Node, []kg.MergeDecision, []kg.MergeLink) {
	var nodes []kg.Node
	var merges []kg.MergeDecision
	var links []kg.MergeLink
	for _, c := range r.result.Clusters {
		typ := c.Type
		labels := []string{"Entity"}
		if typ != "" && !kg.IsStructuralLabel(typ) {
			labels = append(labels, typ)
		}
		n := kg.Node{ID: c.ID, Name: c.Canonical, Kind: kg.NodeConcept, Labels: labels, Properties: map[string]string{"type": typ}}
		if row := anchorRow(c, surfaces); row != nil {
			n = rowNode(c, row)
		}
		descriptions := map[string]int{}
		best := map[string]resolve.Pair{} // member key → its strongest link
		signals := map[string][]string{}
		for _, p := range c.Merges {
			if p.Rule == resolve.RuleMustLink && judged[keyPair(p.A, p.B)] {
				p.Rule = RuleJudge // a must-link the judge made, not an expert
			}
			for _, k := range []string{p.A, p.B} {
				if b, ok := best[k]; !ok || p.Cosine > b.Cosine {
					best[k] = p
				}
				for _, s := range p.Signals {
					if !slices.Contains(signals[k], string(s)) {
						signals[k] = append(signals[k], string(s))
					}
				}
			}
			links = append(links, kg.MergeLink{
				ClusterID: c.ID, BCluster: c.ID, A: surfaces[p.A].name, B: surfaces[p.B].name, Cosine: p.Cosine,
				Signals: signalStrings(p.Signals), Band: string(p.Band), Rule: string(p.Rule), Decision: "merged",
				Doubt: mergedDoubt(p, high, low), Score: p.Score,
			})
		}
		for _, k := range c.Members {
			s := surfaces[k]
			for d, cnt := range s.descriptions {
				descriptions[d] += cnt
			}
			if s.name != c.Canonical && !slices.Contains(n.Aliases, s.name) {
				n.Aliases = append(n.Aliases, s.name)
			}
			d := kg.MergeDecision{
				ClusterID: c.ID, Member: s.name, MemberType: s.typ, Canonical: c.Canonical, Score: 1, Rule: "single",
				DecidedBy: "auto", Mentions: s.mentions, Evidence: s.evidence, Signals: signals[k],
			}
			if s.row != nil {
				d.Rule, d.Signals = RuleRowAnchor, append(d.Signals, "row:"+s.anchor())
				d.Evidence = []string{s.anchor()}
			} else if p, ok := best[k]; ok {
				d.Score, d.Rule, d.Band = p.Cosine, string(p.Rule), string(p.Band)
				switch p.Rule {
				case resolve.RuleMustLink:
					d.DecidedBy = "override"
				case RuleJudge:
					d.DecidedBy = "llm"
				}
			}
			slices.Sort(d.Signals)
			merges = append(merges, d)
		}
		if d := top(descriptions); d != "" {
			n.Description = d
		}
		slices.Sort(n.Aliases)
		nodes = append(nodes, n)
	}
	cluster := func(k string) string {
		if c := r.clusterOf[k]; c != nil {
			return c.ID
		}
		return ""
	}
	for _, p := range r.result.Uncertain {
		links = append(links, kg.MergeLink{
			ClusterID: cluster(p.A), BCluster: cluster(p.B), A: surfaces[p.A].name, B: surfaces[p.B].name, Cosine: p.Cosine,
			Signals: signalStrings(p.Signals), Band: string(p.Band), Rule: string(p.Rule), Decision: "uncertain",
			Doubt: 1 - min(1, max(0, p.Margin)), Score: p.Score,
		})
	}
	for _, sp := range r.result.Splits {
		decision := "split"
		if sp.Reason == resolve.SplitCannotLink {
			decision = "cannot_link"
		}
		for _, p := range sp.Cut {
			links = append(links, kg.MergeLink{
				ClusterID: cluster(p.A), BCluster: cluster(p.B), A: surfaces[p.A].name, B: surfaces[p.B].name, Cosine: p.Cosine,
				Signals: signalStrings(p.Signals), Band: string(p.Band), Rule: string(sp.Reason), Decision: decision, Doubt: 0.6,
				Score: p.Score,
			})
		}
	}
	slices.SortFunc(merges, func(a, b kg.MergeDecision) int {
		return cmp.Or(strings.Compare(a.ClusterID, b.ClusterID), strings.Compare(a.Member, b.Member), strings.Compare(a.MemberType, b.MemberType))
	})
	slices.SortFunc(links, func(a, b kg.MergeLink) int {
		return cmp.Or(cmp.Compare(b.Doubt, a.Doubt), strings.Compare(a.A, b.A), strings.Compare(a.B, b.B), strings.Compare(a.Decision, b.Decision),
			strings.Compare(a.ClusterID, b.ClusterID), strings.Compare(a.BCluster, b.BCluster), strings.Compare(a.Rule, b.Rule), cmp.Compare(a.Cosine, b.Cosine))
	})
	// Two surfaces of one name (two types) give rows that read alike.
	links = slices.CompactFunc(links, func(a, b kg.MergeLink) bool {
		return a.ClusterID == b.ClusterID && a.BCluster == b.BCluster && a.A == b.A && a.B == b.B && a.Decision == b.Decision &&
			a.Rule == b.Rule && a.Cosine == b.Cosine && slices.Equal(a.Signals, b.Signals)
	})
	return nodes, merges, links
}

// mergedDoubt is how doubtful an accepted link is, in [0, 0.5]: an expert's
// must-link none, a link by cosine more the closer it came to the threshold
// that admitted it; a name-key link without a vector a fixed 0.25.
func mergedDoubt(p resolve.Pair, high, low float64) float64 {
	switch {
	case p.Rule == resolve.RuleMustLink:
		return 0
	case p.Rule == RuleJudge:
		return 0.5 // the model's word alone: as doubtful as a merge can be
	case p.Band == resolve.BandNone:
		return 0.25
	}
	floor := high
	if p.Rule != resolve.RuleCosineHigh && p.Rule != resolve.RuleShortCosine {
		floor = low
	}
	if floor >= 1 {
		return 0
	}
	return 0.5 * (1 - min(1, max(0, (p.Cosine-floor)/(1-floor))))
}

func signalStrings(s []resolve.Signal) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}

// namePair is the order-free key of two names as written.
func namePair(a, b string) [2]string { return [2]string{min(a, b), max(a, b)} }

// appendCannotLinks adds a cannot_link row for every cannot-link override
// that matched two surfaces and is not in the log yet, so a pair an expert
// rejected stays visible, as decided, in the next review.
func appendCannotLinks(links []kg.MergeLink, o *Overrides, surfaces map[string]*surface, r resolved) []kg.MergeLink {
	if o == nil || len(o.CannotLink) == 0 {
		return links
	}
	seen := map[[2]string]bool{}
	for _, l := range links {
		if l.Decision == "cannot_link" {
			seen[namePair(l.A, l.B)] = true
		}
	}
	keys := slices.Sorted(maps.Keys(surfaces))
	find := func(ref resolve.Ref) *surface {
		for _, k := range keys {
			if ref.Matches(surfaces[k].name, surfaces[k].typ) {
				return surfaces[k]
			}
		}
		return nil
	}
	for _, c := range o.CannotLink {
		ra, rb := c.refs()
		a, b := find(ra), find(rb)
		if a == nil || b == nil || a == b || seen[namePair(a.name, b.name)] || r.clusterOf[a.key] == nil || r.clusterOf[b.key] == nil {
			continue
		}
		seen[namePair(a.name, b.name)] = true
		link := kg.MergeLink{
			ClusterID: r.clusterOf[a.key].ID, BCluster: r.clusterOf[b.key].ID, A: a.name, B: b.name,
			Signals: []string{}, Rule: string(resolve.OverrideCannotLink), Decision: "cannot_link",
		}
		if va, vb := r.vectors[a.key], r.vectors[b.key]; len(va) > 0 && len(va) == len(vb) {
			link.Cosine = cosine(va, vb)
		}
		links = append(links, link)
	}
	return links
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Title lengths, in words: a shorter heading ("Suppliers", "Velora
// Cycles") may well be the name of an entity, a longer line is prose.
const (
	minTitleWords = 3
	maxTitleWords = 20
)

// titles returns the normalised titles and headings of the sources: every
// level of a chunk's section path, and the first line of a source's first
// chunk (a PDF's title: "Velora Cycles Quality Review, First Quarter
// 2025"), when it has minTitleWords to maxTitleWords words and does not
// end a sentence.
func titles(chunks []kg.Chunk) map[string]bool {
	out := map[string]bool{}
	add := func(t string) {
		t = strings.TrimSpace(t)
		if n := len(strings.Fields(t)); n < minTitleWords || n > maxTitleWords || strings.HasSuffix(t, ".") {
			return
		}
		out[resolve.NormalizeName(t)] = true
	}
	for _, c := range chunks {
		if c.Section != "" {
			for _, h := range strings.Split(c.Section, " > ") {
				add(h)
			}
		}
		if c.Ordinal == 0 {
			first, _, _ := strings.Cut(strings.TrimSpace(c.Text), "\n")
			add(first)
		}
	}
	return out
}

// markTitles marks the surfaces whose name is a title or a heading of a
// source: such a name names a document or a part of one, not an entity,
// and resolve merges it with no other name (resolve.Entity.Title).
func markTitles(surfaces map[string]*surface, chunks []kg.Chunk) {
	ts := titles(chunks)
	if len(ts) == 0 {
		return
	}
	for _, s := range surfaces {
		s.title = s.row == nil && ts[resolve.NormalizeName(s.name)]
	}
}
