package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
)

const corpus = "../../examples/bikeco"

func TestNormName(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Kestrel Alloys", "kestrel alloys"},
		{"suffix with dot", "Kestrel Alloys Ltd.", "kestrel alloys ltd"},
		{"leading the", "The Porto plant", "porto plant"},
		{"the inside kept", "Head of the Plant", "head of the plant"},
		{"only the", "the", "the"},
		{"white space runs", "  Porto \t\n plant  ", "porto plant"},
		{"ampersand", "Pedal & Co", "pedal co"},
		{"comma and symbol", "1,890 €", "1890"},
		{"hyphens dropped", "KA-2503-17", "ka250317"},
		{"decimal", "3.2", "32"},
		{"slash", "Nordhavn Drivetrain A/S", "nordhavn drivetrain as"},
		{"accent kept", "Košice", "košice"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormName(tt.in); got != tt.want {
				t.Errorf("NormName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormPredicate(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"words", "based in", "based in"},
		{"snake", "based_in", "based in"},
		{"upper snake", "BASED_IN", "based in"},
		{"camel", "basedIn", "based in"},
		{"pascal", "BasedIn", "based in"},
		{"acronym inside", "isCEOOf", "is ceo of"},
		{"acronym at end", "hasCEO", "has ceo"},
		{"hyphen", "co-founded", "co founded"},
		{"spaces and case", "  Supplier   Of ", "supplier of"},
		{"digit then upper", "has2Plants", "has2 plants"},
		{"leading the", "the supplier of", "supplier of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormPredicate(tt.in); got != tt.want {
				t.Errorf("NormPredicate(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseSource(t *testing.T) {
	tests := []struct {
		name, in   string
		path       string
		page, line int
		wantErr    bool
	}{
		{name: "file line", in: "docs/suppliers.txt:5", path: "docs/suppliers.txt", line: 5},
		{name: "pdf page line", in: "docs/q.pdf:2:6", path: "docs/q.pdf", page: 2, line: 6},
		{name: "no line", in: "docs/suppliers.txt", wantErr: true},
		{name: "zero line", in: "docs/suppliers.txt:0", wantErr: true},
		{name: "not a number", in: "docs/suppliers.txt:five", wantErr: true},
		{name: "too many parts", in: "a:1:2:3", wantErr: true},
		{name: "no path", in: ":3", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, page, line, err := ParseSource(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseSource(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err == nil && (path != tt.path || page != tt.page || line != tt.line) {
				t.Errorf("ParseSource(%q) = %q, %d, %d, want %q, %d, %d", tt.in, path, page, line, tt.path, tt.page, tt.line)
			}
		})
	}
}

func TestParseGold_Errors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"three fields", "a.txt:1\tX\tis", "3 tab-separated fields"},
		{"bad source", "a.txt\tX\tis\tY", "want PATH:LINE"},
		{"empty predicate form", "a.txt:1\tX\tis||has\tY", "empty subject, object or predicate form"},
		{"empty object", "a.txt:1\tX\tis\t", "empty subject, object or predicate form"},
		{"alias without variant", "# alias\tX", "alias group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGold(strings.NewReader("# comment\n\n" + tt.in + "\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseGold error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

const testGold = `# test gold
# alias	Kestrel Alloys	Kestrel Alloys Ltd.
# alias	Porto plant	Porto Assembly Plant
# alias	12 March 2025	2025-03-12
a.txt:1	Kestrel Alloys	supplies|supplier of	Porto plant
a.txt:2	Batch KA-2503-17	failed on|failed	12 March 2025
a.txt:3	Marta Sousa	ceo of|leads	Velora Cycles
`

func triplet(s, p, o string) kg.Triplet {
	return kg.Triplet{ChunkID: "c1", Subject: kg.Mention{Surface: s}, Predicate: p, Object: kg.Mention{Surface: o}}
}

func TestScore(t *testing.T) {
	g, err := ParseGold(strings.NewReader(testGold))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                   string
		ts                     []kg.Triplet
		kept, strict, pair     int
		foundStrict, foundPair int
		unmatched              int
	}{
		{name: "none", ts: nil},
		{
			name: "exact", ts: []kg.Triplet{triplet("Kestrel Alloys", "supplies", "Porto plant")},
			kept: 1, strict: 1, pair: 1, foundStrict: 1, foundPair: 1,
		},
		{
			name: "aliases and predicate forms", ts: []kg.Triplet{triplet("Kestrel Alloys Ltd.", "SUPPLIER_OF", "the Porto Assembly Plant")},
			kept: 1, strict: 1, pair: 1, foundStrict: 1, foundPair: 1,
		},
		{
			name: "date alias", ts: []kg.Triplet{triplet("batch KA-2503-17", "failedOn", "2025-03-12")},
			kept: 1, strict: 1, pair: 1, foundStrict: 1, foundPair: 1,
		},
		{
			name: "other predicate counts for pair only", ts: []kg.Triplet{triplet("Kestrel Alloys", "located near", "Porto plant")},
			kept: 1, pair: 1, foundPair: 1,
		},
		{
			name: "swapped direction matches nothing", ts: []kg.Triplet{triplet("Porto plant", "supplies", "Kestrel Alloys")},
			kept: 1, unmatched: 1,
		},
		{
			name: "unknown", ts: []kg.Triplet{triplet("Velora Cycles", "based in", "Porto")},
			kept: 1, unmatched: 1,
		},
		{name: "duplicates kept once", ts: []kg.Triplet{
			triplet("Marta Sousa", "CEO of", "Velora Cycles"),
			triplet("marta sousa", "ceo_of", "Velora Cycles."),
			triplet("Marta Sousa", "leads", "Velora Cycles"),
		}, kept: 2, strict: 2, pair: 2, foundStrict: 1, foundPair: 1},
		{
			name: "alias is not transitive across facts", ts: []kg.Triplet{triplet("Kestrel Alloys Ltd.", "supplies", "2025-03-12")},
			kept: 1, unmatched: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Score(g, tt.ts)
			got := []int{r.Kept, r.CorrectStrict, r.CorrectPair, r.FoundStrict, r.FoundPair, len(r.Unmatched)}
			want := []int{tt.kept, tt.strict, tt.pair, tt.foundStrict, tt.foundPair, tt.unmatched}
			if !slices.Equal(got, want) {
				t.Errorf("kept, strict, pair, found strict, found pair, unmatched = %v, want %v", got, want)
			}
			if r.GoldFacts != 3 || len(r.MissedStrict) != 3-tt.foundStrict || len(r.MissedPair) != 3-tt.foundPair {
				t.Errorf("gold %d, missed strict %d, missed pair %d; want 3, %d, %d",
					r.GoldFacts, len(r.MissedStrict), len(r.MissedPair), 3-tt.foundStrict, 3-tt.foundPair)
			}
			if tt.kept > 0 {
				if want := float64(tt.strict) / float64(tt.kept); r.PrecisionStrict != want {
					t.Errorf("precision strict = %v, want %v", r.PrecisionStrict, want)
				}
			}
		})
	}
}

func TestPrint(t *testing.T) {
	g, err := ParseGold(strings.NewReader(testGold))
	if err != nil {
		t.Fatal(err)
	}
	r := Score(g, []kg.Triplet{triplet("Kestrel Alloys", "supplies", "Porto plant"), triplet("Velora Cycles", "based in", "Porto")})
	var b bytes.Buffer
	if err := Print(&b, r, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"strict  1", "0.500", "unmatched triplets (1):", "c1  Velora Cycles | based in | Porto", "gold facts missed, strict (2):"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRun(t *testing.T) {
	out := t.TempDir()
	w, err := bundle.Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	ts := []kg.Triplet{
		triplet("Kestrel Alloys.", "Supplies", "the Porto plant"),
		triplet("Kestrel Alloys", "supplies", "Porto plant"),
		triplet("Velora Cycles", "based in", "Porto"),
	}
	for i := range ts {
		ts[i].ID = fmt.Sprintf("t%d", i)
	}
	if _, err := w.Commit(bundle.Contents{Triplets: ts}, bundle.Manifest{Pipeline: "test"}); err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join(out, "facts.tsv")
	if err := os.WriteFile(gold, []byte(testGold), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(out, "report.json")
	var b bytes.Buffer
	if err := run(context.Background(), options{bundle: out, gold: gold, json: report}, &b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	got := []int{r.Triplets, r.Kept, r.CorrectStrict, r.CorrectPair, r.FoundStrict, len(r.Unmatched)}
	if want := []int{3, 2, 1, 1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("triplets, kept, strict, pair, found strict, unmatched = %v, want %v\n%s", got, want, b.String())
	}
	if !strings.Contains(b.String(), "Velora Cycles | based in | Porto") {
		t.Errorf("output lacks the unmatched triplet:\n%s", b.String())
	}
	if err := run(context.Background(), options{gold: gold}, &b); err == nil {
		t.Error("run without -bundle: want an error")
	}
}

// pdfPages returns the text lines of each page of an uncompressed PDF whose
// content streams show one line per Tj operator, as the example's is: the
// lines a text extractor prints, blank lines left out.
func pdfPages(t *testing.T, data []byte) [][]string {
	t.Helper()
	var pages [][]string
	streams := regexp.MustCompile(`(?s)stream\r?\n(.*?)endstream`).FindAllSubmatch(data, -1)
	shown := regexp.MustCompile(`\(((?:[^()\\]|\\.)*)\)\s*Tj`)
	for _, s := range streams {
		var lines []string
		for _, m := range shown.FindAllSubmatch(s[1], -1) {
			lines = append(lines, string(m[1]))
		}
		if lines != nil {
			pages = append(pages, lines)
		}
	}
	if len(pages) == 0 {
		t.Fatal("no text found in the PDF: is it compressed now? the test reads uncompressed Tj text only")
	}
	return pages
}

// TestGoldFile checks the real gold file: every fact line has four fields
// and a source whose file exists in the corpus and has that line; every
// subject and object (or one of its aliases) is written on the cited line
// (or the next, for a sentence the PDF wraps).
func TestGoldFile(t *testing.T) {
	path := filepath.Join(corpus, "gold", "facts.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseGold(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Facts) < 100 {
		t.Errorf("%d facts, want at least 100", len(g.Facts))
	}
	var raw int
	for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		raw++
		if got := len(strings.Split(line, "\t")); got != 4 {
			t.Errorf("line %d: %d fields, want 4", n+1, got)
		}
	}
	if raw != len(g.Facts) {
		t.Errorf("%d fact lines, parsed %d facts", raw, len(g.Facts))
	}
	files := map[string][]string{} // corpus file → its lines, or a PDF's page lines joined by page
	pdfs := map[string][][]string{}
	lines := func(file string) []string {
		if ls, ok := files[file]; ok {
			return ls
		}
		b, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("source %s: %v", file, err)
		} else if strings.HasSuffix(file, ".pdf") {
			pdfs[file] = pdfPages(t, b)
		}
		files[file] = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		return files[file]
	}
	for _, f := range g.Facts {
		file, page, n, err := ParseSource(f.Source)
		if err != nil {
			t.Errorf("%s: %v", f.Source, err)
			continue
		}
		ls := lines(file)
		var text string
		switch pages, isPDF := pdfs[file]; {
		case isPDF && page == 0:
			t.Errorf("%s: a PDF fact needs PATH:PAGE:LINE", f.Source)
			continue
		case isPDF:
			if page > len(pages) || n > len(pages[page-1]) {
				t.Errorf("%s: the PDF has %d pages (this one %d lines)", f.Source, len(pages), len(pages[min(page, len(pages))-1]))
				continue
			}
			text = strings.Join(pages[page-1][n-1:min(n+1, len(pages[page-1]))], " ")
		case page != 0:
			t.Errorf("%s: only a PDF fact has a page", f.Source)
			continue
		case n > len(ls):
			t.Errorf("%s: %s has %d lines", f.Source, file, len(ls))
			continue
		default:
			text = ls[n-1]
		}
		if len(f.Predicates) < 2 || len(f.Predicates) > 6 {
			t.Errorf("%s %s: %d predicate forms, want 2 to 6", f.Source, f.Subject, len(f.Predicates))
		}
		for _, p := range f.Predicates {
			if p != strings.ToLower(p) {
				t.Errorf("%s: predicate form %q is not lower case", f.Source, p)
			}
		}
		norm := NormName(html.UnescapeString(text))
		for _, name := range []string{f.Subject, f.Object} {
			found := false
			for v := range g.Variants(name) {
				found = found || (v != "" && strings.Contains(norm, v))
			}
			if !found {
				t.Errorf("%s: %q (nor an alias) is not on the cited line: %s", f.Source, name, text)
			}
		}
	}
}
