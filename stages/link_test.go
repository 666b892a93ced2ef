package stages

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/consolidate/link"
	"kgforge/kg"
	"kgforge/pipelines"
)

// TestRunner_TablesOnlyExampleGivesRowEntities builds the example's tables
// alone (no document, so no model is asked): suppliers and parts become row
// entities with ROW_OF and SUPPLIED_BY edges in the bundle, orders stays a
// table, the run report says why, and a second build gives the same ids.
func TestRunner_TablesOnlyExampleGivesRowEntities(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "examples", "bikeco"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: rows\nroot: " + root + "\nsources:\n  - {name: tables, paths: [\"data/*.csv\", \"data/*.xlsx\", \"data/*.sqlite\"]}\n" +
		"link: {tables: {production_plan: {entity: false}}}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	build := func() (map[string]kg.Node, map[string]int, *Report) {
		_, c := noServerPipeline(t, nil, "  - {name: x, paths: [\"*.md\"]}\n")
		out := t.TempDir()
		rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
		if err != nil {
			t.Fatalf("tables-only build: %v", err)
		}
		b, err := bundle.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = b.Close() }()
		rows := map[string]kg.Node{}
		err = b.Nodes(context.Background(), func(n kg.Node) error {
			if n.Properties[kg.PropKey] != "" {
				rows[n.ID] = n
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]int{}
		err = b.Edges(context.Background(), func(e kg.Edge) error {
			types[e.Type]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows, types, rep
	}
	rows, types, rep := build()
	if len(rows) != 23 || types[kg.LinkRowOf] != 23 || types["SUPPLIED_BY"] != 15 {
		t.Errorf("%d row entities, edges %v; want 23 (8 suppliers, 15 parts) with 23 ROW_OF and 15 SUPPLIED_BY", len(rows), types)
	}
	if n := rows[link.RowID("suppliers", "S001")]; n.Name != "Kestrel Alloys" || n.Properties[kg.PropTable] != "suppliers" {
		t.Errorf("suppliers[S001] = %+v, want Kestrel Alloys of table suppliers", n)
	}
	var orders *link.Decision
	for i, d := range rep.Link {
		if d.Table == "orders" {
			orders = &rep.Link[i]
		}
	}
	if len(rep.Link) != 6 || orders == nil || orders.Entity || orders.Reason == "" {
		t.Errorf("run report's link tables %+v; want 6 tables, orders staying a table with its reason", rep.Link)
	}
	i := slices.IndexFunc(rep.Warnings, func(w Reject) bool { return w.Stage == "consolidate" })
	if i < 0 || rep.Warnings[i].Item != "link.tables.production_plan" ||
		!strings.Contains(rep.Warnings[i].Reason, "production_plan_plan, production_plan_scrap") {
		t.Errorf("warnings %+v, want one naming the link block's unknown table production_plan and listing the tables", rep.Warnings)
	}
	again, _, _ := build()
	for id := range rows {
		if _, ok := again[id]; !ok {
			t.Errorf("row entity %s of the first build is not in the second", id)
		}
	}
}
