package all_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// corpusOptions are the pipeline settings the corpus files need, as a
// pipeline file would give them.
var corpusOptions = map[string]ingest.Options{
	"tickets.jsonl": {TextFields: []string{"subject", "body"}},
	"plant.log":     {RecordStart: `^\d{4}-\d{2}-\d{2}`},
}

// corpusResult is what one corpus file becomes: chunks or tables.
type corpusResult struct {
	Kind   kg.SourceKind `json:"kind"`
	Chunks []kg.Chunk    `json:"chunks,omitempty"`
	Tables []kg.Table    `json:"tables,omitempty"`
}

// TestCorpus reads every file of testdata/corpus the way a build does and
// compares what it becomes with testdata/golden (go test -update rewrites
// them). A kind without a corpus file fails the test.
func TestCorpus(t *testing.T) {
	ctx := context.Background()
	dir := corpusDir(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = root.Close() })
	found, err := ingest.Discover(root, []string{"*"}, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[kg.SourceKind]bool{}
	db, err := duck.Open(ctx, filepath.Join(t.TempDir(), "corpus.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	taken := map[string]bool{}
	for _, f := range found {
		t.Run(f.Rel, func(t *testing.T) {
			seen[f.Kind] = true
			opt := corpusOptions[f.Rel]
			o, err := ingest.Open(root, dir, f, opt.Limits)
			if err != nil {
				t.Fatal(err)
			}
			res := corpusResult{Kind: f.Kind}
			if f.Kind.IsTable() {
				res.Tables, err = ingest.LoadTables(ctx, db, ingest.TableInput{
					Source: o.Source, Path: o.Path, Base: ingest.TableName(f.Rel), Options: opt,
					Name: func(want string) string { return ingest.UniqueName(taken, ingest.TableName(want)) },
				})
				if err != nil {
					t.Fatal(err)
				}
			} else {
				doc, err := ingest.ReadDocument(ctx, o.Source, o.Data, opt)
				if err != nil {
					t.Fatal(err)
				}
				res.Chunks = ingest.Chunk(doc, ingest.ChunkOptions{Size: 120, Overlap: 20})
				if len(res.Chunks) == 0 {
					t.Fatal("no chunks")
				}
				for _, c := range res.Chunks {
					if doc.Text[c.Span.Start:c.Span.End] != c.Text {
						t.Errorf("chunk %d: text differs from its span", c.Ordinal)
					}
				}
			}
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("..", "..", "testdata", "golden", f.Rel+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./ingest/all -update to create it)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("%s differs from %s (run go test ./ingest/all -update and review the diff):\n%s", f.Rel, golden, firstDiff(string(got), string(want)))
			}
		})
	}
	var missing []string
	for _, k := range slices.Concat(kg.TextKinds, kg.TableKinds) {
		if !seen[k] && k != kg.KindPostgres {
			missing = append(missing, string(k))
		}
	}
	if len(missing) > 0 {
		t.Errorf("testdata/corpus has no file of kind %s", strings.Join(missing, ", "))
	}
}

// corpusDir copies testdata/corpus to a temporary directory and adds the
// kinds whose smallest file is too big to commit: a DuckDB database.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "corpus"))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(dir, "warehouse.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE bins (bin_id VARCHAR PRIMARY KEY, aisle INTEGER, part_id VARCHAR, units INTEGER)",
		"INSERT INTO bins VALUES ('B-01', 1, 'P001', 40), ('B-02', 1, 'P002', 12), ('B-03', 2, 'P010', 300), ('B-04', 3, NULL, 0)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n got " + g[i] + "\nwant " + w[i]
		}
	}
	return "lengths differ: " + itoa(len(g)) + " and " + itoa(len(w)) + " lines"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
