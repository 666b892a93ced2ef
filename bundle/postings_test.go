package bundle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"kgforge/internal/duck"
	"kgforge/kg"
)

func TestTerms_SplitsOnNonWordsLowercasesAndDropsSingleLetters(t *testing.T) {
	got := Terms("Kestrel Alloys' 48V pack, a 3-step ÉTÉ-check; x " + strings.Repeat("z", 70))
	want := []string{"kestrel", "alloys", "48v", "pack", "3", "step", "été", "check", strings.Repeat("z", maxTermBytes)}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q\nwant %q", got, want)
	}
}

func TestWriter_PostingsIndexChunksAndNodesButNotChunkNodes(t *testing.T) {
	c := sample()
	c.Chunks = []kg.Chunk{{ID: "c1", SourceID: "s1", Text: "Velora buys frames, frames and wheels."}}
	c.Graph.Nodes = append(c.Graph.Nodes,
		kg.Node{ID: "c1", Name: "s1#0", Kind: kg.NodeChunk},
		kg.Node{ID: "n9", Name: "Frame", Kind: kg.NodeConcept, Aliases: []string{"frames"}, Description: "A bicycle frame."})
	b := openT(t, write(t, t.TempDir(), "b", c))
	ctx := context.Background()
	var docs []PostingDoc
	if err := b.PostingDocs(ctx, func(d PostingDoc) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatal(err)
	}
	byID := map[string]PostingDoc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	if d := byID["c1"]; d.Kind != "chunk" || d.Len != 6 || d.Doc != 0 {
		t.Errorf("chunk's document = %+v, want doc 0 of 6 terms", d)
	}
	if d, ok := byID["n9"]; !ok || d.Kind != "concept" || d.Len != 4 {
		t.Errorf("node's document = %+v, want its name, alias and description: 4 terms (the one-letter word dropped)", d)
	}
	tf := map[[2]any]int{}
	if err := b.Postings(ctx, func(p Posting) error { tf[[2]any{p.Term, p.Doc}] = p.TF; return nil }); err != nil {
		t.Fatal(err)
	}
	if tf[[2]any{"frames", 0}] != 2 || tf[[2]any{"frames", byID["n9"].Doc}] != 1 || tf[[2]any{"s1", 0}] != 0 {
		t.Errorf("postings = %v", tf)
	}
	if b.Manifest.Counts["postings_docs"] != int64(len(docs)) {
		t.Errorf("counts = %v", b.Manifest.Counts)
	}
	sb, err := b.Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sb.Close() }()
	_, rows, _, err := sb.Query(ctx, "SELECT d.id, p.tf FROM postings p JOIN postings_docs d USING (doc) WHERE p.term = 'frames' ORDER BY d.id", 10)
	if err != nil || len(rows) != 3 || rows[0][0] != "c1" || rows[0][1] != "2" {
		t.Errorf("postings in the sandbox: %v, %v", rows, err)
	}
}

// TestOpen_PostingsByVersion checks that a 1.4 bundle, which has no search
// index, opens and reads as one without postings, and that a manifest of
// 1.5 or later that lists none is refused.
func TestOpen_PostingsByVersion(t *testing.T) {
	dir := write(t, t.TempDir(), "b", sample())
	for _, f := range []string{PostingsFile, PostingDocsFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	editManifest(t, dir, func(m *Manifest) {
		delete(m.Files, PostingsFile)
		delete(m.Files, PostingDocsFile)
	})
	if _, err := Open(dir); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lists no "+PostingsFile) {
		t.Errorf("Open of a %s manifest without %s: %v", Version, PostingsFile, err)
	}
	editManifest(t, dir, func(m *Manifest) { m.Version = "1.4" })
	b := openT(t, dir)
	n := 0
	if err := b.Postings(context.Background(), func(Posting) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("postings of a 1.4 bundle: %d, %v", n, err)
	}
	sb, err := b.Sandbox(context.Background())
	if err != nil {
		t.Fatalf("sandbox of a 1.4 bundle: %v", err)
	}
	_ = sb.Close()
}

// TestDocs_BM25QueryRuns runs the BM25 query of docs/bundle.md over a
// bundle's Parquet files: the chunk that holds both terms ranks first.
func TestDocs_BM25QueryRuns(t *testing.T) {
	raw, err := os.ReadFile("../docs/bundle.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(WITH d AS.*?);\n```").FindSubmatch(raw)
	if m == nil {
		t.Fatal("docs/bundle.md has no sql block starting with WITH d AS")
	}
	c := sample()
	c.Chunks = append(c.Chunks,
		kg.Chunk{ID: "c2", SourceID: "s1", Text: "The frame cracked at the weld; the weld was redone."},
		kg.Chunk{ID: "c3", SourceID: "s1", Text: "A frame is a frame."})
	dir := write(t, t.TempDir(), "b", c)
	ctx := context.Background()
	db, err := duck.Open(ctx, "", duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var id, kind string
	var score float64
	if err := db.QueryRowContext(ctx, strings.ReplaceAll(string(m[1]), "BUNDLE", dir)).Scan(&id, &kind, &score); err != nil {
		t.Fatalf("documented query: %v", err)
	}
	if id != "c2" || kind != "chunk" || score <= 0 {
		t.Errorf("documented query ranks %s (%s, %g) first, want chunk c2", id, kind, score)
	}
}

// FuzzTerms: every term is valid UTF-8, lower case, of letters and digits
// only, at most 64 bytes, and found (lower-cased) in the text.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"Kestrel Alloys' 48V pack", "ÉTÉ-check", "İstanbul", strings.Repeat("ß", 40), "a\x80b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, term := range Terms(text) {
			if term == "" || len(term) > maxTermBytes || !utf8.ValidString(term) || strings.ToLower(term) != term {
				t.Fatalf("Terms(%q) gave %q", text, term)
			}
			for _, r := range term {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Fatalf("Terms(%q) gave %q, with %q", text, term, r)
				}
			}
		}
	})
}
