package link

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
)

// conceptExampleTables returns the tables of examples/bikeco/data as the
// real ingest loads and profiles them.
func conceptExampleTables(t *testing.T) []kg.Table {
	t.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(t.TempDir(), "build.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	taken := map[string]bool{}
	var out []kg.Table
	for _, f := range []struct {
		rel  string
		kind kg.SourceKind
	}{
		{"data/orders.csv", kg.KindCSV},
		{"data/parts.csv", kg.KindCSV},
		{"data/suppliers.csv", kg.KindCSV},
		{"data/production-plan.xlsx", kg.KindXLSX},
		{"data/purchasing.sqlite", kg.KindSQLite},
	} {
		tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{
			Source: kg.Source{ID: kg.ID("source", f.rel), URI: f.rel, Kind: f.kind, Bytes: 1},
			Path:   filepath.Join("..", "..", "examples", "bikeco", f.rel), Base: f.rel,
			Name: func(want string) string { return ingest.UniqueName(taken, ingest.TableName(want)) },
		})
		if err != nil {
			t.Fatalf("load %s: %v", f.rel, err)
		}
		out = append(out, tables...)
	}
	return out
}

// conceptNode returns an extracted node named name.
func conceptNode(name, typ string) kg.Node {
	return kg.Node{ID: kg.ID("node", name), Name: name, Kind: kg.NodeConcept, Labels: []string{typ}, Properties: map[string]string{"type": typ}}
}

// llmEmbedder embeds through the real Ollama server.
type llmEmbedder struct{ c *llm.Client }

func (e llmEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.c.Embed(ctx, llm.EmbedModelForTests, texts, 64)
}

// realEmbedder returns the real embed model, skipping without
// KGFORGE_INTEGRATION.
func realEmbedder(t *testing.T) Embedder {
	t.Helper()
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return llmEmbedder{c}
}

// TestConceptsRealEmbeddingsIntegration links concept names to the
// example's tables as the real ingest profiles them, with the real embed
// model: the expected links are in the linked band, "late delivery" (the
// example keeps no delivery dates, only a status "delayed") is the
// uncertain candidate of orders.status, and concepts the data does not
// hold ("lead time" here, "bicycle colour") link to nothing.
func TestConceptsRealEmbeddingsIntegration(t *testing.T) {
	emb := realEmbedder(t)
	tables := conceptExampleTables(t)
	nodes := conceptNodes("supplier", "lead time", "late delivery", "scrap", "bicycle colour", "supplier rating", "unit cost", "customer order")
	links, edges, err := Concepts(context.Background(), nodes, tables, emb, Config{})
	if err != nil {
		t.Fatal(err)
	}
	got := linksOf(links, kg.LinkBandLinked)
	for _, want := range []string{
		"supplier REPRESENTED_BY suppliers",
		"scrap MEASURED_BY production_plan_scrap.units",
		"supplier rating MEASURED_BY suppliers.rating",
		"unit cost MEASURED_BY parts.unit_cost_eur",
		"unit cost MEASURED_BY purchasing_purchase_orders.unit_cost_eur",
		"customer order REPRESENTED_BY orders",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("not linked: %s", want)
		}
	}
	for _, g := range got {
		if strings.HasPrefix(g, "bicycle colour ") || strings.HasPrefix(g, "lead time ") {
			t.Errorf("linked: %s", g)
		}
	}
	if !slices.Contains(linksOf(links, kg.LinkBandUncertain), "late delivery MEASURED_BY orders.status") {
		t.Errorf("late delivery → orders.status is not uncertain: %v", linksOf(links, kg.LinkBandUncertain))
	}
	if len(edges) != len(got) {
		t.Errorf("%d edges for %d linked links", len(edges), len(got))
	}
	for _, l := range links {
		t.Logf("%-16s %-15s %-42s %.2f %-9s %v", l.SrcName, l.Type, l.Target, l.Score, l.Band, l.Signals)
	}
}
