package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
)

func pct(v float64) *float64 { return &v }

func TestCheckGates(t *testing.T) {
	prev := prevFacts{BuildID: "b1", Nodes: 100, Edges: 200, Merges: 10, Rejected: []Reject{{Stage: "ingest", Item: "old.pdf"}}}
	for _, c := range []struct {
		name                 string
		g                    pipelines.Gates
		nodes, edges, merges int
		rejected             []Reject
		failed               []string
	}{
		{"none set", pipelines.Gates{}, 1, 1, 1000, nil, nil},
		{"nodes within", pipelines.Gates{MaxNodeDrop: pct(10)}, 90, 200, 10, nil, nil},
		{"nodes over", pipelines.Gates{MaxNodeDrop: pct(10)}, 89, 200, 10, nil, []string{"max_node_drop_percent"}},
		{"nodes grew", pipelines.Gates{MaxNodeDrop: pct(0)}, 150, 200, 10, nil, nil},
		{"edges over zero", pipelines.Gates{MaxEdgeDrop: pct(0)}, 100, 199, 10, nil, []string{"max_edge_drop_percent"}},
		{"merges within", pipelines.Gates{MaxMergeGrowth: pct(50)}, 100, 200, 15, nil, nil},
		{"merges over", pipelines.Gates{MaxMergeGrowth: pct(50)}, 100, 200, 16, nil, []string{"max_merge_growth_percent"}},
		{"old failure again", pipelines.Gates{NewSourceFailures: pipelines.GateFail}, 100, 200, 10, []Reject{{Stage: "ingest", Item: "old.pdf"}}, nil},
		{"chunk rejects are no source failure", pipelines.Gates{NewSourceFailures: pipelines.GateFail}, 100, 200, 10, []Reject{{Stage: "extract", Item: "c1"}}, nil},
		{"new failure", pipelines.Gates{NewSourceFailures: pipelines.GateFail}, 100, 200, 10, []Reject{{Stage: "ingest", Item: "new.pdf"}}, []string{"new_source_failures"}},
		{"allowed failure", pipelines.Gates{NewSourceFailures: pipelines.GateAllow}, 100, 200, 10, []Reject{{Stage: "ingest", Item: "new.pdf"}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var failed []string
			for _, g := range checkGates(c.g, prev, c.nodes, c.edges, c.merges, c.rejected) {
				if !g.Passed {
					failed = append(failed, g.Name)
				}
			}
			if strings.Join(failed, ",") != strings.Join(c.failed, ",") {
				t.Errorf("failed gates %v, want %v", failed, c.failed)
			}
		})
	}
}

// TestRunner_FailedGateKeepsLatest builds two tables, then one: the node
// gate fails, the second bundle is written but latest stays on the first,
// and the report says which gate failed and why.
func TestRunner_FailedGateKeepsLatest(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	files := map[string]string{
		"data/parts.csv":     "part_id,name\nP1,Frame\nP2,Wheel\n",
		"data/suppliers.csv": "supplier_id,name,country\nS1,Acme,DE\nS2,Bolt,FR\n",
	}
	pipeline := "name: gated\nsources:\n  - {name: tables, paths: [\"data/*.csv\"]}\nresolve: {embeddings: false}\nneo4j: {mode: never}\ngates: {max_node_drop_percent: 10, new_source_failures: fail}\n"
	p := sourceTree(t, dir, files, pipeline)
	t.Setenv("OLLAMA_HOST", closedServer)
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}
	first, err := rn.Run(context.Background(), p)
	if err != nil || first.Status != StatusOK || len(first.Gates) != 0 {
		t.Fatalf("first build: %v, status %s, gates %v (a first build has nothing to compare with)", err, first.Status, first.Gates)
	}
	if err := os.Remove(filepath.Join(dir, "data/suppliers.csv")); err != nil {
		t.Fatal(err)
	}
	second, err := rn.Run(context.Background(), p)
	var ge *GateError
	if !errors.Is(err, ErrGateFailed) || !errors.As(err, &ge) || len(ge.Failed) != 1 || ge.Failed[0].Name != "max_node_drop_percent" {
		t.Fatalf("second build: %v; want the node gate failed", err)
	}
	if second.Status != StatusFailed || !strings.Contains(err.Error(), "gates.max_node_drop_percent: nodes") {
		t.Errorf("status %s, error %q", second.Status, err)
	}
	if latest, _ := os.Readlink(filepath.Join(out, bundle.LatestLink)); latest != first.BuildID {
		t.Errorf("latest is %q, want the first build %s", latest, first.BuildID)
	}
	if _, err := bundle.Open(second.Bundle); err != nil {
		t.Errorf("the gated bundle should still be there to look at: %v", err)
	}
	prev, ok, err := readPrevReport(out)
	if err != nil || !ok || prev.BuildID != first.BuildID {
		t.Errorf("previous report after the failed gate: %+v, %v, %v", prev, ok, err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "reports", second.BuildID+".json"))
	if err != nil || !strings.Contains(string(raw), `"status": "failed"`) || !strings.Contains(string(raw), `"name": "max_node_drop_percent"`) {
		t.Errorf("report of the failed build: %v\n%s", err, raw)
	}
}
