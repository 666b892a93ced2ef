package link

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"kgforge/kg"
)

// Concept link defaults (docs/linking.md, "Concepts → tables and columns").
const (
	// DefaultConceptHigh and DefaultConceptLow are the bands of a concept
	// link's score when Config.High and Config.Low are zero.
	DefaultConceptHigh = 0.8
	DefaultConceptLow  = 0.4
	// ConceptFloor is the least score of a candidate the link log keeps.
	ConceptFloor = 0.25
	// ConceptNeighbours is how many nearest tables and how many nearest
	// columns (by cosine) each concept gets as candidates.
	ConceptNeighbours = 5
	// ConceptTokenFanout bounds blocking by words: a word that names more
	// targets than this blocks none of them (it says too little).
	ConceptTokenFanout = 50
	// ConceptEmbedWeight is the most the embedding adds: a candidate with
	// no name or value signal scores at most this, under the default High.
	ConceptEmbedWeight = 0.6
)

// The rules of concept links, in kg.Link.Rule.
const (
	RuleConceptHigh      = "score_high"      // score ≥ High
	RuleConceptUncertain = "score_uncertain" // Low ≤ score < High
	RuleConceptLow       = "score_low"       // score < Low
	RuleConceptNotBest   = "not_best_table"  // another table scored higher for the concept
	RuleConceptMustLink  = "must_link"       // an expert's override
	RuleConceptCannot    = "cannot_link"     // an expert's override
)

// DecidedByAuto marks a link the scores decided.
const DecidedByAuto = "auto"

// conceptTarget is one table or column a concept may link to.
type conceptTarget struct {
	typ, target, dst string
	table            *kg.Table
	col              *kg.Column // nil for a table
	words            []string   // a column's words, or a table's
	tableWords       []string   // the table's words
	head             []string   // the table's own name: its origin's words, else its name's
	values           []string   // normalised sample values (text columns)
	valueStems       map[string]bool
	measure          bool // a column of numbers that is not a key
	thing            bool // a table with a name-like column: its rows are things
	quantity         bool // a table of a quantity (conceptQuantityTable)
	text             string
}

// conceptSource is one concept node with its words.
type conceptSource struct {
	node  *kg.Node
	names [][]string // the words of its name and of each alias
	text  string
}

// Concepts links concept nodes to the tables that represent them
// (REPRESENTED_BY) and to the columns that measure them (MEASURED_BY).
// Which nodes are concepts is IsConcept's rule. Every candidate scoring at
// least ConceptFloor is a link of the log; the linked ones are also edges.
// An expert's override applies to any extracted node, concept or not.
// emb may be nil: then names and values alone decide. Overrides apply
// first. Links and edges come sorted by id; the same input gives the same
// output.
func Concepts(ctx context.Context, nodes []kg.Node, tables []kg.Table, emb Embedder, cfg Config) ([]kg.Link, []kg.Edge, error) {
	targets := conceptTargets(tables)
	proper := conceptProperNames(tables)
	var srcs, extracted []conceptSource // the concepts; every extracted node, for the overrides
	for i := range nodes {
		if nodes[i].Kind != kg.NodeConcept || nodes[i].Properties[kg.PropTable] != "" {
			continue
		}
		src := newConceptSource(&nodes[i])
		extracted = append(extracted, src)
		if IsConcept(nodes[i], proper) {
			srcs = append(srcs, src)
		}
	}
	var cos func(s, t int) float64
	var near [][]int
	if emb != nil && len(srcs) > 0 && len(targets) > 0 {
		sv, tv, err := conceptVectors(ctx, emb, srcs, targets)
		if err != nil {
			return nil, nil, err
		}
		cos = func(s, t int) float64 { return conceptDot(sv[s], tv[t]) }
		near = nearestTargets(sv, tv, targets)
	}
	byTarget := map[string]int{}
	for i, t := range targets {
		byTarget[t.typ+"\x00"+t.target] = i
	}
	index := conceptIndex(targets)
	var links []kg.Link
	for s := range srcs {
		cands := conceptCandidates(srcs[s], index, targets)
		if near != nil {
			cands = append(cands, near[s]...)
		}
		slices.Sort(cands)
		cands = slices.Compact(cands)
		tableScore := map[string]float64{}
		for _, t := range cands {
			if targets[t].col == nil {
				tableScore[targets[t].table.Name] = conceptTableName(srcs[s], targets[t])
			}
		}
		for _, t := range cands {
			c := -1.0
			if cos != nil {
				c = cos(s, t)
			}
			score, signals := scoreConcept(srcs[s], targets[t], c, tableScore[targets[t].table.Name])
			if score >= ConceptFloor {
				links = append(links, conceptLink(srcs[s], targets[t], score, signals))
			}
		}
	}
	links = bandConceptLinks(links, cfg)
	links = applyConceptOverrides(links, extracted, targets, byTarget, cfg.Overrides)
	slices.SortFunc(links, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) })
	return links, conceptEdges(links), nil
}

// conceptAggregates are words that ask for an aggregate of a measure, not
// another measure: "highest supplier rating" is measured by
// suppliers.rating.
var conceptAggregates = map[string]bool{
	"highest": true, "lowest": true, "average": true, "mean": true, "total": true, "maximum": true,
	"minimum": true, "max": true, "min": true, "sum": true, "median": true,
}

func newConceptSource(n *kg.Node) conceptSource {
	s := conceptSource{node: n, text: n.Name}
	for _, name := range append([]string{n.Name}, n.Aliases...) {
		ws := slices.DeleteFunc(conceptTokens(name), func(w string) bool { return conceptAggregates[w] })
		if len(ws) > 0 {
			s.names = append(s.names, ws)
		}
	}
	if n.Description != "" {
		s.text = n.Name + ": " + n.Description
	}
	return s
}

// conceptTargets returns every table and every non-key column as a target.
func conceptTargets(tables []kg.Table) []conceptTarget {
	var out []conceptTarget
	for i := range tables {
		t := &tables[i]
		tw := conceptTokens(t.Name)
		head := tw
		if o := conceptTokens(t.Origin); len(o) > 0 {
			head = o
		}
		thing := false
		var cols []string
		for _, c := range t.Columns {
			cols = append(cols, strings.Join(conceptWords(c.Name), " "))
			if ws := conceptWords(c.Name); conceptIsText(c.Type) && len(ws) > 0 && (ws[len(ws)-1] == "name" || ws[len(ws)-1] == "title") {
				thing = true
			}
		}
		quantity := conceptQuantityTable(*t, thing)
		out = append(out, conceptTarget{
			typ: kg.LinkRepresentedBy, target: t.Name, dst: kg.TableNodeID(t.Name), table: t,
			words: tw, tableWords: tw, head: head, thing: thing, quantity: quantity,
			text: "table " + strings.Join(conceptWords(t.Name), " ") + ": " + strings.Join(cols, ", "),
		})
		for j := range t.Columns {
			c := &t.Columns[j]
			if conceptKey(*t, c.Name) {
				continue
			}
			ct := conceptTarget{
				typ: kg.LinkMeasuredBy, target: t.Name + "." + c.Name, dst: kg.ColumnNodeID(t.Name, c.Name),
				table: t, col: c, words: columnTokens(c.Name, head), tableWords: tw, head: head, thing: thing, quantity: quantity,
				measure: conceptIsNumeric(c.Type), valueStems: map[string]bool{},
			}
			ct.text = fmt.Sprintf("%s %s: %s", strings.Join(conceptWords(t.Name), " "), strings.Join(conceptWords(c.Name), " "), c.Type)
			if len(c.Samples) > 0 {
				ct.text += ", e.g. " + strings.Join(c.Samples, ", ")
			}
			if conceptIsText(c.Type) {
				for _, v := range slices.Concat(c.Samples, []string{c.Min, c.Max}) {
					if v = kg.NormalizeName(v); v != "" && !slices.Contains(ct.values, v) {
						ct.values = append(ct.values, v)
						for _, w := range conceptTokens(v) {
							ct.valueStems[conceptStem(w)] = true
						}
					}
				}
			}
			out = append(out, ct)
		}
	}
	return out
}

// conceptKey reports whether a column is a key or a reference to one: its
// name is id or ends in id, or it is a candidate key or a foreign key. A
// concept is never measured by a key; it is represented by the table the
// key names.
func conceptKey(t kg.Table, col string) bool {
	ws := conceptWords(col)
	if len(ws) > 0 && ws[len(ws)-1] == "id" || slices.Contains(t.PrimaryKeys, col) {
		return true
	}
	return slices.ContainsFunc(t.ForeignKeys, func(fk kg.ForeignKey) bool { return fk.Column == col })
}

// conceptIndex maps a word to the targets it names: a table by its words,
// a column by its words and by the words of its sample values.
func conceptIndex(targets []conceptTarget) map[string][]int {
	index := map[string][]int{}
	for i, t := range targets {
		words := slices.Clone(t.words)
		for w := range t.valueStems {
			words = append(words, w)
		}
		for _, w := range words {
			if n := len(index[w]); n == 0 || index[w][n-1] != i {
				index[w] = append(index[w], i)
			}
		}
	}
	return index
}

// conceptCandidates returns the targets that share a word with s: blocking
// by names. A word that names more than ConceptTokenFanout targets blocks
// none. The measure column of a table the concept names is a candidate too.
func conceptCandidates(s conceptSource, index map[string][]int, targets []conceptTarget) []int {
	var out []int
	for _, ws := range s.names {
		for _, w := range ws {
			for _, k := range []string{w, conceptStem(w)} {
				if hits := index[k]; len(hits) <= ConceptTokenFanout {
					out = append(out, hits...)
				}
			}
		}
	}
	for _, i := range slices.Clone(out) {
		if targets[i].col != nil {
			continue
		}
		for j := i + 1; j < len(targets) && targets[j].col != nil && targets[j].table == targets[i].table; j++ {
			if conceptMeasureOf(targets[j]) {
				out = append(out, j)
			}
		}
	}
	return out
}

// conceptVectors embeds the concepts and the targets in one call.
func conceptVectors(ctx context.Context, emb Embedder, srcs []conceptSource, targets []conceptTarget) (sv, tv [][]float32, err error) {
	texts := make([]string, 0, len(srcs)+len(targets))
	for _, s := range srcs {
		texts = append(texts, s.text)
	}
	for _, t := range targets {
		texts = append(texts, t.text)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("link concepts: embed %d concepts and %d tables and columns: %w", len(srcs), len(targets), err)
	}
	if len(vecs) != len(texts) {
		return nil, nil, fmt.Errorf("link concepts: the embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i := range vecs {
		vecs[i] = conceptUnit(vecs[i])
	}
	return vecs[:len(srcs)], vecs[len(srcs):], nil
}

// nearestTargets returns, per concept, its ConceptNeighbours nearest
// tables and nearest columns: blocking by embedding. It compares every
// concept with every target, len(sv)·len(tv) dot products.
func nearestTargets(sv, tv [][]float32, targets []conceptTarget) [][]int {
	out := make([][]int, len(sv))
	for s := range sv {
		type hit struct {
			t   int
			cos float64
		}
		var tables, cols []hit
		for t := range tv {
			h := hit{t, conceptDot(sv[s], tv[t])}
			if targets[t].col == nil {
				tables = append(tables, h)
			} else {
				cols = append(cols, h)
			}
		}
		for _, hs := range [][]hit{tables, cols} {
			slices.SortFunc(hs, func(a, b hit) int {
				return cmp.Or(cmp.Compare(b.cos, a.cos), strings.Compare(targets[a.t].target, targets[b.t].target))
			})
			for _, h := range hs[:min(ConceptNeighbours, len(hs))] {
				out[s] = append(out[s], h.t)
			}
		}
	}
	return out
}

func conceptUnit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(n))
	}
	return out
}

func conceptDot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func conceptLink(s conceptSource, t conceptTarget, score float64, signals []string) kg.Link {
	return kg.Link{
		ID: kg.EdgeID(s.node.ID, t.typ, t.dst), Src: s.node.ID, SrcName: s.node.Name, Dst: t.dst,
		Target: t.target, Type: t.typ, Score: conceptRound(score), Signals: signals, DecidedBy: DecidedByAuto,
	}
}

func conceptRound(x float64) float64 { return math.Round(x*1000) / 1000 }
