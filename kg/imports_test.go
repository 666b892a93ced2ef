package kg_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowed is DESIGN.md's package table: what each package may import of
// kgforge. stages also uses llm (the client it hands to extract),
// onnxembed (the in-process embedder it wires) and internal/duck (the
// build's DuckDB settings), all below it in the table.
var allowed = map[string][]string{
	"cmd/kgforge":              {"*"},
	"pipelines":                {"kg"},
	"stages":                   {"ingest", "ingest/all", "extract", "consolidate", "consolidate/resolve", "consolidate/link", "load", "bundle", "pipelines", "kg", "llm", "internal/duck", "onnxembed"},
	"ingest":                   {"kg", "internal/duck"},
	"ingest/all":               {"ingest/tabular", "ingest/html", "ingest/docx", "ingest/pdf", "ingest/records", "ingest/xlsx", "ingest/sqldb"},
	"ingest/tabular":           {"ingest", "kg", "internal/duck"},
	"ingest/html":              {"ingest", "kg"},
	"ingest/docx":              {"ingest", "kg"},
	"ingest/pdf":               {"ingest", "kg"},
	"ingest/records":           {"ingest", "kg"},
	"ingest/xlsx":              {"ingest", "kg", "internal/duck"},
	"ingest/sqldb":             {"ingest", "kg", "internal/duck"},
	"extract":                  {"kg", "llm", "prompts"},
	"consolidate":              {"consolidate/resolve", "consolidate/link", "kg", "llm", "prompts", "internal/duck"},
	"load":                     {"kg", "bundle"},
	"bundle":                   {"kg", "internal/duck"},
	"agent":                    {"bundle", "llm", "prompts", "kg", "internal/duck"},
	"agent/mcp":                {"agent"},
	"agent/eval":               {"agent", "bundle", "llm", "kg"},
	"review":                   {"bundle", "consolidate", "kg", "internal/httpstop"},
	"bench/quality":            {},
	"bench/extractq":           {"bench/quality", "extract", "kg", "llm", "stages"},
	"bench/erq":                {"bench/quality", "consolidate/resolve", "kg", "llm", "onnxembed"},
	"bench/linkq":              {"bundle", "consolidate", "consolidate/resolve", "kg", "llm", "pipelines", "stages"},
	"bench/synth":              {"kg"},
	"bench/agentq":             {"agent", "agent/eval", "bench/internal/sqlqa", "bundle", "llm", "pipelines", "stages"},
	"bench/internal/sqlqa":     {"bundle", "llm", "pipelines", "stages"},
	"bench/internal/benchdata": {},
	"bench/agenttraj":          {"agent", "bench/internal/sqlqa", "kg", "llm"},
	"bench/engine":             {"stages"},
	"bench/embed":              {"llm", "onnxembed"},
	"bench/million":            {"consolidate", "consolidate/resolve", "llm", "onnxembed", "pipelines", "stages"},
	"bench/dispatch":           {"llm"},
	"bench/threads":            {"llm"},
	"bench/memory":             {},
	"bench/examplefacts":       {"bundle", "kg"},
	"onnxembed":                {},
	"llm":                      {},
	"internal/duck":            {},
	"internal/httpstop":        {},
	"kg":                       {},
	"prompts":                  {},

	"consolidate/resolve": {"kg"},
	"consolidate/link":    {"kg", "consolidate/resolve", "internal/duck"},
	"stages/temporal":     {"stages", "pipelines", "extract", "llm"},
}

// owners says which one package may import each outside system.
var owners = map[string]string{
	"github.com/ollama/ollama":                  "llm",
	"github.com/modelcontextprotocol/go-sdk":    "agent/mcp",
	"github.com/neo4j/neo4j-go-driver":          "load",
	"github.com/apache/arrow-go":                "bundle",
	"github.com/duckdb/duckdb-go":               "internal/duck",
	"github.com/duckdb/duckdb-go-bindings":      "internal/duck",
	"github.com/xuri/excelize":                  "ingest/xlsx",
	"github.com/ledongthuc/pdf":                 "ingest/pdf",
	"github.com/jackc/pgx":                      "ingest/sqldb",
	"github.com/mattn/go-sqlite3":               "ingest/sqldb",
	"github.com/petar-dambovaliev/aho-corasick": "consolidate/link",
	"github.com/yalue/onnxruntime_go":           "onnxembed",
	"go.temporal.io":                            "stages/temporal",
}

type pkg struct {
	ImportPath string
	Imports    []string
	Dir        string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "kgforge/...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImports_PointDownTheTable(t *testing.T) {
	pkgs := listPackages(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, "kgforge/")
		seen[name] = true
		rules, ok := allowed[name]
		if !ok {
			t.Errorf("package %s is not in DESIGN.md's table; add it there and here", name)
			continue
		}
		for _, imp := range p.Imports {
			if ours, ok := strings.CutPrefix(imp, "kgforge/"); ok {
				if !slices.Contains(rules, "*") && !slices.Contains(rules, ours) {
					t.Errorf("%s imports %s, which DESIGN.md does not allow", name, ours)
				}
				continue
			}
			for prefix, owner := range owners {
				if strings.HasPrefix(imp, prefix) && name != owner {
					t.Errorf("%s imports %s; only %s may", name, imp, owner)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(p.Dir, "doc.go")); err != nil {
			t.Errorf("package %s has no doc.go", name)
		}
	}
	for name := range allowed {
		if !seen[name] {
			t.Errorf("package %s of DESIGN.md's table does not exist", name)
		}
	}
}
