package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"kgforge/kg"
)

func readDoc(t *testing.T, kind kg.SourceKind, text string) Document {
	t.Helper()
	src := kg.Source{ID: "s1", URI: "doc", Kind: kind}
	doc, err := ReadDocument(context.Background(), src, []byte(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestMarkdownReader_SectionPaths(t *testing.T) {
	doc := readDoc(t, kg.KindMarkdown, "intro\n# A\ntext a\n## B\ntext b\n```\n# not a heading\n```\n# C\ntext c\n")
	var got []string
	for _, s := range doc.Sections {
		got = append(got, s.Path+"="+strings.SplitN(doc.Text[s.Span.Start:s.Span.End], "\n", 2)[0])
	}
	want := []string{"=intro", "A=# A", "A > B=## B", "C=# C"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sections\n got %q\nwant %q", got, want)
	}
}

func TestChunk_InvariantsOnProse(t *testing.T) {
	para := strings.Repeat("Velora Cycles buys aluminium frames from Kestrel Alloys. ", 20)
	text := "# Suppliers\n" + para + "\n\n" + para + "\n# Plants\nThe Porto plant assembles the Trail 500.\n"
	doc := readDoc(t, kg.KindMarkdown, text)
	chunks := Chunk(doc, ChunkOptions{Size: 60, Overlap: 12})
	if len(chunks) < 8 {
		t.Fatalf("got %d chunks, want the long section split", len(chunks))
	}
	checkChunks(t, doc, chunks, 60)
	last := chunks[len(chunks)-1]
	if last.Section != "Plants" || last.Text != "# Plants\nThe Porto plant assembles the Trail 500." {
		t.Errorf("last chunk = %q in %q, want the whole small section", last.Text, last.Section)
	}
	again := Chunk(readDoc(t, kg.KindMarkdown, text), ChunkOptions{Size: 60, Overlap: 12})
	for i := range chunks {
		if chunks[i].ID != again[i].ID {
			t.Fatalf("chunk %d id changed between runs", i)
		}
	}
	if !strings.Contains(chunks[1].Text, lastSentence(chunks[0].Text)) {
		t.Errorf("no overlap: chunk 1 lacks the last sentence of chunk 0")
	}
}

func lastSentence(s string) string {
	parts := strings.SplitAfter(strings.TrimSpace(s), ". ")
	return strings.TrimSpace(parts[len(parts)-1])
}

func checkChunks(t *testing.T, doc Document, chunks []kg.Chunk, size int) {
	t.Helper()
	for i, c := range chunks {
		if doc.Text[c.Span.Start:c.Span.End] != c.Text {
			t.Fatalf("chunk %d: text differs from its span", i)
		}
		if c.Ordinal != i || c.ID != kg.ChunkID(doc.Source.ID, c.Text) {
			t.Fatalf("chunk %d: ordinal %d id %s", i, c.Ordinal, c.ID)
		}
		if c.Tokens != CountTokens(c.Text) {
			t.Errorf("chunk %d: Tokens = %d, text has %d", i, c.Tokens, CountTokens(c.Text))
		}
		if c.Tokens > size && strings.ContainsFunc(c.Text, unicode.IsSpace) {
			t.Errorf("chunk %d: %d tokens over size %d", i, c.Tokens, size)
		}
		if c.Span.Start > 0 && isWordByte(doc.Text[c.Span.Start-1]) && isWordByte(doc.Text[c.Span.Start]) {
			t.Errorf("chunk %d starts inside a word: %q", i, doc.Text[max(0, c.Span.Start-5):c.Span.Start+5])
		}
		if c.Span.End < len(doc.Text) && isWordByte(doc.Text[c.Span.End-1]) && isWordByte(doc.Text[c.Span.End]) {
			t.Errorf("chunk %d ends inside a word", i)
		}
		inside := false
		for _, s := range doc.Sections {
			if c.Span.Start >= s.Span.Start && c.Span.End <= s.Span.End {
				inside = s.Path == c.Section
			}
		}
		if !inside {
			t.Errorf("chunk %d crosses a section boundary", i)
		}
	}
}

func isWordByte(b byte) bool {
	return b >= 0x80 || b == '_' || unicode.IsLetter(rune(b)) || unicode.IsDigit(rune(b))
}

func FuzzChunk(f *testing.F) {
	f.Add("# T\nOne. Two! Three?\n\nFour", 5, 1)
	f.Add(strings.Repeat("word ", 100), 17, 3)
	f.Add("Ünïcödé wörds hère. "+strings.Repeat("x", 50), 3, 1)
	f.Add("| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter. The table.", 4, 1)
	f.Add("0A  tabl", 4, 2) // joined text has more tokens than its words apart
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		if size < 1 || size > 2000 || overlap < 0 {
			return
		}
		src := kg.Source{ID: "s", URI: "f.md", Kind: kg.KindMarkdown}
		doc, err := ReadDocument(context.Background(), src, []byte(text), Options{})
		if err != nil {
			return
		}
		chunks := Chunk(doc, ChunkOptions{Size: size, Overlap: overlap})
		checkChunks(t, doc, chunks, size)
	})
}

func TestReadDocument_RejectsBadText(t *testing.T) {
	cases := map[string][]byte{
		"empty":      {},
		"binary":     {0x7f, 'E', 'L', 'F', 0, 0, 1},
		"latin1":     []byte("caf\xe9 cr\xe8me"),
		"nul inside": []byte("text\x00more"),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadDocument(context.Background(), kg.Source{URI: "bad.txt", Kind: kg.KindText}, data, Options{})
			if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "bad.txt") {
				t.Errorf("err = %v, want a rejection naming bad.txt", err)
			}
		})
	}
}

func TestDiscoverAndOpen_StayInsideRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600))
	must(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("# A\nhello"), 0o600))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "docs", "escape.txt")))
	root, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { _ = root.Close() })

	if _, err := Discover(root, []string{"../*.txt"}, ""); err == nil {
		t.Error("Discover(../*.txt): want error")
	}
	if _, err := Discover(root, []string{"docs/*.pdfx"}, ""); err == nil {
		t.Error("pattern matching nothing: want error")
	}
	found, err := Discover(root, []string{"docs/*.md"}, "")
	must(t, err)
	if len(found) != 1 || found[0].Kind != kg.KindMarkdown {
		t.Fatalf("found %+v", found)
	}
	o, err := Open(root, dir, found[0], Limits{})
	must(t, err)
	if string(o.Data) != "# A\nhello" || o.Source.Bytes != 9 || len(o.Source.SHA256) != 64 {
		t.Errorf("src %+v data %q", o.Source, o.Data)
	}
	if _, err := Open(root, dir, Found{Rel: "docs/escape.txt", Kind: kg.KindText}, Limits{}); !errors.Is(err, kg.ErrRejected) {
		t.Errorf("symlink escaping the root: err = %v, want rejection", err)
	}
	if _, err := Open(root, dir, found[0], Limits{MaxTextBytes: 4}); !errors.Is(err, kg.ErrRejected) {
		t.Errorf("oversized source: err = %v, want rejection", err)
	}
}

func TestTableName(t *testing.T) {
	cases := map[string]string{"data/Orders 2025.csv": "orders_2025", "2024.csv": "t_2024", "ü.csv": "t_", "a--b.tsv": "a_b"}
	for in, want := range cases {
		if got := TableName(in); got != want {
			t.Errorf("TableName(%q) = %q, want %q", in, got, want)
		}
	}
	taken := map[string]bool{}
	if a, b := UniqueName(taken, "x"), UniqueName(taken, "x"); a != "x" || b != "x_2" {
		t.Errorf("UniqueName: %q %q", a, b)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
