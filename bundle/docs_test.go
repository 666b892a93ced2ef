package bundle

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"kgforge/internal/duck"
)

// TestDocs_DuckDBQueryRuns runs the DuckDB query of docs/bundle.md against a
// real bundle, so the documentation cannot drift from the format.
func TestDocs_DuckDBQueryRuns(t *testing.T) {
	raw, err := os.ReadFile("../docs/bundle.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```").FindSubmatch(raw)
	if m == nil {
		t.Fatal("docs/bundle.md has no sql block")
	}
	dir := write(t, t.TempDir(), "b", sample())
	q := strings.ReplaceAll(string(m[1]), "BUNDLE", dir)
	ctx := context.Background()
	db, err := duck.Open(ctx, "", duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var subject, predicate, object, evidence string
	if err := db.QueryRowContext(ctx, q).Scan(&subject, &predicate, &object, &evidence); err != nil {
		t.Fatalf("documented query: %v\n%s", err, q)
	}
	if subject != "Velora" || predicate != "buys" || object != "frames" || evidence != "Velora buys frames." {
		t.Errorf("got %q %q %q %q", subject, predicate, object, evidence)
	}
}

// TestDocs_VersionAndFiles checks that docs/bundle.md names the version this
// package writes and every file of a bundle.
func TestDocs_VersionAndFiles(t *testing.T) {
	raw, err := os.ReadFile("../docs/bundle.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	if want := "now `" + Version + "`"; !strings.Contains(doc, want) {
		t.Errorf("docs/bundle.md does not say %s", want)
	}
	for _, f := range []string{ManifestFile, NodesFile, EdgesFile, ChunksFile, SourcesFile, TripletsFile, MergesFile, LinksFile, MergeReportFile, TablesFile, DataFile, VectorsFile("NAME")} {
		if !strings.Contains(doc, "`"+f+"`") {
			t.Errorf("docs/bundle.md does not document %s", f)
		}
	}
}
