package link

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
)

// conceptTables is a small data layer with the columns the issue names.
func conceptTables() []kg.Table {
	return []kg.Table{
		{Name: "suppliers", Rows: 3, Columns: []kg.Column{
			{Name: "supplier_id", Type: "VARCHAR", Distinct: 3, Samples: []string{"S1", "S2", "S3"}},
			{Name: "name", Type: "VARCHAR", Distinct: 3, Samples: []string{"Kestrel Alloys", "Tagus Composites", "Serra Brakes"}},
			{Name: "rating", Type: "DOUBLE", Distinct: 3, Samples: []string{"3.2", "4.1", "4.6"}},
		}},
		{Name: "parts", Rows: 3, Columns: []kg.Column{
			{Name: "part_id", Type: "VARCHAR", Distinct: 3},
			{Name: "name", Type: "VARCHAR", Distinct: 3, Samples: []string{"Aluminium frame", "Brake set", "Saddle"}},
			{Name: "category", Type: "VARCHAR", Distinct: 3, Samples: []string{"brakes", "frames", "saddles"}},
			{Name: "supplier_id", Type: "VARCHAR", Distinct: 3},
			{Name: "lead_time_days", Type: "BIGINT", Distinct: 3, Samples: []string{"10", "14", "30"}},
			{Name: "unitCostEur", Type: "DOUBLE", Distinct: 3},
		}},
		{Name: "orders", Rows: 4, Columns: []kg.Column{
			{Name: "order_id", Type: "VARCHAR", Distinct: 4},
			{Name: "customer", Type: "VARCHAR", Distinct: 2, Samples: []string{"Pedal & Co", "Ridgeline Bike Shops"}},
			{Name: "promised_at", Type: "DATE", Distinct: 4},
			{Name: "delivered_at", Type: "DATE", Distinct: 4},
			{Name: "status", Type: "VARCHAR", Distinct: 3, Samples: []string{"delayed", "delivered", "open"}},
		}},
		{Name: "production_plan_scrap", Origin: "Scrap", Rows: 4, Columns: []kg.Column{
			{Name: "batch_id", Type: "VARCHAR", Distinct: 4},
			{Name: "defect", Type: "VARCHAR", Distinct: 4, Samples: []string{"cracked weld", "none found"}},
			{Name: "units", Type: "BIGINT", Distinct: 4},
		}},
	}
}

func conceptNodes(names ...string) []kg.Node {
	var out []kg.Node
	for _, n := range names {
		out = append(out, conceptNode(n, "concept"))
	}
	return out
}

// linksOf returns "SRC TYPE TARGET" for every link of band.
func linksOf(links []kg.Link, band string) []string {
	var out []string
	for _, l := range links {
		if l.Band == band {
			out = append(out, l.SrcName+" "+l.Type+" "+l.Target)
		}
	}
	slices.Sort(out)
	return out
}

func TestConcepts_NamesAndValuesLinkWithoutAModel(t *testing.T) {
	nodes := conceptNodes("supplier", "Suppliers", "lead time", "average lead time", "supplier rating", "delayed order", "unit cost", "scrap")
	links, edges, err := Concepts(context.Background(), nodes, conceptTables(), nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Suppliers REPRESENTED_BY suppliers",
		"average lead time MEASURED_BY parts.lead_time_days", // an aggregate of the measure
		"delayed order MEASURED_BY orders.status",
		"delayed order REPRESENTED_BY orders", // a delayed order is an order
		"lead time MEASURED_BY parts.lead_time_days",
		"scrap MEASURED_BY production_plan_scrap.units", // a quantity: measured, not represented
		"supplier REPRESENTED_BY suppliers",
		"supplier rating MEASURED_BY suppliers.rating",
		"unit cost MEASURED_BY parts.unitCostEur",
	}
	if got := linksOf(links, kg.LinkBandLinked); !reflect.DeepEqual(got, want) {
		t.Errorf("linked:\n got %q\nwant %q", got, want)
	}
	if len(edges) != len(want) {
		t.Errorf("%d edges for %d linked links", len(edges), len(want))
	}
	for _, e := range edges {
		if e.ID != kg.EdgeID(e.Src, e.Type, e.Dst) {
			t.Errorf("edge %s: id is not EdgeID(src, type, dst)", e.ID)
		}
	}
	for _, l := range links {
		if l.Type == kg.LinkRepresentedBy && l.Dst != kg.TableNodeID(l.Target) {
			t.Errorf("link %s: dst is not the table node of %s", l.ID, l.Target)
		}
		if l.Type == kg.LinkMeasuredBy && l.Dst != kg.ColumnNodeID(strings.Split(l.Target, ".")[0], strings.Split(l.Target, ".")[1]) {
			t.Errorf("link %s: dst is not the column node of %s", l.ID, l.Target)
		}
	}
}

func TestConcepts_ATableOfItsOwnNameWinsOverOneThatEndsInIt(t *testing.T) {
	tables := append(conceptTables(), kg.Table{Name: "purchasing_purchase_orders", Origin: "purchase_orders", Columns: []kg.Column{
		{Name: "po_id", Type: "VARCHAR"}, {Name: "qty", Type: "BIGINT"},
	}})
	links, _, err := Concepts(context.Background(), conceptNodes("purchase order", "order"), tables, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"order REPRESENTED_BY orders", "purchase order REPRESENTED_BY purchasing_purchase_orders"}
	if got := linksOf(links, kg.LinkBandLinked); !slices.Equal(got, want) {
		t.Errorf("linked %q, want %q", got, want)
	}
	for _, l := range links {
		if l.Band == kg.LinkBandUncertain && l.Type == kg.LinkRepresentedBy && l.Score >= DefaultConceptHigh && l.Rule != RuleConceptNotBest {
			t.Errorf("%s → %s: rule %s, want %s", l.SrcName, l.Target, l.Rule, RuleConceptNotBest)
		}
	}
	if !slices.Contains(linksOf(links, kg.LinkBandUncertain), "purchase order REPRESENTED_BY orders") {
		t.Errorf("purchase order → orders is not the uncertain runner-up: %q", linksOf(links, kg.LinkBandUncertain))
	}
}

func TestConcepts_AConceptThatOnlyQualifiesAColumnIsNotMeasuredByIt(t *testing.T) {
	tables := []kg.Table{{Name: "suppliers", Columns: []kg.Column{
		{Name: "name", Type: "VARCHAR"}, {Name: "part_category", Type: "VARCHAR"},
	}}}
	// Even a model that finds every text the same does not make "part"
	// the measure of part_category, nor "category" of anything but it.
	links, _, err := Concepts(context.Background(), conceptNodes("part", "category"), tables, conceptFixedEmbedder{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := linksOf(links, kg.LinkBandLinked), []string{"category MEASURED_BY suppliers.part_category"}; !slices.Equal(got, want) {
		t.Errorf("linked %q, want %q", got, want)
	}
}

func TestConcepts_KeysAreNeverMeasures(t *testing.T) {
	links, _, err := Concepts(context.Background(), conceptNodes("supplier", "order", "batch"), conceptTables(), nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if strings.HasSuffix(l.Target, "_id") {
			t.Errorf("%s links to key column %s", l.SrcName, l.Target)
		}
	}
}

func TestIsConcept_CategoriesNotThings(t *testing.T) {
	proper := conceptProperNames(conceptTables())
	row := conceptNode("supplier", "Supplier")
	row.Properties[kg.PropTable] = "suppliers"
	chunk := conceptNode("supplier", "Supplier")
	chunk.Kind = kg.NodeChunk
	for _, c := range []struct {
		node kg.Node
		want bool
	}{
		{conceptNode("supplier", "company"), true},
		{conceptNode("Supplier", "company"), true},
		{conceptNode("Lead time", "duration"), true},
		{conceptNode("late delivery", "event"), true},
		{conceptNode("Kestrel Alloys", "company"), false},        // a proper name
		{conceptNode("Head of Procurement", "role"), false},      // a capital after the first word
		{conceptNode("Kestrel", "company"), false},               // a capitalised value of the data layer
		{conceptNode("Kestrel plant", "plant"), false},           // starts with one
		{conceptNode("Trail 500", "product"), false},             // a number
		{conceptNode("Delivery Performance", "kpi"), true},       // typed as a concept
		{conceptNode("one two three four five six", "x"), false}, // too long to be a name
		{row, false},
		{chunk, false},
	} {
		if got := IsConcept(c.node, proper); got != c.want {
			t.Errorf("IsConcept(%q, %q) = %v, want %v", c.node.Name, c.node.Properties["type"], got, c.want)
		}
	}
}

func TestConcepts_InstancesAndRowEntitiesGetNoConceptLinks(t *testing.T) {
	row := conceptNode("Kestrel Alloys", "Supplier")
	row.Properties[kg.PropTable] = "suppliers"
	nodes := []kg.Node{conceptNode("Kestrel Alloys", "company"), conceptNode("Kestrel plant", "plant"), row}
	links, edges, err := Concepts(context.Background(), nodes, conceptTables(), conceptFixedEmbedder{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(links)+len(edges) != 0 {
		t.Errorf("things got concept links: %v", linksOf(links, kg.LinkBandUncertain))
	}
}

// conceptFixedEmbedder is a fault: a model that finds every text the same
// (every cosine 1).
type conceptFixedEmbedder struct{ err error }

func (e conceptFixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

func TestConcepts_EmbeddingAloneNeverLinks(t *testing.T) {
	links, _, err := Concepts(context.Background(), conceptNodes("bicycle colour"), conceptTables(), conceptFixedEmbedder{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(links) == 0 {
		t.Fatal("a cosine of 1 gave no candidate: blocking by neighbours is not wired")
	}
	for _, l := range links {
		if l.Band == kg.LinkBandLinked || l.Score > ConceptEmbedWeight+1e-9 {
			t.Errorf("%s → %s: score %.3f band %s from the embedding alone", l.SrcName, l.Target, l.Score, l.Band)
		}
	}
	// Neighbours are bounded: ConceptNeighbours tables and as many columns.
	if most := 2 * ConceptNeighbours; len(links) > most {
		t.Errorf("%d candidates for one concept without a name match, want at most %d", len(links), most)
	}
}

func TestConcepts_EmbedderErrorNamesTheStep(t *testing.T) {
	boom := errors.New("connection refused")
	_, _, err := Concepts(context.Background(), conceptNodes("supplier"), conceptTables(), conceptFixedEmbedder{err: boom}, Config{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "link concepts: embed") {
		t.Errorf("error = %v, want it to wrap the embedder's and name the step", err)
	}
}

func TestConcepts_OverridesApplyFirst(t *testing.T) {
	cfg := Config{Overrides: Overrides{
		CannotLink: []Pair{{Entity: "Supplier", Target: "suppliers", By: "ana"}},
		MustLink: []Pair{
			{Entity: "bicycle colour", Target: "parts.name", By: "rui"},
			{Entity: "bicycle colour", Target: "parts[P1]", By: "rui"},      // a row: not a concept link
			{Entity: "bicycle colour", Target: "nowhere.column", By: "rui"}, // not in the data layer
			{Entity: "Kestrel", Target: "suppliers.name", By: "rui"},        // a thing, not a concept: the expert decides
		},
	}}
	links, edges, err := Concepts(context.Background(), conceptNodes("supplier", "bicycle colour", "Kestrel"), conceptTables(), nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]kg.Link{}
	for _, l := range links {
		got[l.SrcName+" "+l.Target] = l
	}
	if l := got["supplier suppliers"]; l.Band != kg.LinkBandNone || l.Rule != RuleConceptCannot || l.DecidedBy != "ana" {
		t.Errorf("cannot-link: band %q rule %q by %q", l.Band, l.Rule, l.DecidedBy)
	}
	if l := got["bicycle colour parts.name"]; l.Band != kg.LinkBandLinked || l.Rule != RuleConceptMustLink || l.DecidedBy != "rui" || l.Type != kg.LinkMeasuredBy {
		t.Errorf("must-link: %+v", l)
	}
	if l := got["Kestrel suppliers.name"]; l.Band != kg.LinkBandLinked || l.Rule != RuleConceptMustLink {
		t.Errorf("must-link of a thing: %+v", l)
	}
	var dsts []string
	for _, e := range edges {
		dsts = append(dsts, e.Dst)
	}
	if slices.Contains(dsts, kg.TableNodeID("suppliers")) || !slices.Contains(dsts, kg.ColumnNodeID("parts", "name")) {
		t.Errorf("edges do not follow the overrides: %v", edges)
	}
	if len(links) != len(got) {
		t.Errorf("duplicate links: %d links, %d distinct", len(links), len(got))
	}
}

func TestConcepts_SameInputInAnyOrderGivesTheSameLinks(t *testing.T) {
	nodes := conceptNodes("supplier", "lead time", "delayed order", "scrap", "unit cost", "customer")
	want, wantEdges, err := Concepts(context.Background(), nodes, conceptTables(), conceptFixedEmbedder{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		ns, ts := slices.Clone(nodes), conceptTables()
		r.Shuffle(len(ns), func(i, j int) { ns[i], ns[j] = ns[j], ns[i] })
		r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
		got, gotEdges, err := Concepts(context.Background(), ns, ts, conceptFixedEmbedder{}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotEdges, wantEdges) {
			t.Fatal("another input order gave other links")
		}
	}
	if !slices.IsSortedFunc(want, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("links are not sorted by id")
	}
}

func TestConcepts_BandsFollowConfig(t *testing.T) {
	nodes := conceptNodes("supplier rating")
	links, _, err := Concepts(context.Background(), nodes, conceptTables(), nil, Config{High: 0.95, Low: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if l.Target == "suppliers.rating" && (l.Band != kg.LinkBandUncertain || l.Rule != RuleConceptUncertain) {
			t.Errorf("score %.2f under High 0.95: band %s rule %s", l.Score, l.Band, l.Rule)
		}
	}
}

func TestColumnTokens(t *testing.T) {
	for _, c := range []struct {
		column string
		table  []string
		want   string
	}{
		{"lead_time_days", []string{"part"}, "lead time"},
		{"delivered_at", []string{"order"}, "delivered"},
		{"order_date", []string{"order"}, "date"},
		{"unitCostEur", []string{"part"}, "unit cost"},
		{"qty", []string{"order"}, "quantity"},
		{"scrap_pct", []string{"scrap"}, "scrap"},
		{"categories", []string{"part"}, "category"},
	} {
		if got := strings.Join(columnTokens(c.column, c.table), " "); got != c.want {
			t.Errorf("columnTokens(%q) = %q, want %q", c.column, got, c.want)
		}
	}
}

// conceptRandomEmbedder gives every text a vector drawn from its hash, so
// cosines are spread like a model's but cost nothing to compute.
type conceptRandomEmbedder struct{ dim int }

func (e conceptRandomEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		r := rand.New(rand.NewPCG(uint64(len(t)), uint64(strings.Count(t, "a")+i)))
		v := make([]float32, e.dim)
		for k := range v {
			v[k] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out, nil
}

// BenchmarkConcepts links 2,000 concepts to 50 tables of 10 columns with
// 384-dimensional vectors: the cost of blocking (words and nearest
// neighbours) and scoring, without the model's time.
func BenchmarkConcepts(b *testing.B) {
	var tables []kg.Table
	for i := range 50 {
		t := kg.Table{Name: fmt.Sprintf("table_%d_things", i), Rows: 100}
		for j := range 10 {
			t.Columns = append(t.Columns, kg.Column{Name: fmt.Sprintf("measure_%d_%d_amount", i, j), Type: "DOUBLE", Distinct: 100})
		}
		tables = append(tables, t)
	}
	var nodes []kg.Node
	for i := range 2000 {
		nodes = append(nodes, conceptNode(fmt.Sprintf("concept %s amount", strings.Repeat("x", i%40+1)), "concept"))
	}
	emb := conceptRandomEmbedder{dim: 384}
	b.ResetTimer()
	for b.Loop() {
		links, _, err := Concepts(context.Background(), nodes, tables, emb, Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(links)), "links")
	}
}

// FuzzConcepts feeds any concept, table, origin and column names: it never
// panics, every score is within 0..1, every id is EdgeID(src, type, dst),
// and a name without a word matches nothing by name.
func FuzzConcepts(f *testing.F) {
	f.Add("lead time", "parts", "", "lead_time_days")
	f.Add("customer order", "%%", "%%", "_")
	f.Add("Supplier", "t_1", "Scrap", "unitsEUR")
	f.Fuzz(func(t *testing.T, name, table, origin, column string) {
		tables := []kg.Table{{Name: table, Origin: origin, Columns: []kg.Column{
			{Name: column, Type: "DOUBLE", Samples: []string{name}},
			{Name: "name", Type: "VARCHAR", Samples: []string{column, origin}},
		}}}
		links, edges, err := Concepts(context.Background(), conceptNodes(name, "supplier"), tables, nil, Config{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if l.Score < 0 || l.Score > 1 || l.ID != kg.EdgeID(l.Src, l.Type, l.Dst) {
				t.Fatalf("link %+v", l)
			}
			if len(conceptWords(table))+len(conceptWords(origin)) == 0 && l.Type == kg.LinkRepresentedBy {
				t.Fatalf("a table without words is represented: %+v", l)
			}
		}
		if len(edges) > len(links) {
			t.Fatalf("%d edges for %d links", len(edges), len(links))
		}
	})
}
