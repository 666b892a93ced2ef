package link

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"kgforge/kg"
)

// scoreConcept scores concept s against target t (docs/linking.md):
//
//	base  = max(name, value)
//	score = base + (1 − base) · ConceptEmbedWeight · e,   e = clamp((cos − 0.3) / 0.35)
//
// so names and values decide, and the embedding lifts a partial match or,
// alone, makes at most an uncertain link. The one measure column of a table
// of events that the concept names ("scrap" → production_plan_scrap.units)
// scores 0.8 by name (signal table_measure). cos < -0.5 means no embedding;
// tableName is s's name score against t's table.
func scoreConcept(s conceptSource, t conceptTarget, cos, tableName float64) (float64, []string) {
	var signals []string
	var name, value float64
	if t.col == nil {
		name = conceptTableName(s, t)
		if t.quantity && name > 0.6 {
			// A quantity is measured by the table's measure, not
			// represented by its rows.
			name = 0.6
			signals = append(signals, "quantity_table")
		}
	} else {
		name = conceptColumnName(s, t)
		if name < 0.8 && tableName >= 0.95 && conceptMeasureOf(t) {
			name = 0.8
			signals = append(signals, "table_measure")
		}
		value = conceptValue(s, t)
	}
	if name > 0 {
		signals = append(signals, fmt.Sprintf("name:%.2f", name))
	}
	if value > 0 {
		signals = append(signals, fmt.Sprintf("value_overlap:%.2f", value))
	}
	base := max(name, value)
	score := base
	if cos >= -0.5 {
		signals = append(signals, fmt.Sprintf("cosine:%.2f", cos))
		e := min(1, max(0, (cos-0.3)/0.35))
		score += (1 - base) * ConceptEmbedWeight * e
	}
	return min(score, 1), signals
}

// conceptMeasureOf reports whether column target t is the one measure of
// a table of a quantity: what a concept that names such a table counts
// ("scrap" → production_plan_scrap.units).
func conceptMeasureOf(t conceptTarget) bool { return t.measure && t.quantity }

// conceptQuantityTable reports whether a table holds a quantity rather than
// things or events: its own name is a singular or mass noun (sheet Scrap,
// not orders), it has no name-like column, and exactly one numeric non-key
// column, which measures it.
func conceptQuantityTable(t kg.Table, thing bool) bool {
	own := conceptWords(cmp.Or(t.Origin, t.Name))
	if thing || len(own) == 0 || Singular(own[len(own)-1]) != own[len(own)-1] {
		return false
	}
	n := 0
	for _, c := range t.Columns {
		if conceptIsNumeric(c.Type) && !conceptKey(t, c.Name) {
			n++
		}
	}
	return n == 1
}

// conceptTableName scores a concept's words against a table's: 1 when they
// are the table's own name ("purchase order" → purchasing_purchase_orders,
// whose origin is purchase_orders), 0.95 when they end its name ("order" →
// purchasing_purchase_orders), 0.9 when they run inside it ("production
// plan"), 0.8 when the concept ends in the table's own name ("customer
// order" → orders), else 0.6 · Dice of the two word sets.
func conceptTableName(s conceptSource, t conceptTarget) float64 {
	best := 0.0
	for _, c := range s.names {
		tw := t.tableWords
		var x float64
		switch {
		case slices.Equal(c, t.head), slices.Equal(c, tw):
			x = 1
		case len(c) <= len(tw) && slices.Equal(tw[len(tw)-len(c):], c):
			x = 0.95
		case conceptHasRun(tw, c):
			x = 0.9
		case len(t.head) > 0 && len(t.head) < len(c) && slices.Equal(c[len(c)-len(t.head):], t.head):
			x = 0.8
		default:
			x = 0.6 * conceptDice(c, tw)
		}
		best = max(best, x)
	}
	return best
}

// conceptColumnName scores a concept's words against a column's:
// coverage² · (0.5 + 0.5 · precision), where coverage counts a concept word
// 1 when the column's words have it and 0.8 when only the table's do, and
// precision is the share of the column's words the concept has. Nothing
// when the concept shares no word with the column itself; halved when the
// concept's last word (what it is: "customer order" is an order) is the
// table's and not the column's, and halved when the column's last word is
// not the concept's ("part" only qualifies part_category).
func conceptColumnName(s conceptSource, t conceptTarget) float64 {
	best := 0.0
	for _, c := range s.names {
		var cover float64
		shared := 0
		for _, w := range c {
			switch {
			case slices.Contains(t.words, w):
				cover++
				shared++
			case slices.Contains(t.tableWords, w):
				cover += 0.8
			}
		}
		if shared == 0 {
			continue
		}
		cover /= float64(len(c))
		x := cover * cover * (0.5 + 0.5*float64(shared)/float64(len(t.words)))
		if last := c[len(c)-1]; !slices.Contains(t.words, last) && slices.Contains(t.tableWords, last) {
			x /= 2
		}
		if !slices.Contains(c, t.words[len(t.words)-1]) {
			x /= 2 // the concept names what qualifies the column: "part" of part_category
		}
		best = max(best, x)
	}
	return min(best, 1)
}

// conceptValue scores a concept against a column's sample values: 1 when
// its name is one of them ("frames" → parts.category); 0.85 when some of
// its words are whole values and the rest name the column or table
// ("delayed order" → orders.status holds "delayed"); else half the share
// of its words found (stemmed) among the values' words.
func conceptValue(s conceptSource, t conceptTarget) float64 {
	if len(t.values) == 0 {
		return 0
	}
	best := 0.0
	for i, c := range s.names {
		if i == 0 && slices.Contains(t.values, kg.NormalizeName(s.node.Name)) || slices.Contains(t.values, strings.Join(c, " ")) {
			return 1
		}
		whole, named, found := 0, 0, 0
		for _, w := range c {
			switch {
			case slices.ContainsFunc(t.values, func(v string) bool { return conceptStem(v) == conceptStem(w) }):
				whole++
			case slices.Contains(t.words, w) || slices.Contains(t.tableWords, w):
				named++
			}
			if t.valueStems[conceptStem(w)] {
				found++
			}
		}
		switch {
		case whole > 0 && whole+named == len(c):
			best = max(best, 0.85)
		case found > 0:
			best = max(best, 0.5*float64(found)/float64(len(c)))
		}
	}
	return best
}

func conceptDice(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	n := 0
	for _, w := range a {
		if slices.Contains(b, w) {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}

// bandConceptLinks sets each link's band and rule from its score. A concept
// is represented by one table: a REPRESENTED_BY link whose concept has a
// better-scoring table is uncertain at best.
func bandConceptLinks(links []kg.Link, cfg Config) []kg.Link {
	high, low := cmp.Or(cfg.High, DefaultConceptHigh), cmp.Or(cfg.Low, DefaultConceptLow)
	bestTable := map[string]float64{}
	for _, l := range links {
		if l.Type == kg.LinkRepresentedBy {
			bestTable[l.Src] = max(bestTable[l.Src], l.Score)
		}
	}
	for i := range links {
		l := &links[i]
		switch {
		case l.Score >= high && l.Type == kg.LinkRepresentedBy && l.Score < bestTable[l.Src]:
			l.Band, l.Rule = kg.LinkBandUncertain, RuleConceptNotBest
		case l.Score >= high:
			l.Band, l.Rule = kg.LinkBandLinked, RuleConceptHigh
		case l.Score >= low:
			l.Band, l.Rule = kg.LinkBandUncertain, RuleConceptUncertain
		default:
			l.Band, l.Rule = kg.LinkBandNone, RuleConceptLow
		}
	}
	return links
}

// applyConceptOverrides applies the experts' decisions: a cannot-link puts
// its link in the none band, a must-link in the linked band (adding it
// when no candidate was scored). An override names the concept as the
// graph does (any case, or an alias) and a target TABLE or TABLE.COLUMN; a
// pair that names a row (TABLE[KEY]) is left to the other parts of the link
// step, and one that names no node of srcs or no table or column of the
// data layer applies to nothing.
func applyConceptOverrides(links []kg.Link, srcs []conceptSource, targets []conceptTarget, byTarget map[string]int, o Overrides) []kg.Link {
	if len(o.MustLink)+len(o.CannotLink) == 0 {
		return links
	}
	byName := map[string][]int{}
	for i, s := range srcs {
		for _, n := range append([]string{s.node.Name}, s.node.Aliases...) {
			k := kg.NormalizeName(n)
			if !slices.Contains(byName[k], i) {
				byName[k] = append(byName[k], i)
			}
		}
	}
	byID := map[string]int{}
	for i, l := range links {
		byID[l.ID] = i
	}
	apply := func(p Pair, must bool) {
		typ := kg.LinkMeasuredBy
		if !strings.Contains(p.Target, ".") {
			typ = kg.LinkRepresentedBy
		}
		ti, ok := byTarget[typ+"\x00"+p.Target]
		if !ok {
			return
		}
		for _, si := range byName[kg.NormalizeName(p.Entity)] {
			id := kg.EdgeID(srcs[si].node.ID, typ, targets[ti].dst)
			li, ok := byID[id]
			if !ok && !must {
				continue
			}
			if !ok {
				score, signals := scoreConcept(srcs[si], targets[ti], -1, 0)
				links = append(links, conceptLink(srcs[si], targets[ti], score, signals))
				li = len(links) - 1
				byID[id] = li
			}
			l := &links[li]
			l.Band, l.Rule, l.DecidedBy = kg.LinkBandNone, RuleConceptCannot, cmp.Or(p.By, "expert")
			if must {
				l.Band, l.Rule = kg.LinkBandLinked, RuleConceptMustLink
			}
		}
	}
	for _, p := range o.MustLink {
		apply(p, true)
	}
	for _, p := range o.CannotLink { // a cannot-link wins over a must-link of the same pair
		apply(p, false)
	}
	return links
}

// conceptEdges returns the edges of the linked links, in the links' order.
func conceptEdges(links []kg.Link) []kg.Edge {
	var out []kg.Edge
	for _, l := range links {
		if l.Band != kg.LinkBandLinked {
			continue
		}
		out = append(out, kg.Edge{
			ID: l.ID, Src: l.Src, Dst: l.Dst, Type: l.Type, Confidence: l.Score, Evidence: strings.Join(l.Evidence, " "),
			Properties: map[string]string{"rule": l.Rule, "decided_by": l.DecidedBy, "signals": strings.Join(l.Signals, " ")},
		})
	}
	return out
}
