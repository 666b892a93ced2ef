package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"kgforge/consolidate"
	"kgforge/kg"
)

// The link kinds scored, in the order the report lists them.
const (
	KindRowEntity     = "row entity (ROW_OF)"
	KindFK            = "FK edge between row entities"
	KindSameAs        = "entity → row (SAME_AS or merged)"
	KindMentions      = "chunk → row (MENTIONS)"
	KindRepresentedBy = "concept → table (REPRESENTED_BY)"
	KindMeasuredBy    = "concept → column (MEASURED_BY)"
	KindRule          = "rule → column (MEASURED_BY)"
	KindValue         = "value → column"
)

// maxExamples bounds the wrong and missed items a score lists.
const maxExamples = 12

// Score is the precision and recall of one link kind: precision over what
// the bundle links (TP right, FP wrong), recall over what the gold wants
// (Found of Gold).
type Score struct {
	Kind      string   `json:"kind"`
	TP        int      `json:"tp"`
	FP        int      `json:"fp"`
	Unjudged  int      `json:"unjudged,omitempty"` // predictions the gold says nothing of (counted in FP)
	Found     int      `json:"found"`
	Gold      int      `json:"gold"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	Note      string   `json:"note,omitempty"`
	Right     []string `json:"right,omitempty"`
	Wrong     []string `json:"wrong,omitempty"`
	Missed    []string `json:"missed,omitempty"`
}

func (s *Score) finish() {
	if s.TP+s.FP > 0 {
		s.Precision = float64(s.TP) / float64(s.TP+s.FP)
	}
	if s.Gold > 0 {
		s.Recall = float64(s.Found) / float64(s.Gold)
	}
	sort.Strings(s.Right)
	sort.Strings(s.Wrong)
	sort.Strings(s.Missed)
	s.Right = s.Right[:min(len(s.Right), maxExamples)]
	s.Wrong = s.Wrong[:min(len(s.Wrong), maxExamples)]
	s.Missed = s.Missed[:min(len(s.Missed), maxExamples)]
}

func (s *Score) hit()              { s.TP++ }
func (s *Score) right(what string) { s.TP++; s.Right = append(s.Right, what) }
func (s *Score) wrong(what string) { s.FP++; s.Wrong = append(s.Wrong, what) }

// want counts one gold item, found or missed.
func (s *Score) want(found bool, what string) {
	s.Gold++
	if found {
		s.Found++
	} else {
		s.Missed = append(s.Missed, what)
	}
}

// Report is the whole measurement of one bundle.
type Report struct {
	Label        string            `json:"label"`
	HasLinkLog   bool              `json:"has_link_log"`
	Scores       []Score           `json:"scores"`
	EntityTables map[string]int    `json:"entity_tables"` // table → row entities, as built
	Duplicates   []GroupResult     `json:"duplicates"`
	Distinct     []GroupResult     `json:"distinct"`
	Persons      []PersonResult    `json:"persons"`
	Useful       Usefulness        `json:"usefulness"`
	Counts       map[string]int    `json:"counts"` // nodes, edges, chunks, triplets, links, ...
	LinkBands    map[string]int    `json:"link_bands,omitempty"`
	LinkTypes    map[string]int    `json:"link_types,omitempty"`
	EdgeTypes    map[string]int    `json:"edge_types_between_rows,omitempty"`
	Extra        map[string]string `json:"extra,omitempty"`
}

// ScoreBundle measures the link step of a bundle against the gold file.
func ScoreBundle(g *Gold, d *Data, top int) *Report {
	ix := newIndex(d)
	r := &Report{
		HasLinkLog: d.HasLinkLog, EntityTables: map[string]int{},
		Counts: map[string]int{
			"nodes": len(d.Nodes), "edges": len(d.Edges), "chunks": len(d.Chunks),
			"triplets": len(d.Triplets), "links": len(d.Links), "row_entities": len(ix.rowOf),
		},
		LinkBands: map[string]int{}, LinkTypes: map[string]int{},
	}
	for _, t := range ix.rowOf {
		table, _, _ := ParseRow(t)
		r.EntityTables[table]++
	}
	for _, l := range d.Links {
		r.LinkBands[l.Band]++
		r.LinkTypes[l.Type]++
	}
	r.Scores = []Score{
		scoreRows(g, ix), scoreFKs(g, ix, r), scoreSameAs(g, ix), scoreMentions(g, ix),
	}
	cs := scoreConcepts(g, ix)
	r.Scores = append(r.Scores, cs.rep, cs.meas, cs.rule, scoreValues(g, ix))
	r.Duplicates = scoreDuplicates(g, ix, top)
	r.Distinct = scoreDistinct(g, ix)
	r.Persons = scorePersons(g, ix)
	r.Useful = usefulness(g, ix)
	return r
}

// scoreRows compares the row entities built with the gold rows.
func scoreRows(g *Gold, ix *index) Score {
	s := Score{Kind: KindRowEntity}
	gold := map[string]GoldRow{}
	for _, row := range g.Rows {
		gold[row.Row] = row
	}
	noEdge, badName := 0, 0
	for id, t := range ix.rowOf {
		row, ok := gold[t]
		if !ok {
			s.wrong(t)
			continue
		}
		s.hit()
		if Key(ix.node[id].Name) != Key(row.Name) {
			badName++
		}
		if !ix.hasRowOf(id) {
			noEdge++
		}
	}
	for t := range gold {
		s.want(ix.rowNode[t] != "", t)
	}
	s.Note = fmt.Sprintf("%d right rows without a ROW_OF edge to their table; %d named otherwise than the gold", noEdge, badName)
	s.finish()
	return s
}

// hasRowOf reports whether a row entity has its ROW_OF edge to its table.
func (ix *index) hasRowOf(id string) bool {
	table := ix.node[id].Properties[kg.PropTable]
	for _, e := range ix.d.Edges {
		if e.Src == id && e.Type == kg.LinkRowOf && e.Dst == kg.TableNodeID(table) {
			return true
		}
	}
	return false
}

// scoreFKs compares edges between row entities with the gold foreign keys;
// an edge either way between the right rows counts.
func scoreFKs(g *Gold, ix *index, r *Report) Score {
	s := Score{Kind: KindFK}
	gold := map[[2]string]bool{}
	for _, fk := range g.FKs {
		gold[[2]string{fk.From, fk.To}] = true
	}
	r.EdgeTypes = map[string]int{}
	seen := map[[2]string]bool{}
	for _, e := range ix.d.Edges {
		a, b := ix.rowOf[e.Src], ix.rowOf[e.Dst]
		if a == "" || b == "" || a == b {
			continue
		}
		r.EdgeTypes[e.Type]++
		pair := [2]string{a, b}
		if gold[[2]string{b, a}] {
			pair = [2]string{b, a}
		}
		if seen[pair] {
			continue
		}
		seen[pair] = true
		if gold[pair] {
			s.hit()
		} else {
			s.wrong(fmt.Sprintf("%s -[%s]-> %s", a, e.Type, b))
		}
	}
	for p := range gold {
		s.want(seen[p], p[0]+" → "+p[1])
	}
	s.finish()
	return s
}

// goldRowOfName maps each name key of the gold rows (names and surfaces)
// to its row.
func goldRowOfName(g *Gold) map[string]string {
	m := map[string]string{}
	for _, row := range g.Rows {
		m[Key(row.Name)] = row.Row
		for _, s := range row.Surfaces {
			m[Key(s.Name)] = row.Row
		}
	}
	return m
}

// scoreSameAs judges the entities the model extracted: each extracted name
// that is a gold row should have ended in that row's entity (merged into
// it, or SAME_AS it), and in no other node; any other extracted name that
// ended in a row entity is wrong. Without extraction there is nothing to
// judge.
func scoreSameAs(g *Gold, ix *index) Score {
	s := Score{Kind: KindSameAs}
	goldRow := goldRowOfName(g)
	extracted := ix.extractedNames()
	keys := make([]string, 0, len(extracted))
	for k := range extracted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := 0
	for _, k := range keys {
		want := goldRow[k]
		rows, loose := ix.resolvedRows(k)
		for _, row := range rows {
			switch {
			case row != want:
				s.wrong(fmt.Sprintf("%q → %s", extracted[k], row))
			case !loose:
				s.hit()
			}
		}
		if want != "" {
			n++
			s.want(slices.Contains(rows, want) && !loose, fmt.Sprintf("%q → %s", extracted[k], want))
		}
	}
	s.Note = fmt.Sprintf("%d extracted names, %d of them gold names of rows (of %d gold names)", len(extracted), n, len(goldRow))
	if len(extracted) == 0 {
		s.Note = "no extracted entities: nothing to resolve onto rows"
	}
	s.finish()
	return s
}

// extractedNames returns the names extraction brought into the graph (the
// subjects and objects of triplets, and every member of the merge log that
// is not a row entity's own anchor), by name key.
func (ix *index) extractedNames() map[string]string {
	out := map[string]string{}
	for _, t := range ix.d.Triplets {
		for _, m := range []kg.Mention{t.Subject, t.Object} {
			out[Key(m.Surface)] = m.Surface
		}
	}
	for _, m := range ix.d.Merges {
		if m.Rule != consolidate.RuleRowAnchor {
			out[Key(m.Member)] = m.Member
		}
	}
	return out
}

// resolvedRows returns the rows the nodes carrying a name key are (their
// own or SAME_AS), and whether some node carrying it is no row at all (an
// extracted entity left apart from the row of the same name).
func (ix *index) resolvedRows(k string) (rows []string, loose bool) {
	for _, id := range ix.byKey[k] {
		rs := ix.rowsOfNode(id)
		if len(rs) == 0 {
			loose = true
		}
		for _, r := range rs {
			rows = appendUnique(rows, r)
		}
	}
	return rows, loose
}

// goldMentions returns the chunk → row pairs the gold implies: a chunk of a
// file that a surface of the row is cited in, whose text holds that
// surface (as name keys).
func goldMentions(g *Gold, ix *index, withVariants bool) map[[2]string]bool {
	gold := map[[2]string]bool{}
	chunks := ix.chunkKeys()
	for _, row := range g.Rows {
		for _, sf := range row.Surfaces {
			if sf.Variant && !withVariants {
				continue
			}
			files := map[string]bool{}
			for _, at := range sf.At {
				files[fileOf(at)] = true
			}
			k := Key(sf.Name)
			for _, c := range chunks {
				if files[c.uri] && containsWords(c.key, k) {
					gold[[2]string{c.id, row.Row}] = true
				}
			}
		}
	}
	return gold
}

// scoreMentions compares the chunk → row entity MENTIONS edges with the
// gold mentions (variant surfaces included).
func scoreMentions(g *Gold, ix *index) Score {
	s := Score{Kind: KindMentions}
	gold := goldMentions(g, ix, true)
	uri := map[string]string{}
	for _, c := range ix.d.Chunks {
		uri[c.ID] = ix.d.SourceURI[c.SourceID]
	}
	for p := range ix.chunkRow {
		if gold[p] {
			s.hit()
		} else {
			s.wrong(fmt.Sprintf("%s chunk %s → %s", uri[p[0]], short(p[0]), p[1]))
		}
	}
	for p := range gold {
		s.want(ix.chunkRow[p], fmt.Sprintf("%s chunk %s → %s", uri[p[0]], short(p[0]), p[1]))
	}
	exact := goldMentions(g, ix, false)
	found := 0
	for p := range exact {
		if ix.chunkRow[p] {
			found++
		}
	}
	s.Note = fmt.Sprintf("recall on the rows' own names (no variants): %d/%d", found, len(exact))
	s.finish()
	return s
}

func short(id string) string { return id[:min(len(id), 8)] }

// predictedLink is one concept link the bundle makes, from an edge or a
// linked entry of the link log.
type predictedLink struct{ src, typ, target string }

func (ix *index) conceptLinks() []predictedLink {
	seen := map[predictedLink]bool{}
	var out []predictedLink
	add := func(p predictedLink) {
		if p.target != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, e := range ix.d.Edges {
		if e.Type == kg.LinkRepresentedBy || e.Type == kg.LinkMeasuredBy {
			if n := ix.node[e.Src]; n != nil {
				add(predictedLink{n.Name, e.Type, ix.targetOf(e.Dst)})
			}
		}
	}
	for _, l := range ix.d.Links {
		if (l.Type == kg.LinkRepresentedBy || l.Type == kg.LinkMeasuredBy) && l.Band == kg.LinkBandLinked {
			add(predictedLink{l.SrcName, l.Type, l.Target})
		}
	}
	return out
}

// conceptsOf returns the gold concepts a name is one of the names of.
func conceptsOf(g *Gold, name string) []GoldConcept {
	k := Key(name)
	var out []GoldConcept
	for _, c := range g.Concepts {
		if slices.ContainsFunc(c.Names, func(n string) bool { return Key(n) == k }) {
			out = append(out, c)
		}
	}
	return out
}

// minRuleWords is the fewest words a rule's name or sentence needs for one
// holding the other to count as the same rule.
const minRuleWords = 5

// ruleOf returns the gold rule a node's name is: the rule's sentence, or
// a text that holds it or that it holds (either of five words or more).
func ruleOf(g *Gold, name string) (GoldRule, bool) {
	k := Key(name)
	for _, r := range g.Rules {
		rk := Key(r.Rule)
		short := min(len(strings.Fields(k)), len(strings.Fields(rk)))
		if k == rk || (short >= minRuleWords && (containsWords(k, rk) || containsWords(rk, k))) {
			return r, true
		}
	}
	return GoldRule{}, false
}

// entityNames are the name keys of the gold's entities (rows, values,
// persons): a concept link from one of them is wrong.
func entityNames(g *Gold) map[string]bool {
	m := map[string]bool{}
	for k := range goldRowOfName(g) {
		m[k] = true
	}
	for _, v := range g.Values {
		for _, n := range append([]string{v.Name}, v.Aliases...) {
			m[Key(n)] = true
		}
	}
	for _, p := range g.Persons {
		m[Key(p.Name)] = true
	}
	return m
}

// conceptScores are the three kinds of semantic links.
type conceptScores struct{ rep, meas, rule Score }

// scoreConcepts scores REPRESENTED_BY (table targets), MEASURED_BY from
// concepts (column targets) and MEASURED_BY from rules. A link is right
// when its source is a gold rule or concept and its target one of its
// targets or also-targets; wrong when the target is not, or when the
// source is an entity of the gold; unjudged (and counted wrong) when the
// gold does not know its source.
func scoreConcepts(g *Gold, ix *index) conceptScores {
	cs := conceptScores{Score{Kind: KindRepresentedBy}, Score{Kind: KindMeasuredBy}, Score{Kind: KindRule}}
	ents, values := entityNames(g), valueColumns(g)
	found := map[[2]string]bool{} // {concept or rule, target} found
	for _, p := range ix.conceptLinks() {
		if cols, ok := values[Key(p.src)]; ok && slices.Contains(cols, p.target) {
			continue // a value linked to its column: scored as a value link
		}
		what := fmt.Sprintf("%q -[%s]-> %s", p.src, p.typ, p.target)
		if r, ok := ruleOf(g, p.src); ok {
			if slices.Contains(r.Targets, p.target) || slices.Contains(r.Also, p.target) {
				found[[2]string{r.Rule, p.target}] = true
				cs.rule.right(what)
			} else {
				cs.rule.wrong(what)
			}
			continue
		}
		s := &cs.rep
		if strings.Contains(p.target, ".") {
			s = &cs.meas
		}
		judged, ok := conceptsOf(g, p.src), false
		for _, c := range judged {
			if slices.Contains(c.Targets, p.target) || slices.Contains(c.Also, p.target) {
				ok = true
				found[[2]string{c.Concept, p.target}] = true
			}
		}
		switch {
		case ok:
			s.right(what)
		case len(judged) > 0 || ents[Key(p.src)]:
			s.wrong(what)
		default:
			s.Unjudged++
			s.wrong(what + " (unjudged)")
		}
	}
	cs.wants(g, ix, found)
	return cs
}

// wants counts the gold links: every target of a rule, every target of a
// concept that is not optional (the optional ones go in the notes).
func (cs *conceptScores) wants(g *Gold, ix *index, found map[[2]string]bool) {
	unseen := 0
	for _, r := range g.Rules {
		if !ix.hasSource(fileOf(r.At)) {
			unseen++
			continue
		}
		for _, t := range r.Targets {
			cs.rule.want(found[[2]string{r.Rule, t}], fmt.Sprintf("%q → %s", r.Rule, t))
		}
	}
	var optional [2]int // found, of
	for _, c := range g.Concepts {
		for _, t := range c.Targets {
			f := found[[2]string{c.Concept, t}]
			if c.Optional {
				optional[1]++
				if f {
					optional[0]++
				}
				continue
			}
			s := &cs.rep
			if strings.Contains(t, ".") {
				s = &cs.meas
			}
			s.want(f, c.Concept+" → "+t)
		}
	}
	note := fmt.Sprintf("optional gold links found: %d/%d (tables and columns)", optional[0], optional[1])
	cs.rep.Note, cs.meas.Note = note, note
	if unseen > 0 {
		cs.rule.Note = fmt.Sprintf("%d rules of documents the bundle does not hold left out", unseen)
	}
	for _, s := range []*Score{&cs.rep, &cs.meas, &cs.rule} {
		s.finish()
	}
}
