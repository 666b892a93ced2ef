package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/pdf" // registers the PDF reader the check reads the quality review with
	"kgforge/kg"
)

// exampleDir is the example corpus the gold file describes.
const exampleDir = "../../examples/bikeco"

// TestGoldFactsAreInTheirLines checks every fact of the example's gold file
// against the corpus: the line it cites (with the next two, where a
// sentence runs on) names its subject and its object, by the name itself
// or a variant of its alias groups. The PDF is read by kgforge's own PDF
// reader, its lines counted per page without blank ones, as the file's
// header says. An edit to the corpus that changes a fact the gold file
// states fails here until both agree.
func TestGoldFactsAreInTheirLines(t *testing.T) {
	g, err := LoadGold(filepath.Join(exampleDir, "gold", "facts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Facts) < 250 {
		t.Fatalf("gold file has %d facts; the example's has more than 250", len(g.Facts))
	}
	lines := map[string][][]string{} // path → page (0 for files without pages) → lines
	for _, f := range g.Facts {
		path, page, line, err := ParseSource(f.Source)
		if err != nil {
			t.Fatal(err)
		}
		pages, ok := lines[path]
		if !ok {
			if pages, err = corpusLines(path); err != nil {
				t.Fatal(err)
			}
			lines[path] = pages
		}
		if page >= len(pages) || line > len(pages[page]) {
			t.Errorf("%s: %s has no such line", f.Source, path)
			continue
		}
		text := NormName(strings.Join(pages[page][line-1:min(line+2, len(pages[page]))], " "))
		for _, side := range []struct{ role, name string }{{"subject", f.Subject}, {"object", f.Object}} {
			if !namedIn(g, side.name, text) {
				t.Errorf("%s: the %s %q is not in the line it cites: %q", f.Source, side.role, side.name, text)
			}
		}
	}
}

// namedIn reports whether text (normalised) holds name or a variant of it.
func namedIn(g *Gold, name, text string) bool {
	for v := range g.Variants(name) {
		if v != "" && strings.Contains(" "+text+" ", v) {
			return true
		}
	}
	return false
}

// corpusLines reads a source of the example as the gold file numbers it:
// the file's lines (page 0), or for a PDF each page's non-blank text lines
// (page 1 on).
func corpusLines(path string) ([][]string, error) {
	data, err := os.ReadFile(filepath.Join(exampleDir, path))
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".pdf") {
		return [][]string{strings.Split(string(data), "\n")}, nil
	}
	src := kg.Source{URI: path, Kind: kg.KindPDF}
	doc, err := ingest.ReadDocument(context.Background(), src, data, ingest.Options{})
	if err != nil {
		return nil, err
	}
	pages := [][]string{nil}
	for _, s := range doc.Sections {
		for len(pages) <= s.Page {
			pages = append(pages, nil)
		}
		for _, l := range strings.Split(doc.Text[s.Span.Start:s.Span.End], "\n") {
			if strings.TrimSpace(l) != "" {
				pages[s.Page] = append(pages[s.Page], l)
			}
		}
	}
	if len(pages) < 2 {
		return nil, fmt.Errorf("%s: the PDF reader found no page", path)
	}
	return pages, nil
}
