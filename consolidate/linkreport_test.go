package consolidate

import (
	"fmt"
	"strings"
	"testing"

	"kgforge/consolidate/link"
	"kgforge/kg"
)

// linkReportGraph is a hand-made graph of the hybrid layer: a supplier table
// with two row entities, an orders table that stayed a table, and links of
// every type and band.
func linkReportGraph() kg.Graph {
	sup, ord := kg.TableNodeID("suppliers"), kg.TableNodeID("orders")
	r1, r2 := link.RowID("suppliers", "S1"), link.RowID("suppliers", "S2")
	row := func(id, name, key string) kg.Node {
		return kg.Node{ID: id, Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity", "Supplier"}, Properties: map[string]string{
			kg.PropTable: "suppliers", kg.PropKeyColumn: "supplier_id", kg.PropKey: key, "type": "Supplier",
		}}
	}
	lnk := func(src, name, typ, target, band string, score float64, signals ...string) kg.Link {
		return kg.Link{
			ID: kg.EdgeID(src, typ, target), Src: src, SrcName: name, Dst: kg.ID(target), Target: target, Type: typ, Score: score,
			Signals: signals, Band: band, Rule: "score_" + band, DecidedBy: "auto",
		}
	}
	g := kg.Graph{
		Nodes: []kg.Node{
			{ID: sup, Name: "suppliers", Kind: kg.NodeTable, Labels: []string{"Table"}},
			{ID: ord, Name: "orders", Kind: kg.NodeTable, Labels: []string{"Table"}},
			row(r1, "Kestrel Alloys", "S1"), row(r2, "TechChip Inc", "S2"),
		},
		Edges: []kg.Edge{
			{ID: "e1", Src: r1, Dst: sup, Type: kg.LinkRowOf},
			{ID: "e2", Src: r2, Dst: sup, Type: kg.LinkRowOf},
			{ID: "e3", Src: r2, Dst: r1, Type: "HAS_PARENT"},
		},
		Links: []kg.Link{
			lnk(r1, "Kestrel Alloys", kg.LinkRowOf, "suppliers[S1]", kg.LinkBandLinked, 1, "key:supplier_id"),
			lnk(r2, "TechChip Inc", kg.LinkRowOf, "suppliers[S2]", kg.LinkBandLinked, 1, "key:supplier_id"),
			lnk("c1", "supplier", kg.LinkRepresentedBy, "suppliers", kg.LinkBandLinked, 0.92, "name_match", "cosine:0.88"),
			lnk("c2", "late orders", kg.LinkMeasuredBy, "orders.delivered_at", kg.LinkBandUncertain, 0.55, "cosine:0.55"),
			lnk("c3", "lead time | days", kg.LinkMeasuredBy, "parts.lead_time_days", kg.LinkBandUncertain, 0.71, "cosine:0.71"),
			lnk("c4", "Techchip", kg.LinkSameAs, "suppliers[S2]", kg.LinkBandLinked, 0.97, "name_key", "cosine:0.97"),
			lnk("c5", "order", kg.LinkRepresentedBy, "parts", kg.LinkBandNone, 0.2, "cosine:0.2"),
		},
	}
	g.Merges = []kg.MergeDecision{
		{ClusterID: r1, Member: "Kestrel Alloys", MemberType: "Supplier", Canonical: "Kestrel Alloys", Score: 1, Rule: RuleRowAnchor, DecidedBy: "auto"},
		{ClusterID: r1, Member: "Kestrel Alloys Ltd.", MemberType: "Company", Canonical: "Kestrel Alloys", Score: 0.91, Rule: "suffix", DecidedBy: "auto", Mentions: 3},
		{ClusterID: r2, Member: "TechChip Inc", MemberType: "Supplier", Canonical: "TechChip Inc", Score: 1, Rule: RuleRowAnchor, DecidedBy: "auto"},
		{ClusterID: "c1", Member: "suppliers", MemberType: "Concept", Canonical: "supplier", Score: 0.9, Rule: "plural", DecidedBy: "auto"},
	}
	refused := lnk("c6", "Brno plant", kg.LinkSameAs, "suppliers[S1]", kg.LinkBandNone, 0.8, "cosine:0.8")
	refused.Rule, refused.DecidedBy = "cannot_link", "expert@example.com"
	g.Links = append(g.Links, refused)
	return g
}

// section returns the text of the report's section titled title, up to the
// next section.
func section(t *testing.T, report, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(report, "\n## "+title)
	if !ok {
		t.Fatalf("report has no section %q:\n%s", title, report)
	}
	s, _, _ := strings.Cut(rest, "\n## ")
	return s
}

func TestLinkReport_CountsUncertainFirstAndTables(t *testing.T) {
	g := linkReportGraph()
	decisions := []link.Decision{
		{Table: "orders", By: "profile", Reason: "looks like events (a date column promised_at)"},
		{Table: "suppliers", Entity: true, Type: "Supplier", Key: "supplier_id", Name: "name", Rows: 2, Edges: 1, By: "profile", Reason: "key supplier_id, name-like column name"},
	}
	r := LinkReport(g, decisions)
	for _, want := range []string{
		"8 candidate links: 4 linked, 2 uncertain, 2 below the bands or refused.",
		"| REPRESENTED_BY | 1 | 0 | 1 |", "| MEASURED_BY | 0 | 2 | 0 |", "| SAME_AS | 1 | 0 | 1 |", "| ROW_OF | 2 | 0 | 0 |",
	} {
		if !strings.Contains(r, want) {
			t.Errorf("report lacks %q:\n%s", want, r)
		}
	}
	// The uncertain section comes first, the closest to being linked on top,
	// with its signals, and a name holding | does not break the table.
	if strings.Index(r, "## Uncertain") > strings.Index(r, "## Links in the graph") {
		t.Errorf("uncertain links are not first:\n%s", r)
	}
	u := section(t, r, "Uncertain")
	lead, late := strings.Index(u, `| lead time \| days | MEASURED_BY | parts.lead_time_days | 0.710 | cosine:0.71 |`), strings.Index(u, "| late orders |")
	if lead < 0 || late < 0 || lead > late {
		t.Errorf("uncertain section: want lead time (0.71) before late orders (0.55):\n%s", u)
	}
	linked := section(t, r, "Links in the graph")
	weak, strong := strings.Index(linked, "| supplier | REPRESENTED_BY | suppliers | 0.920 |"), strings.Index(linked, "| Techchip | SAME_AS | suppliers[S2] | 0.970 |")
	if weak < 0 || strong < 0 || weak > strong {
		t.Errorf("linked section: want the REPRESENTED_BY link (0.92) before the SAME_AS one (0.97):\n%s", linked)
	}
	if strings.Contains(linked, "| ROW_OF |") || strings.Contains(linked, "| order |") {
		t.Errorf("linked section lists ROW_OF links or a link of the band none:\n%s", linked)
	}
	if s := section(t, r, "Links an expert refused"); !strings.Contains(s, "| Brno plant | SAME_AS | suppliers[S1] | 0.800 | cosine:0.8 | cannot_link | expert@example.com |") {
		t.Errorf("refused section:\n%s", s)
	}
	onto := section(t, r, "Extracted names resolved onto rows")
	if !strings.Contains(onto, "| suppliers[S1] | Kestrel Alloys | Kestrel Alloys Ltd. | Company | suffix | 0.910 | 3 | auto |") ||
		strings.Count(onto, "\n| ") != 2 {
		t.Errorf("resolved onto rows: want the one extracted name of a row (not the row itself, nor a merge of concepts):\n%s", onto)
	}
	if s := section(t, r, "Tables whose rows are entities"); !strings.Contains(s, "| suppliers | Supplier | supplier_id | name | 2 | 1 | profile | key supplier_id, name-like column name |") {
		t.Errorf("entity tables section:\n%s", s)
	}
	if s := section(t, r, "Tables that stayed tables"); !strings.Contains(s, "| orders | profile | looks like events (a date column promised_at) |") {
		t.Errorf("stayed tables section:\n%s", s)
	}
}

// TestLinkReport_TablesFromTheGraph checks that without the link step's
// decisions the tables are read off the graph's row entities.
func TestLinkReport_TablesFromTheGraph(t *testing.T) {
	r := LinkReport(linkReportGraph(), nil)
	if s := section(t, r, "Tables whose rows are entities"); !strings.Contains(s, "| suppliers | Supplier | supplier_id |  | 2 | 1 |") {
		t.Errorf("entity tables read off the graph:\n%s", s)
	}
	if s := section(t, r, "Tables that stayed tables"); !strings.Contains(s, "| orders |") || strings.Contains(s, "suppliers") {
		t.Errorf("stayed tables read off the graph:\n%s", s)
	}
}

// TestLinkReport_EmptyAndBounded checks the report of a graph without links
// and that a long section is cut with a pointer to links.parquet.
func TestLinkReport_EmptyAndBounded(t *testing.T) {
	r := LinkReport(kg.Graph{}, nil)
	if !strings.Contains(r, "0 candidate links") || strings.Count(r, "None.") != 6 {
		t.Errorf("report of an empty graph:\n%s", r)
	}
	var g kg.Graph
	for i := range maxReportRows + 7 {
		g.Links = append(g.Links, kg.Link{ID: fmt.Sprint(i), SrcName: fmt.Sprint("c", i), Type: kg.LinkMeasuredBy, Target: "t.c", Band: kg.LinkBandUncertain, Score: 0.5})
	}
	if u := section(t, LinkReport(g, nil), "Uncertain"); !strings.Contains(u, "… and 7 more (links.parquet has them all)") {
		t.Errorf("a long section is not cut:\n%s", u[len(u)-300:])
	}
}
