package link

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
)

func ruleChunk(id, text string) kg.Chunk {
	return kg.Chunk{ID: id, SourceID: "doc", Text: text, Span: kg.Span{Start: 100, End: 100 + len(text)}}
}

// ruleTargets returns "RULE → TABLE.COLUMN" for every linked rule link.
func ruleTargets(links []kg.Link) []string {
	var out []string
	for _, l := range links {
		if l.Band == kg.LinkBandLinked {
			out = append(out, l.SrcName+" → "+l.Target)
		}
	}
	slices.Sort(out)
	return out
}

func TestRules_ASentenceThatNamesColumnsOfATableIsARuleMeasuredByThem(t *testing.T) {
	text := "Orders come in every day. An order delivered after its promised date is late.\n" +
		"Kestrel Alloys delivered frames to Porto.\n" + // a fact: no rule marker
		"Every supplier must have a name.\n" + // only a generic column word
		"An order above 50 units needs the customer to be named."
	nodes, links, edges := Rules([]kg.Chunk{ruleChunk("c1", text)}, conceptTables(), Config{})
	want := []string{
		"An order above 50 units needs the customer to be named. → orders.customer",
		"An order delivered after its promised date is late. → orders.delivered_at",
		"An order delivered after its promised date is late. → orders.promised_at",
	}
	if got := ruleTargets(links); !slices.Equal(got, want) {
		t.Fatalf("rules:\n got %q\nwant %q", got, want)
	}
	if len(nodes) != 2 {
		t.Fatalf("%d rule nodes, want 2", len(nodes))
	}
	late := nodes[slices.IndexFunc(nodes, func(n kg.Node) bool { return strings.HasPrefix(n.Name, "An order delivered") })]
	if late.Kind != kg.NodeConcept || !slices.Equal(late.Labels, []string{LabelRule}) || !slices.Equal(late.ChunkIDs, []string{"c1"}) {
		t.Errorf("rule node: %+v", late)
	}
	// The evidence is the sentence's span in the source: the chunk starts at 100.
	start := 100 + strings.Index(text, "An order delivered")
	wantEv := fmt.Sprintf("c1:%d-%d", start, start+len("An order delivered after its promised date is late."))
	for _, l := range links {
		if l.Src == late.ID && !slices.Equal(l.Evidence, []string{wantEv}) {
			t.Errorf("evidence %v, want %s", l.Evidence, wantEv)
		}
	}
	var types []string
	for _, e := range edges {
		types = append(types, e.Type)
	}
	slices.Sort(types)
	if !slices.Equal(slices.Compact(types), []string{"MEASURED_BY", "MENTIONS"}) || len(edges) != 5 {
		t.Errorf("edges: %v", types)
	}
}

func TestRules_OneNodePerSentenceWhateverChunkStatesIt(t *testing.T) {
	s := "An order delivered after its promised date is late."
	nodes, links, edges := Rules([]kg.Chunk{ruleChunk("c2", s), ruleChunk("c1", "  "+s+"  ")}, conceptTables(), Config{})
	if len(nodes) != 1 || !slices.Equal(nodes[0].ChunkIDs, []string{"c1", "c2"}) {
		t.Fatalf("nodes: %+v", nodes)
	}
	for _, l := range links {
		if len(l.Evidence) != 2 {
			t.Errorf("link %s: evidence %v, want one per chunk", l.Target, l.Evidence)
		}
	}
	if n := len(edges); n != 4 { // two MENTIONS, two MEASURED_BY
		t.Errorf("%d edges, want 4", n)
	}
}

func TestRules_CannotLinkOverridesARule(t *testing.T) {
	s := "An order delivered after its promised date is late."
	cfg := Config{Overrides: Overrides{CannotLink: []Pair{{Entity: s, Target: "orders.promised_at", By: "ana"}}}}
	_, links, edges := Rules([]kg.Chunk{ruleChunk("c1", s)}, conceptTables(), cfg)
	if got := ruleTargets(links); !slices.Equal(got, []string{s + " → orders.delivered_at"}) {
		t.Errorf("linked: %q", got)
	}
	for _, e := range edges {
		if e.Dst == kg.ColumnNodeID("orders", "promised_at") {
			t.Error("a refused rule link is an edge")
		}
	}
}

// TestRules_ExampleOperatingRules reads the example's operating rules: the
// rating threshold is a rule on suppliers.rating, the delayed-order rule one
// on orders.status.
func TestRules_ExampleOperatingRules(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "bikeco", "docs", "operating-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, links, _ := Rules([]kg.Chunk{ruleChunk("rules", string(b))}, conceptExampleTables(t), Config{})
	got := ruleTargets(links)
	for _, want := range []string{
		"A supplier with a rating below 3.0 cannot receive new purchase orders. → suppliers.rating",
		"A customer order is delayed if its product cannot be assembled within 10 working days. → orders.status",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	for _, g := range got {
		if strings.Contains(g, "fatigue") || strings.Contains(g, "safety stock") {
			t.Errorf("a rule that names no column of a table: %q", g)
		}
	}
}

func TestRules_ThresholdsSpeakOfTheColumnsOfTheirAmount(t *testing.T) {
	tables := []kg.Table{{Name: "orders", Columns: []kg.Column{
		{Name: "order_id", Type: "VARCHAR"},
		{Name: "quantity", Type: "BIGINT"},
		{Name: "total_eur", Type: "DOUBLE"},
		{Name: "rating", Type: "DOUBLE"},
	}}}
	text := "An order of more than 50 bicycles needs approval.\n" +
		"An order above 20,000 EUR needs approval.\n" +
		"An order must ship within 10 working days.\n" + // a duration, not an amount
		"An order rating below 3.0 cannot ship." // the threshold is the rating's
	_, links, _ := Rules([]kg.Chunk{ruleChunk("c1", text)}, tables, Config{})
	want := []string{
		"An order above 20,000 EUR needs approval. → orders.total_eur",
		"An order of more than 50 bicycles needs approval. → orders.quantity",
		"An order rating below 3.0 cannot ship. → orders.rating",
	}
	if got := ruleTargets(links); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestRuleSentences(t *testing.T) {
	text := "# Stock\n\nA rating below 3.0 is low. Is it?\n- Item one\nLast"
	var got []string
	for _, sp := range ruleSentences(text) {
		got = append(got, text[sp.Start:sp.End])
	}
	want := []string{"Stock", "A rating below 3.0 is low.", "Is it?", "Item one", "Last"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzRules feeds any document text and any column name to the rule
// reader: it never panics, every evidence span lies inside its chunk's
// span in the source, and a column without a word is never named.
func FuzzRules(f *testing.F) {
	f.Add("An order delivered after its promised date is late.", "delivered_at")
	f.Add("A supplier with a rating below 3.0 cannot receive orders above 20,000 EUR.", "%%")
	f.Add("# at least 5 \n\n- more than 7 things. must", "_")
	f.Fuzz(func(t *testing.T, text, column string) {
		tables := []kg.Table{{Name: "orders", Columns: []kg.Column{
			{Name: column, Type: "BIGINT", Distinct: 3, Samples: []string{column}},
			{Name: "status", Type: "VARCHAR", Distinct: 2, Samples: []string{"late", text}},
		}}}
		c := ruleChunk("c1", text)
		nodes, links, edges := Rules([]kg.Chunk{c}, tables, Config{})
		for _, l := range links {
			for _, ev := range l.Evidence {
				var id string
				var s, e int
				if _, err := fmt.Sscanf(strings.Replace(ev, ":", " ", 1), "%s %d-%d", &id, &s, &e); err != nil || id != "c1" || s < c.Span.Start || e > c.Span.End || s >= e {
					t.Fatalf("evidence %q outside chunk span %v", ev, c.Span)
				}
			}
			if len(conceptWords(column)) == 0 && l.Target == "orders."+column && !slices.Contains(l.Signals, "column_value") {
				t.Fatalf("a column without words is named: %+v", l)
			}
		}
		if len(nodes) > 0 && len(edges) == 0 {
			t.Fatal("a rule node without edges")
		}
	})
}
