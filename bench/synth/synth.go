package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"kgforge/kg"
)

// types are the entity types of the concept nodes.
var types = []string{
	"Company", "Product", "Person", "Location", "Organization", "Part",
	"Material", "Process", "Standard", "Regulation", "Metric", "Event",
}

// predicates are the fact types of the edges, in lower snake case as the
// extractor normalises them.
var predicates = []string{
	"supplies", "manufactures", "located_in", "part_of", "owned_by", "employs",
	"works_for", "produces", "uses", "requires", "complies_with", "regulated_by",
	"measured_by", "depends_on", "replaces", "competes_with", "partners_with",
	"ships_to", "buys_from", "installed_in", "made_of", "tested_by",
	"certified_by", "reports_to", "founded_by", "headquartered_in",
	"affects", "causes", "precedes", "contains",
}

// Structural edge types, as consolidate names them.
const (
	edgeHasChunk = "HAS_CHUNK"
	edgeMentions = "MENTIONS"
)

var words = strings.Fields(`
	alpine amber apex arc argent atlas aurora axial basalt beacon birch bolt
	boreal brass bridge carbon cascade cedar centric cobalt comet copper coral
	crest crown delta drift dune eastern echo ember falcon fjord flint forge
	frontier gale garnet glacier granite graphite harbor hawk helix highland
	horizon hydro iron jade juniper keystone kinetic lumen lunar magnet maple
	marble meridian mesa metro nimbus nordic north oak onyx orbit pacific
	pine pioneer polar prairie prism pulse quartz radial raven ridge river
	sable saffron sierra silver solar spruce steel stellar stone summit
	tandem terra tidal timber titan torque tundra union vale vector velora
	vertex vista volt willow zenith axle bearing brake cable chain clamp
	crank derailleur fork frame gear hub lever pedal rim saddle shifter
	spoke sprocket tire valve weld alloy resin polymer fiber composite
	assembly plant depot works labs systems logistics dynamics mobility
	components industries group partners foundry cycles motors energy`)

var adjectives = strings.Fields(`regional certified primary secondary
	critical leading independent integrated modular lightweight durable
	automated licensed preferred strategic domestic overseas quarterly annual`)

var clauses = []string{
	"that supplies components to assembly plants in the northern region",
	"operating under a long-term framework agreement signed in 2021",
	"responsible for quality checks on incoming aluminium and steel parts",
	"named in the 2024 supplier audit as a critical single source",
	"whose lead times were reviewed after the spring shortage",
	"used by the maintenance team to track recurring defects",
	"with two production lines and a small testing laboratory",
	"covered by the handbook section on safety and compliance",
	"listed in the procurement database with net-60 payment terms",
	"that replaced an older design after the 2023 recall",
}

// Graph returns a synthetic graph of nodes nodes and rels edges, the same
// for the same arguments. About 1% of the nodes are documents and 4% chunks
// (at least one of each when nodes > 2); the rest are concepts. Edges are
// one HAS_CHUNK per chunk, about 10% MENTIONS from a chunk to a concept, and
// facts between concepts; edge ids are unique (a repeated source, type and
// destination is skipped and drawn again). A graph too small to hold rels
// distinct edges gets fewer. Nodes and edges are sorted by id, as
// consolidate returns them.
func Graph(nodes, rels int, seed int64) kg.Graph {
	var g kg.Graph
	if nodes <= 0 {
		return g
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x6b67666f726765)) //nolint:gosec // benchmark data, not secrets
	gen := &generator{r: r, names: map[string]bool{}}

	docs, chunks := 0, 0
	if nodes > 2 {
		docs = max(1, nodes/100)
		chunks = max(1, nodes*4/100)
	}
	concepts := nodes - docs - chunks

	docIDs := make([]string, docs)
	for i := range docs {
		uri := fmt.Sprintf("docs/%s-%04d.md", gen.word(), i)
		id := kg.ID("source", uri)
		docIDs[i] = id
		g.Nodes = append(g.Nodes, kg.Node{
			ID: id, Name: uri, Kind: kg.NodeDocument, Labels: []string{"Document"},
			Properties: map[string]string{"uri": uri, "sha256": kg.ID("sha", uri) + kg.ID("sha2", uri), "kind": "markdown"},
		})
	}
	chunkIDs := make([]string, chunks)
	chunkDoc := make([]string, chunks)
	ordinals := make([]int, docs)
	for i := range chunks {
		d := i * docs / chunks
		doc, ordinal := docIDs[d], ordinals[d]
		ordinals[d]++
		id := kg.ChunkID(doc, fmt.Sprintf("chunk %d of %s", ordinal, doc))
		chunkIDs[i], chunkDoc[i] = id, doc
		start := ordinal * 1200
		g.Nodes = append(g.Nodes, kg.Node{
			ID: id, Name: fmt.Sprintf("%s#%d", doc, ordinal), Kind: kg.NodeChunk,
			Labels: []string{"Chunk"}, ChunkIDs: []string{id},
			Properties: map[string]string{
				"source_id": doc, "ordinal": fmt.Sprint(ordinal), "section": gen.title(2),
				"start": fmt.Sprint(start), "end": fmt.Sprint(start + 1200),
			},
		})
	}
	if chunks == 0 { // concepts still cite chunks
		chunkIDs = []string{kg.ChunkID("synthetic", "chunk")}
		chunkDoc = []string{kg.ID("source", "synthetic")}
	}
	docOf := make(map[string]string, len(chunkIDs))
	for i, c := range chunkIDs {
		docOf[c] = chunkDoc[i]
	}

	first := len(g.Nodes)
	for range concepts {
		typ := types[r.IntN(len(types))]
		name := gen.name()
		n := kg.Node{
			ID: kg.ID("entity", kg.NormalizeName(name)), Name: name, Kind: kg.NodeConcept,
			Labels: []string{"Entity", typ}, Description: gen.description(name, typ),
			Aliases: gen.aliases(name), Properties: map[string]string{"type": typ},
		}
		for range 1 + r.IntN(4) {
			n.ChunkIDs = appendUnique(n.ChunkIDs, chunkIDs[r.IntN(len(chunkIDs))])
		}
		slices.Sort(n.ChunkIDs)
		g.Nodes = append(g.Nodes, n)
	}
	conceptNodes := g.Nodes[first:]

	seen := make(map[string]bool, rels)
	add := func(e kg.Edge) bool {
		if seen[e.ID] {
			return false
		}
		seen[e.ID] = true
		g.Edges = append(g.Edges, e)
		return true
	}
	for i := range min(chunks, rels) {
		add(kg.Edge{
			ID: kg.EdgeID(chunkDoc[i], edgeHasChunk, chunkIDs[i]), Src: chunkDoc[i], Dst: chunkIDs[i],
			Type: edgeHasChunk, Confidence: 1, ChunkIDs: []string{chunkIDs[i]},
		})
	}
	if len(conceptNodes) > 0 {
		pick := gen.picker(len(conceptNodes))
		wantMentions := len(g.Edges) + (rels-len(g.Edges))/10
		if chunks == 0 {
			wantMentions = len(g.Edges) // no chunk nodes to start from
		}
		for tries := 0; len(g.Edges) < wantMentions && tries < 20*rels; tries++ {
			n := &conceptNodes[pick()]
			c := n.ChunkIDs[r.IntN(len(n.ChunkIDs))]
			add(kg.Edge{ID: kg.EdgeID(c, edgeMentions, n.ID), Src: c, Dst: n.ID, Type: edgeMentions, Confidence: 1, ChunkIDs: []string{c}})
		}
		for tries := 0; len(g.Edges) < rels && len(conceptNodes) > 1 && tries < 20*rels; tries++ {
			s, o := &conceptNodes[pick()], &conceptNodes[pick()]
			if s == o {
				continue
			}
			p := predicates[r.IntN(len(predicates))]
			id := kg.EdgeID(s.ID, p, o.ID)
			if seen[id] {
				continue
			}
			add(gen.fact(id, s, p, o, docOf))
		}
	}
	slices.SortFunc(g.Nodes, func(a, b kg.Node) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Edges, func(a, b kg.Edge) int { return strings.Compare(a.ID, b.ID) })
	return g
}

type generator struct {
	r     *rand.Rand
	names map[string]bool // normalised names taken, so concept ids are unique
}

func (gen *generator) word() string { return words[gen.r.IntN(len(words))] }

func (gen *generator) title(n int) string {
	parts := make([]string, n)
	for i := range parts {
		w := gen.word()
		parts[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(parts, " ")
}

// name returns an unused name of two to four words.
func (gen *generator) name() string {
	for tries := 0; ; tries++ {
		name := gen.title(2 + gen.r.IntN(3))
		if tries > 8 {
			name = fmt.Sprintf("%s %d", name, len(gen.names))
		}
		if k := kg.NormalizeName(name); !gen.names[k] {
			gen.names[k] = true
			return name
		}
	}
}

// description returns one sentence of 80 to 150 bytes.
func (gen *generator) description(name, typ string) string {
	target := 80 + gen.r.IntN(71)
	adj := adjectives[gen.r.IntN(len(adjectives))]
	article := "a"
	if strings.ContainsRune("aeiou", rune(adj[0])) {
		article = "an"
	}
	s := fmt.Sprintf("%s is %s %s %s", name, article, adj, strings.ToLower(typ))
	for len(s) < target {
		s += " " + clauses[gen.r.IntN(len(clauses))]
	}
	if len(s) > 149 {
		s = s[:149]
		if i := strings.LastIndexByte(s, ' '); i >= 80 {
			s = s[:i]
		}
	}
	return s + "."
}

// aliases returns one to three other surface forms of name.
func (gen *generator) aliases(name string) []string {
	f := strings.Fields(name)
	var initials strings.Builder
	for _, w := range f {
		initials.WriteByte(w[0])
	}
	forms := []string{
		strings.ToLower(name),
		initials.String(),
		name + " " + []string{"Inc.", "Ltd", "GmbH", "S.A.", "Co."}[gen.r.IntN(5)],
		strings.Join(f[1:], " "),
	}
	n := 1 + gen.r.IntN(3)
	var out []string
	for _, i := range gen.r.Perm(len(forms)) {
		if len(out) < n && forms[i] != name {
			out = appendUnique(out, forms[i])
		}
	}
	slices.Sort(out)
	return out
}

// picker draws concept indexes: half uniformly, half from a Zipf law, so a
// few hub nodes have many edges as in real graphs.
func (gen *generator) picker(n int) func() int {
	if n == 1 {
		return func() int { return 0 }
	}
	z := rand.NewZipf(gen.r, 1.2, 4, uint64(n-1))
	// The hubs are spread over the index range, not the first nodes.
	perm := gen.r.Perm(n)
	return func() int {
		if gen.r.IntN(2) == 0 {
			return gen.r.IntN(n)
		}
		return perm[z.Uint64()]
	}
}

func (gen *generator) fact(id string, s *kg.Node, p string, o *kg.Node, docOf map[string]string) kg.Edge {
	r := gen.r
	chunk := s.ChunkIDs[r.IntN(len(s.ChunkIDs))]
	chunks := []string{chunk}
	if r.IntN(4) == 0 {
		chunks = appendUnique(chunks, o.ChunkIDs[r.IntN(len(o.ChunkIDs))])
		slices.Sort(chunks)
	}
	evidence := fmt.Sprintf("%s %s %s", s.Name, strings.ReplaceAll(p, "_", " "), o.Name)
	for len(evidence) < 90 {
		evidence += " " + clauses[r.IntN(len(clauses))]
	}
	if len(evidence) > 120 {
		evidence = evidence[:120]
		if i := strings.LastIndexByte(evidence, ' '); i >= 90 {
			evidence = evidence[:i]
		}
	}
	evidence += "."
	start := r.IntN(4000)
	e := kg.Edge{
		ID: id, Src: s.ID, Dst: o.ID, Type: p, Confidence: 1, Evidence: evidence, ChunkIDs: chunks,
		Properties: map[string]string{"evidence_span": fmt.Sprintf("%s:%d-%d", docOf[chunk], start, start+len(evidence))},
	}
	if r.IntN(5) == 0 {
		e.Confidence = 0.9
	}
	if r.IntN(20) == 0 {
		e.ValidFrom = fmt.Sprintf("20%02d-%02d-01", 18+r.IntN(8), 1+r.IntN(12))
	}
	return e
}

func appendUnique(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}
