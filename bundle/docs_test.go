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
	m := regexp.MustCompile("(?s)```sql\n(SELECT s\\.name.*?)```").FindSubmatch(raw)
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
	for _, f := range []string{ManifestFile, NodesFile, EdgesFile, ChunksFile, SourcesFile, TripletsFile, MergesFile, MergeLinksFile, MergeReportFile, LinksFile, LinkReportFile, PostingsFile, PostingDocsFile, TablesFile, DataFile, VectorsFile("NAME")} {
		if !strings.Contains(doc, "`"+f+"`") {
			t.Errorf("docs/bundle.md does not document %s", f)
		}
	}
}

// TestDocs_TableDigestSQL runs the SQL of docs/bundle.md that recomputes a
// table digest with DuckDB alone and compares it with the manifest's, so
// the definition there is the one the writer implements.
func TestDocs_TableDigestSQL(t *testing.T) {
	raw, err := os.ReadFile("../docs/bundle.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(SET TimeZone.*?)```").FindSubmatch(raw)
	if m == nil {
		t.Fatal("docs/bundle.md has no sql block starting with SET TimeZone")
	}
	dir := write(t, t.TempDir(), "b", sample())
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	ctx := context.Background()
	db, err := duck.Open(ctx, "", duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1)
	stmts := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(m[1]), "BUNDLE", dir)), ";\n")
	for _, q := range stmts[:len(stmts)-1] {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var got string
	if err := db.QueryRowContext(ctx, strings.TrimSuffix(stmts[len(stmts)-1], ";")).Scan(&got); err != nil {
		t.Fatalf("documented digest query: %v", err)
	}
	if want := b.Manifest.TableDigests["parts"].SHA256; got != want || want == "" {
		t.Errorf("documented digest of parts = %s, manifest says %s", got, want)
	}
}

// TestDocs_LinksQueryRuns runs the link log query of docs/bundle.md against
// a bundle with links of every band.
func TestDocs_LinksQueryRuns(t *testing.T) {
	raw, err := os.ReadFile("../docs/bundle.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(SELECT src_name.*?)```").FindSubmatch(raw)
	if m == nil {
		t.Fatal("docs/bundle.md has no sql block starting with SELECT src_name")
	}
	c := sample()
	c.Graph.Links = sampleLinks()
	dir := write(t, t.TempDir(), "b", c)
	ctx := context.Background()
	db, err := duck.Open(ctx, "", duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rows, err := db.QueryContext(ctx, strings.ReplaceAll(string(m[1]), "BUNDLE", dir))
	if err != nil {
		t.Fatalf("documented query: %v", err)
	}
	defer func() { _ = rows.Close() }()
	var got []string
	for rows.Next() {
		var name, typ, target string
		var score float64
		var signals any
		if err := rows.Scan(&name, &typ, &target, &score, &signals); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+" "+typ+" "+target)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := "lead time | délai MEASURED_BY parts.lead_time_days"; len(got) != 1 || got[0] != want {
		t.Errorf("documented query gave %q, want [%q]", got, want)
	}
}
