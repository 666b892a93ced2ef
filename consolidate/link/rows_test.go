package link

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// exampleFiles are the example's table sources, as its pipeline reads them.
var exampleFiles = []string{"orders.csv", "parts.csv", "production-plan.xlsx", "purchasing.sqlite", "suppliers.csv"}

// loadExample loads the example's tables into a fresh DuckDB with the
// build's own loaders and profiler.
func loadExample(t *testing.T) (*sql.DB, []kg.Table) {
	t.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(t.TempDir(), "data.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var tables []kg.Table
	taken := map[string]bool{}
	for _, f := range exampleFiles {
		path, err := filepath.Abs(filepath.Join("..", "..", "examples", "bikeco", "data", f))
		if err != nil {
			t.Fatal(err)
		}
		rel := "data/" + f
		src := kg.Source{ID: kg.ID("source", rel), URI: rel, Kind: ingest.KindOf(f)}
		ts, err := ingest.LoadTables(ctx, db, ingest.TableInput{
			Source: src, Path: path, Base: ingest.TableName(rel),
			Name: func(w string) string { return ingest.UniqueName(taken, ingest.TableName(w)) },
		})
		if err != nil {
			t.Fatalf("load %s: %v", f, err)
		}
		tables = append(tables, ts...)
	}
	if err := ingest.FindKeys(ctx, db, tables); err != nil {
		t.Fatal(err)
	}
	return db, tables
}

func decisionOf(t *testing.T, ds []Decision, table string) Decision {
	t.Helper()
	i := slices.IndexFunc(ds, func(d Decision) bool { return d.Table == table })
	if i < 0 {
		t.Fatalf("no decision for table %s in %+v", table, ds)
	}
	return ds[i]
}

func TestRows_ExampleThingTablesBecomeEntitiesEventTablesStay(t *testing.T) {
	db, tables := loadExample(t)
	rs, err := Rows(context.Background(), db, tables, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Decisions) != len(tables) {
		t.Fatalf("%d decisions for %d tables", len(rs.Decisions), len(tables))
	}
	for _, want := range []Decision{
		{Table: "suppliers", Entity: true, Type: "Supplier", Key: "supplier_id", Name: "name", Rows: 8},
		{Table: "parts", Entity: true, Type: "Part", Key: "part_id", Name: "name", Rows: 15, Edges: 15},
	} {
		got := decisionOf(t, rs.Decisions, want.Table)
		got.Reason, got.By = "", ""
		if got != want {
			t.Errorf("decision for %s = %+v, want %+v", want.Table, got, want)
		}
	}
	for table, why := range map[string]string{
		"orders":                     "no name-like column (order_id: values look like codes or dates; customer: 7 distinct values in 40 rows",
		"purchasing_purchase_orders": "no name-like column",
		"production_plan_plan":       "no name-like column",
		"production_plan_scrap":      "looks like events (2 foreign keys out)",
	} {
		d := decisionOf(t, rs.Decisions, table)
		if d.Entity || !strings.Contains(d.Reason, why) || d.By != "profile" {
			t.Errorf("decision for %s = %+v, want it to stay a table because %q", table, d, why)
		}
	}
}

func TestRows_ExampleRowEntitiesCarryTheirRowAndForeignKeysBecomeEdges(t *testing.T) {
	db, tables := loadExample(t)
	rs, err := Rows(context.Background(), db, tables, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Nodes) != 23 || len(rs.Links) != 23 {
		t.Fatalf("%d nodes and %d links, want 23 of each (8 suppliers, 15 parts)", len(rs.Nodes), len(rs.Links))
	}
	byID := map[string]kg.Node{}
	for _, n := range rs.Nodes {
		byID[n.ID] = n
	}
	kestrel := byID[RowID("suppliers", "S001")]
	want := kg.Node{
		ID: RowID("suppliers", "S001"), Name: "Kestrel Alloys", Kind: kg.NodeConcept, Labels: []string{"Entity", "Supplier"},
		Properties: map[string]string{
			kg.PropTable: "suppliers", kg.PropKeyColumn: "supplier_id", kg.PropKey: "S001", "type": "Supplier",
			"country": "United Kingdom", "part_category": "frames", "rating": "3.2",
		},
	}
	if !reflect.DeepEqual(kestrel, want) {
		t.Errorf("Kestrel Alloys row entity = %+v, want %+v", kestrel, want)
	}
	types := map[string]int{}
	var frame kg.Edge
	for _, e := range rs.Edges {
		types[e.Type]++
		if e.Src == RowID("parts", "P001") && e.Type == "SUPPLIED_BY" {
			frame = e
		}
		if byID[e.Src].ID == "" {
			t.Errorf("edge %s from %s, which is no row entity", e.Type, e.Src)
		}
	}
	if types[kg.LinkRowOf] != 23 || types["SUPPLIED_BY"] != 15 || len(types) != 2 {
		t.Errorf("edge types %v, want 23 ROW_OF and 15 SUPPLIED_BY", types)
	}
	if frame.Dst != RowID("suppliers", "S001") || frame.Properties["from"] != "parts[P001]" || frame.Properties["to"] != "suppliers[S001]" ||
		frame.Properties["on"] != "parts.supplier_id = suppliers.supplier_id" {
		t.Errorf("P001's SUPPLIED_BY edge = %+v, want it to cite parts[P001] and suppliers[S001]", frame)
	}
	for _, l := range rs.Links {
		n := byID[l.Src]
		if l.Type != kg.LinkRowOf || l.Band != kg.LinkBandLinked || l.Dst != kg.TableNodeID(n.Properties[kg.PropTable]) ||
			l.Target != kg.RowTarget(n.Properties[kg.PropTable], n.Properties[kg.PropKey]) || l.SrcName != n.Name || l.Rule != RuleRowProfile {
			t.Errorf("ROW_OF link %+v does not name its row entity %+v", l, n)
		}
	}
}

func TestRows_SameExampleTwiceGivesTheSameIDs(t *testing.T) {
	db1, t1 := loadExample(t)
	db2, t2 := loadExample(t)
	slices.Reverse(t2)
	a, err := Rows(context.Background(), db1, t1, Config{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Rows(context.Background(), db2, t2, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two loads of the example (tables in another order) gave different row entities")
	}
}

func TestRows_PipelineSaysWhichTablesAndHow(t *testing.T) {
	db, tables := loadExample(t)
	yes, no := true, false
	cfg := Config{Tables: map[string]TableConfig{
		"suppliers":                  {Entity: &no},
		"orders":                     {Entity: &yes, Name: "customer", Type: "CustomerOrder"},
		"parts":                      {Key: "category"},
		"purchasing_purchase_orders": {Name: "no_such_column"},
	}}
	rs, err := Rows(context.Background(), db, tables, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for table, why := range map[string]string{
		"suppliers":                  "the pipeline says entity: false",
		"parts":                      `the pipeline's key column "category" is not unique and non-null`,
		"purchasing_purchase_orders": `the pipeline names name column "no_such_column", which the table does not have`,
	} {
		if d := decisionOf(t, rs.Decisions, table); d.Entity || d.Reason != why || d.By != "pipeline" {
			t.Errorf("decision for %s = %+v, want it to stay a table because %q", table, d, why)
		}
	}
	d := decisionOf(t, rs.Decisions, "orders")
	if !d.Entity || d.Type != "CustomerOrder" || d.Key != "order_id" || d.Name != "customer" || d.Rows != 40 {
		t.Errorf("orders with entity: true = %+v, want 40 CustomerOrder entities keyed by order_id", d)
	}
	if len(rs.Nodes) != 40 || rs.Links[0].Rule != RuleRowPipeline || rs.Links[0].DecidedBy != "pipeline" {
		t.Errorf("%d row entities (first link %+v), want the 40 orders decided by the pipeline", len(rs.Nodes), rs.Links[0])
	}
}

func TestRows_BoundOnRowEntitiesKeepsALargeTableATable(t *testing.T) {
	db, tables := loadExample(t)
	yes := true
	rs, err := Rows(context.Background(), db, tables, Config{MaxRowEntities: 10, Tables: map[string]TableConfig{"parts": {Entity: &yes}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := decisionOf(t, rs.Decisions, "parts"); d.Entity || d.Reason != "15 rows, more than max_row_entities (10)" {
		t.Errorf("parts with 15 rows under a bound of 10 = %+v", d)
	}
	if d := decisionOf(t, rs.Decisions, "suppliers"); !d.Entity {
		t.Errorf("suppliers with 8 rows under a bound of 10 = %+v", d)
	}
	for _, e := range rs.Edges {
		if e.Type != kg.LinkRowOf {
			t.Errorf("edge %+v: a foreign key into or out of a table that stayed a table", e)
		}
	}
}

func TestTypeName_SingularTitleCase(t *testing.T) {
	for table, want := range map[string]string{
		"suppliers": "Supplier", "parts": "Part", "categories": "Category", "plants": "Plant",
		"purchase_orders": "PurchaseOrder", "addresses": "Address", "boxes": "Box", "people": "Person",
		"status": "Status", "bus": "Bus", "analysis": "Analysis", "branches": "Branch", "___": "Row",
	} {
		if got := TypeName(table); got != want {
			t.Errorf("TypeName(%q) = %q, want %q", table, got, want)
		}
	}
}

func TestEdgeType_FromTheForeignKeyColumn(t *testing.T) {
	for col, want := range map[string]string{
		"supplier_id": "SUPPLIED_BY", "manufacturerId": "MANUFACTURED_BY", "owner": "OWNED_BY",
		"plant_id": "HAS_PLANT", "category_code": "HAS_CATEGORY", "parent_id": "HAS_PARENT",
		"chunk_id": "HAS_CHUNK_ROW", "home-plant": "HAS_HOME_PLANT", "id": "HAS_ID",
	} {
		if got := EdgeType(col); got != want {
			t.Errorf("EdgeType(%q) = %q, want %q", col, got, want)
		}
	}
}

func TestNameLike_RefusesCodesDatesNumbersAndRepeats(t *testing.T) {
	for _, c := range []struct {
		col  kg.Column
		want string
	}{
		{kg.Column{Name: "name", Type: "VARCHAR", Distinct: 10, Samples: []string{"Kestrel Alloys", "TechChip"}}, ""},
		{kg.Column{Name: "id", Type: "VARCHAR", Distinct: 10, Samples: []string{"S001", "S002"}}, "values look like codes or dates"},
		{kg.Column{Name: "week", Type: "VARCHAR", Distinct: 10, Samples: []string{"2025-W14", "2025-03-04"}}, "values look like codes or dates"},
		{kg.Column{Name: "qty", Type: "BIGINT", Distinct: 10}, "not text (BIGINT)"},
		{kg.Column{Name: "city", Type: "VARCHAR", Distinct: 2, Samples: []string{"Brno", "Porto"}}, "2 distinct values in 10 rows"},
		{kg.Column{Name: "nick", Type: "VARCHAR", Distinct: 5, Nulls: 5, Samples: []string{"Al"}}, "5 of 10 rows null"},
		{kg.Column{Name: "notes", Type: "VARCHAR", Distinct: 10, Samples: []string{strings.Repeat("long text ", 10)}}, "long text"},
	} {
		if got := nameLike(c.col, 10); got != c.want {
			t.Errorf("nameLike(%s) = %q, want %q", c.col.Name, got, c.want)
		}
	}
}

// loadCSV loads one CSV file into a fresh DuckDB with the build's loader
// and profiler.
func loadCSV(t testing.TB, name, body string) (*sql.DB, []kg.Table) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := duck.Open(ctx, filepath.Join(dir, "data.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	src := kg.Source{ID: kg.ID("source", name), URI: name, Kind: kg.KindCSV}
	tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: src, Path: path, Base: ingest.TableName(name)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ingest.FindKeys(ctx, db, tables); err != nil {
		t.Fatal(err)
	}
	return db, tables
}

func TestRows_OddColumnNamesAndLongTextAreReadSafely(t *testing.T) {
	long := strings.Repeat("a long note about this plant ", 10)
	body := "Plant No,Full \"Plant\" Name,key,Notes\n1,Brno Assembly Plant,b,short\n2,Porto Plant,p," + long + "\n"
	db, tables := loadCSV(t, "plants.csv", body)
	rs, err := Rows(context.Background(), db, tables, Config{})
	if err != nil {
		t.Fatal(err)
	}
	d := rs.Decisions[0]
	if !d.Entity || d.Key != "Plant No" || d.Name != `Full "Plant" Name` || d.Type != "Plant" {
		t.Fatalf("decision %+v, want Plant entities keyed by Plant No and named by the quoted column", d)
	}
	brno, porto := rs.Nodes[slices.IndexFunc(rs.Nodes, func(n kg.Node) bool { return n.Name == "Brno Assembly Plant" })],
		rs.Nodes[slices.IndexFunc(rs.Nodes, func(n kg.Node) bool { return n.Name == "Porto Plant" })]
	if brno.Properties["Notes"] != "short" || brno.Properties["column_key"] != "b" || brno.Properties[kg.PropKey] != "1" {
		t.Errorf("Brno's properties %v, want Notes, the key column under its own name and the column named key as column_key", brno.Properties)
	}
	if _, ok := porto.Properties["Notes"]; ok {
		t.Errorf("Porto's %d-character note was copied onto its entity", len(long))
	}
}

func TestDecide_KeyIsANameLikeIDThenTheNameThenAnotherKey(t *testing.T) {
	text := func(name string, distinct int64, samples ...string) kg.Column {
		return kg.Column{Name: name, Type: "VARCHAR", Distinct: distinct, Samples: samples}
	}
	for _, c := range []struct {
		t         kg.Table
		key, name string
		why       string
	}{
		{kg.Table{Name: "sites", Rows: 2, PrimaryKeys: []string{"country", "name", "site_code"}, Columns: []kg.Column{
			text("country", 2, "Czechia", "Portugal"), text("name", 2, "Brno", "Porto"), text("site_code", 2, "CZ1", "PT1"),
		}}, "site_code", "name", ""},
		{kg.Table{Name: "sites", Rows: 2, PrimaryKeys: []string{"country", "name"}, Columns: []kg.Column{
			text("country", 2, "Czechia", "Portugal"), text("name", 2, "Brno", "Porto"),
		}}, "name", "name", ""},
		{kg.Table{Name: "sites", Rows: 2, Columns: []kg.Column{text("name", 2, "Brno", "Porto")}}, "", "", "no candidate key (a unique, non-null column)"},
		{kg.Table{Name: "sites", Rows: 0}, "", "", "no rows"},
		{kg.Table{Name: "sites", Rows: 2, PrimaryKeys: []string{"n"}, Columns: []kg.Column{{Name: "n", Type: "BIGINT", Distinct: 2}}}, "", "", "no text column"},
	} {
		d := Decide(c.t, Config{})
		if d.Key != c.key || d.Name != c.name || (c.why != "" && d.Reason != c.why) || d.Entity != (c.key != "") {
			t.Errorf("Decide(%+v) = %+v, want key %q, name %q, reason %q", c.t, d, c.key, c.name, c.why)
		}
	}
}
