package link

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"kgforge/kg"
)

// The scores of the columns a stated rule speaks of (docs/linking.md).
const (
	ruleScoreNamedTable = 0.9  // the column by its words, the table named too
	ruleScoreTwoColumns = 0.85 // the column by its words, beside another column of the table
	ruleScoreValue      = 0.8  // one of the column's categorical values ("delayed" of orders.status)
	// ruleMaxDistinct bounds the distinct values of a column whose values
	// count as naming it: beyond, a value in a sentence is a thing, not a
	// category.
	ruleMaxDistinct = 50
	// ruleMaxName is the longest rule name, in runes; the whole sentence is
	// the node's description.
	ruleMaxName = 200
)

// LabelRule is the label (and type) of the node of a rule a document states.
const LabelRule = "Rule"

// ruleMarkers are the words that make a sentence a rule or a threshold,
// not a plain fact: "must", "cannot", "requires", "if", "at least",
// "below", "every", ...
var ruleMarkers = map[string]bool{
	"must": true, "cannot": true, "should": true, "shall": true, "require": true, "need": true,
	"if": true, "only": true, "least": true, "more": true, "less": true, "above": true,
	"below": true, "every": true, "each": true, "within": true, "after": true, "before": true,
	"never": true, "always": true, "maximum": true, "minimum": true, "exceed": true, "unless": true,
}

// ruleGenericColumns are one-word column names that prose uses for other
// things ("must name the supplier"); they do not make a rule speak of a
// column by themselves.
var ruleGenericColumns = map[string]bool{
	"name": true, "type": true, "status": true, "date": true, "code": true, "description": true,
	"value": true, "title": true, "number": true, "comment": true, "note": true, "time": true,
}

// Rules finds the rules and KPIs that documents state about the data and
// links them to the columns they speak of, so an agent can compute them.
// A sentence is a rule of a table when it has a rule marker (ruleMarkers)
// and names one of the table's non-key columns by its words together with
// the table itself, or two such columns; it then speaks of those columns
// and of each categorical column one of whose values it names. Each rule is
// a node (kind concept, label Rule, the sentence as name and description,
// one node per distinct sentence whatever chunk states it) with MENTIONS
// from its chunks and MEASURED_BY links to its columns, banded like concept
// links and under the same overrides (the rule named by its sentence).
// Output is sorted by id.
func Rules(chunks []kg.Chunk, tables []kg.Table, cfg Config) ([]kg.Node, []kg.Link, []kg.Edge) {
	targets := conceptTargets(tables)
	byTarget := map[string]int{}
	for i, t := range targets {
		byTarget[t.typ+"\x00"+t.target] = i
	}
	nodes := map[string]*kg.Node{}
	links := map[string]*kg.Link{}
	var edges []kg.Edge
	for _, c := range chunks {
		for _, sp := range ruleSentences(c.Text) {
			text := c.Text[sp.Start:sp.End]
			cols := ruleColumns(text, targets)
			if len(cols) == 0 {
				continue
			}
			n := ruleNode(nodes, text)
			evidence := fmt.Sprintf("%s:%d-%d", c.ID, c.Span.Start+sp.Start, c.Span.Start+sp.End)
			if !slices.Contains(n.ChunkIDs, c.ID) {
				n.ChunkIDs = append(n.ChunkIDs, c.ID)
				edges = append(edges, kg.Edge{ID: kg.EdgeID(c.ID, "MENTIONS", n.ID), Src: c.ID, Dst: n.ID, Type: "MENTIONS", Confidence: 1, ChunkIDs: []string{c.ID}})
			}
			for _, rc := range cols {
				t := targets[rc.target]
				id := kg.EdgeID(n.ID, t.typ, t.dst)
				l, ok := links[id]
				if !ok {
					l = &kg.Link{ID: id, Src: n.ID, SrcName: n.Name, Dst: t.dst, Target: t.target, Type: t.typ, DecidedBy: DecidedByAuto}
					links[id] = l
				}
				if rc.score > l.Score {
					l.Score, l.Signals = rc.score, rc.signals
				}
				if len(l.Evidence) < 5 && !slices.Contains(l.Evidence, evidence) {
					l.Evidence = append(l.Evidence, evidence)
				}
			}
		}
	}
	var outNodes []kg.Node
	var srcs []conceptSource
	for _, n := range nodes {
		slices.Sort(n.ChunkIDs)
		outNodes = append(outNodes, *n)
	}
	slices.SortFunc(outNodes, func(a, b kg.Node) int { return strings.Compare(a.ID, b.ID) })
	for i := range outNodes {
		srcs = append(srcs, conceptSource{node: &outNodes[i], names: [][]string{conceptTokens(outNodes[i].Name)}})
	}
	var outLinks []kg.Link
	for _, l := range links {
		outLinks = append(outLinks, *l)
	}
	outLinks = bandConceptLinks(outLinks, cfg)
	outLinks = applyConceptOverrides(outLinks, srcs, targets, byTarget, cfg.Overrides)
	slices.SortFunc(outLinks, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) })
	edges = append(edges, conceptEdges(outLinks)...)
	slices.SortFunc(edges, func(a, b kg.Edge) int { return strings.Compare(a.ID, b.ID) })
	return outNodes, outLinks, edges
}

// ruleNode returns the node of the rule stated by sentence, made on first
// sight.
func ruleNode(nodes map[string]*kg.Node, sentence string) *kg.Node {
	sentence = strings.Join(strings.Fields(sentence), " ")
	id := kg.ID("rule", kg.NormalizeName(sentence))
	if n, ok := nodes[id]; ok {
		return n
	}
	name := sentence
	if utf8.RuneCountInString(name) > ruleMaxName {
		name = string([]rune(name)[:ruleMaxName-1]) + "…"
	}
	n := &kg.Node{
		ID: id, Name: name, Kind: kg.NodeConcept, Labels: []string{LabelRule}, Description: sentence,
		Properties: map[string]string{"type": strings.ToLower(LabelRule)},
	}
	nodes[id] = n
	return n
}

// ruleColumn is one column a sentence speaks of.
type ruleColumn struct {
	target  int
	score   float64
	signals []string
}

// ruleColumns returns the columns a sentence states a rule about, none
// when it is not a rule.
func ruleColumns(sentence string, targets []conceptTarget) []ruleColumn {
	ws := conceptTokens(sentence)
	if !slices.ContainsFunc(ws, func(w string) bool { return ruleMarkers[w] }) {
		return nil
	}
	var out []ruleColumn
	for i := 0; i < len(targets); {
		j := i + 1
		for j < len(targets) && targets[j].col != nil {
			j++
		}
		out = append(out, ruleTable(sentence, ws, targets[i], targets[i+1:j], i+1)...)
		i = j
	}
	return out
}

// ruleTable returns the columns of one table (table, then its columns
// from index first) that a sentence, of words ws, speaks of.
func ruleTable(sentence string, ws []string, table conceptTarget, cols []conceptTarget, first int) []ruleColumn {
	named := conceptHasRun(ws, table.head) || conceptHasRun(ws, table.tableWords)
	var byWords, byValue []int
	used := map[string]bool{} // words that named a column: not also a value
	for k, c := range cols {
		generic := len(c.words) == 1 && ruleGenericColumns[c.words[0]]
		if len(c.words) > 0 && !generic && ruleNamesColumn(ws, c.words, table.head) {
			byWords = append(byWords, k)
			for _, w := range c.words {
				used[w] = true
			}
		}
	}
	for k, c := range cols {
		if c.col.Distinct > ruleMaxDistinct || slices.Contains(byWords, k) {
			continue
		}
		if slices.ContainsFunc(c.values, func(v string) bool {
			vw := conceptTokens(v)
			return utf8.RuneCountInString(v) >= 3 && conceptHasRun(ws, vw) && slices.ContainsFunc(vw, func(w string) bool { return !used[w] })
		}) {
			byValue = append(byValue, k)
		}
	}
	var byAmount []int
	if named {
		byAmount = ruleAmountColumns(sentence, ws, cols, byWords)
	}
	if len(byWords)+len(byAmount) == 0 || !named && len(byWords) < 2 {
		return nil
	}
	var out []ruleColumn
	for _, k := range byWords {
		rc := ruleColumn{target: first + k, score: ruleScoreTwoColumns, signals: []string{"rule_sentence", "column_words"}}
		if named {
			rc.score, rc.signals = ruleScoreNamedTable, append(rc.signals, "table_named")
		}
		out = append(out, rc)
	}
	for _, k := range byAmount {
		out = append(out, ruleColumn{target: first + k, score: ruleScoreValue, signals: []string{"rule_sentence", "table_named", "column_amount"}})
	}
	for _, k := range byValue {
		out = append(out, ruleColumn{target: first + k, score: ruleScoreValue, signals: []string{"rule_sentence", "column_value"}})
	}
	return out
}

// ruleComparators are the words before a number that make it a threshold.
var ruleComparators = map[string]bool{
	"least": true, "most": true, "than": true, "above": true, "below": true, "over": true,
	"under": true, "exceed": true, "maximum": true, "minimum": true, "up": true,
}

// ruleTimeWords follow a number that is a duration, not an amount of the
// table's.
var ruleTimeWords = map[string]bool{
	"day": true, "week": true, "month": true, "year": true, "hour": true, "minute": true,
	"working": true, "business": true, "calendar": true, "degree": true, "percent": true,
}

// ruleCountWords are the last words of a column that counts things.
var ruleCountWords = map[string]bool{"quantity": true, "count": true, "unit": true, "number": true}

// ruleAmountColumns returns the columns of a table a threshold in words ws
// speaks of (the sentence names the table): a number with a unit names the
// columns in that unit ("above 20,000 EUR" → unit_cost_eur), a number of
// things after a comparator names the column that counts them ("at least 5
// bicycles" → quantity: a plural noun, not "below 3.0 cannot"). Columns in
// skip are left out.
func ruleAmountColumns(sentence string, ws []string, cols []conceptTarget, skip []int) []int {
	var raw []string // ws before singular: the same words at the same places
	for _, w := range conceptWords(sentence) {
		if !conceptStopwords[w] {
			raw = append(raw, w)
		}
	}
	var out []int
	add := func(k int) {
		if !slices.Contains(skip, k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for i := 0; i < len(ws); i++ {
		if !ruleNumber(ws[i]) {
			continue
		}
		j := i + 1
		for j < len(ws) && ruleNumber(ws[j]) { // 20,000 is two words
			j++
		}
		if j == len(ws) {
			break
		}
		unit := ws[j]
		for k, c := range cols {
			if raw := conceptWords(c.col.Name); conceptUnitSuffixes[unit] && !ruleTimeWords[unit] && len(raw) > 1 && Singular(raw[len(raw)-1]) == unit {
				add(k)
			}
		}
		threshold := i > 0 && ruleComparators[ws[i-1]] || i > 1 && ruleComparators[ws[i-2]]
		timed := ruleTimeWords[unit] || j+1 < len(ws) && ruleTimeWords[ws[j+1]]
		if threshold && !timed && !conceptUnitSuffixes[unit] && raw[j] != unit {
			for k, c := range cols {
				if c.measure && len(c.words) > 0 && ruleCountWords[c.words[len(c.words)-1]] {
					add(k)
				}
			}
		}
		i = j
	}
	return out
}

func ruleNumber(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// ruleNamesColumn reports whether words ws name a column by its words
// col, not counting them where they qualify the table's own name head
// ("customer order" speaks of an order, not of orders.customer).
func ruleNamesColumn(ws, col, head []string) bool {
	for i := 0; i+len(col) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(col)], col) && !conceptHasRun(ws[i+len(col):min(len(ws), i+len(col)+len(head))], head) {
			return true
		}
	}
	return false
}

// ruleSentences splits text into sentences: at a full stop, question or
// exclamation mark followed by white space, and at line breaks. Spans are
// byte offsets in text, without surrounding white space.
func ruleSentences(text string) []kg.Span {
	var out []kg.Span
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && strings.ContainsRune(" \t\r\n#->*", rune(text[s])) {
			s++
		}
		for e > s && strings.ContainsRune(" \t\r\n", rune(text[e-1])) {
			e--
		}
		if e > s {
			out = append(out, kg.Span{Start: s, End: e})
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			emit(i + 1)
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '\t' || text[i+1] == '\r' {
				emit(i + 1)
			}
		}
	}
	emit(len(text))
	return out
}
