package main

import (
	"os"
	"strings"
	"testing"

	"kgforge/bench/internal/benchdata"
	"kgforge/bench/quality"
	"kgforge/extract"
)

// goldCase is a gold triplet as a grounded extractor would give it: the
// subject and object as the evidence writes them, and the evidence.
type goldCase struct {
	item, subject, predicate, object, evidence, passage string
}

// goldTally counts the gold triplets of a set by what the test could do
// with them.
type goldTally struct {
	gold      int // gold triplets in the set
	checked   int // with both names written in one evidence
	passed    int
	notInText int // a name the sentence does not write (Text2KGBench labels such as "United States of America" for "American")
	apart     int // Re-DocRED: no evidence sentence, annotated or not, writes both names
	sameName  int // two entities written alike: a self-titled album, a nationality and a language
}

// TestCheckTriplet_GoldTripletsPass runs the degenerate-fact rules over the
// gold triplets of Text2KGBench and Re-DocRED: a rule that drops a gold
// triplet drops correct facts, so every gold triplet an extractor could
// ground must pass. The evidence is the gold sentence (Text2KGBench) or
// the gold evidence sentences (Re-DocRED; where none are annotated, the
// first sentence that writes both names).
func TestCheckTriplet_GoldTripletsPass(t *testing.T) {
	shared := benchdata.Dir()
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("benchmark data not here: %v", err)
	}
	for _, set := range []string{"text2kg", "redocred"} {
		items, _, err := load(shared, set, false)
		if err != nil {
			t.Fatal(err)
		}
		var tally goldTally
		failed := map[string][]goldCase{}
		for _, it := range items {
			for gi := range it.Gold {
				tally.gold++
				c, ok := goldCaseOf(it, gi, &tally)
				if !ok {
					continue
				}
				reason := extract.CheckTriplet(c.subject, c.predicate, c.object, c.evidence)
				if strings.EqualFold(strings.Join(strings.Fields(c.subject), " "), strings.Join(strings.Fields(c.object), " ")) {
					// Rage Against the Machine, performer, Rage Against the
					// Machine: by their names alone the two cannot be told
					// from a self-loop, and the rule drops them.
					tally.sameName++
					if reason != extract.DropSelfLoop {
						t.Errorf("%s: (%q, %q, %q) in %q: %q, want %s", c.item, c.subject, c.predicate, c.object, c.evidence, reason, extract.DropSelfLoop)
					}
					continue
				}
				tally.checked++
				if reason == "" {
					if r := extract.CheckEntity(c.subject, c.passage); r != "" {
						reason = "subject: " + r
					} else if r := extract.CheckEntity(c.object, c.passage); r != "" {
						reason = "object: " + r
					}
				}
				if reason == "" {
					tally.passed++
					continue
				}
				failed[reason] = append(failed[reason], c)
			}
		}
		t.Logf("%s: %d gold triplets, %d checked, %d passed; not checked: %d name a label the sentence does not write, "+
			"%d no sentence writes both names, %d join two entities written alike (dropped as %s)",
			set, tally.gold, tally.checked, tally.passed, tally.notInText, tally.apart, tally.sameName, extract.DropSelfLoop)
		for reason, cs := range failed {
			t.Errorf("%s: %d gold triplets dropped as %s, such as:", set, len(cs), reason)
			for _, c := range cs[:min(len(cs), 5)] {
				t.Errorf("  %s: (%q, %q, %q) in %q", c.item, c.subject, c.predicate, c.object, c.evidence)
			}
		}
	}
}

// goldCaseOf returns gold triplet gi of it with the names as its evidence
// writes them, or false (counted in tally) when no evidence writes both.
func goldCaseOf(it quality.Item, gi int, tally *goldTally) (goldCase, bool) {
	g := it.Gold[gi]
	c := goldCase{item: it.ID, predicate: g.Relation, passage: it.Text}
	if it.Sentences == nil { // Text2KGBench: the sentence is the evidence
		c.evidence = it.Text
		var ok1, ok2 bool
		c.subject, ok1 = label(it.Text, g.Subject)
		c.object, ok2 = label(it.Text, g.Object)
		if !ok1 || !ok2 {
			tally.notInText++
			return c, false
		}
		return c, true
	}
	subj, obj := mentions(it, g.Subject), mentions(it, g.Object)
	var sentences []int
	if gi < len(it.Evidence) {
		sentences = it.Evidence[gi]
	}
	if len(sentences) == 0 { // not annotated: each sentence on its own
		for s := range it.Sentences {
			sentences = append(sentences, s)
		}
	} else {
		sentences = []int{-1} // the annotated sentences together
	}
	for _, s := range sentences {
		ev := evidenceText(it, gi, s)
		var ok1, ok2 bool
		c.subject, ok1 = written(ev, subj)
		c.object, ok2 = written(ev, obj)
		if ok1 && ok2 {
			c.evidence = ev
			return c, true
		}
	}
	tally.apart++
	return c, false
}

// mentions returns every normalised mention of the entity a gold triplet
// names, the gold name first.
func mentions(it quality.Item, name string) []string {
	n := quality.Normalize(name)
	return append([]string{n}, it.Aliases[n]...)
}

// evidenceText returns sentence s of a Re-DocRED item, or for s < 0 the
// gold evidence sentences of triplet gi joined by spaces.
func evidenceText(it quality.Item, gi, s int) string {
	if s >= 0 {
		return it.Text[it.Sentences[s][0]:it.Sentences[s][1]]
	}
	var parts []string
	for _, e := range it.Evidence[gi] {
		if e < len(it.Sentences) {
			parts = append(parts, it.Text[it.Sentences[e][0]:it.Sentences[e][1]])
		}
	}
	return strings.Join(parts, " ")
}

// label returns a Text2KGBench label as the sentence writes it: the label
// itself when the sentence holds it (ignoring case), else the run of words
// that normalises to it.
func label(text, l string) (string, bool) {
	if strings.Contains(strings.ToLower(text), strings.ToLower(l)) {
		return l, true
	}
	return written(text, []string{quality.Normalize(l)})
}

// written returns the first run of words of text whose normalised form is
// one of names: the name as the text writes it.
func written(text string, names []string) (string, bool) {
	f := strings.Fields(text)
	for _, n := range names {
		k := len(strings.Fields(n))
		if k == 0 {
			continue
		}
		for size := 1; size <= k+3; size++ {
			for i := 0; i+size <= len(f); i++ {
				w := strings.Join(f[i:i+size], " ")
				if quality.Normalize(w) == n {
					return trimPunct(w, n), true
				}
			}
		}
	}
	return "", false
}

// trimPunct drops punctuation a word run carries at its ends that the name
// does not have: "Porto." → "Porto", "(Lisbon" → "Lisbon".
func trimPunct(w, name string) string {
	t := strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(`.,;:!?()"'[]`, r) })
	if quality.Normalize(t) == name && t != "" {
		return t
	}
	return w
}
