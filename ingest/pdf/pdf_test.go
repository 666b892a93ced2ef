package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"

	"kgforge/ingest"
	"kgforge/kg"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/quality-report.pdf")

const corpusFile = "../../testdata/corpus/quality-report.pdf"

func read(t *testing.T, name string, data []byte) (ingest.Document, error) {
	t.Helper()
	src := kg.Source{ID: kg.ID("source", name), URI: name, Kind: kg.KindPDF, Bytes: int64(len(data))}
	return ingest.ReadDocument(context.Background(), src, data, ingest.Options{})
}

func mustRead(t *testing.T, name string, data []byte) ingest.Document {
	t.Helper()
	doc, err := read(t, name, data)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	checkDocument(t, doc)
	return doc
}

// checkDocument checks what Read promises of every document it returns.
func checkDocument(t testing.TB, doc ingest.Document) {
	t.Helper()
	if doc.Verbatim {
		t.Error("Verbatim is true; a PDF's text is not the file's own")
	}
	if !utf8.ValidString(doc.Text) {
		t.Error("text is not valid UTF-8")
	}
	if len(doc.Sections) == 0 {
		t.Fatal("no sections")
	}
	var pages []string
	end, page := 0, 0
	for i, s := range doc.Sections {
		if s.Span.Start < end || s.Span.End <= s.Span.Start || s.Span.End > len(doc.Text) {
			t.Fatalf("section %d span %v: not ordered, empty or outside the text (%d bytes)", i, s.Span, len(doc.Text))
		}
		if s.Page <= page {
			t.Fatalf("section %d page %d: pages must be 1-based and increasing (previous %d)", i, s.Page, page)
		}
		text := doc.Text[s.Span.Start:s.Span.End]
		if strings.Contains(text, "\n\n") || strings.TrimSpace(text) != text {
			t.Errorf("page %d text %q has a blank line or surrounding space", s.Page, text)
		}
		pages = append(pages, text)
		end, page = s.Span.End, s.Page
	}
	if got := strings.Join(pages, "\n\n"); got != doc.Text {
		t.Errorf("text is not the pages joined by blank lines:\n got %q\nwant %q", doc.Text, got)
	}
}

func pageTexts(doc ingest.Document) map[int]string {
	m := map[int]string{}
	for _, s := range doc.Sections {
		m[s.Page] = doc.Text[s.Span.Start:s.Span.End]
	}
	return m
}

func newFpdf() *fpdf.Fpdf {
	f := fpdf.New("P", "mm", "A4", "")
	f.SetCreationDate(time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC))
	f.SetModificationDate(time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC))
	f.SetCatalogSort(true)
	f.SetProducer("kgforge tests", false)
	return f
}

func output(t testing.TB, f *fpdf.Fpdf) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// threePages draws text the ways generators do: one string per line, table
// cells side by side, a word written in two pieces, a justified paragraph
// (word spacing), a font change inside a line.
func threePages(t testing.TB) []byte {
	f := newFpdf()
	tr := f.UnicodeTranslatorFromDescriptor("")
	f.AddPage()
	f.SetFont("Helvetica", "B", 16)
	f.CellFormat(0, 10, "Supplier review", "", 1, "L", false, 0, "")
	f.SetFont("Helvetica", "", 11)
	f.CellFormat(50, 7, "Kestrel Alloys", "1", 0, "L", false, 0, "")
	f.CellFormat(60, 7, "6061 aluminium tubes", "1", 0, "L", false, 0, "")
	f.CellFormat(20, 7, "2019", "1", 1, "R", false, 0, "")
	f.CellFormat(50, 7, "Serra Components", "1", 0, "L", false, 0, "")
	f.CellFormat(60, 7, "hydraulic brakes", "1", 0, "L", false, 0, "")
	f.CellFormat(20, 7, "2021", "1", 1, "R", false, 0, "")
	f.AddPage()
	f.SetFont("Times", "", 12)
	f.Write(6, "The batch KA-")
	f.Write(6, "2291 came from Kes")
	f.Write(6, "trel Alloys in ")
	f.SetFont("Times", "B", 12)
	f.Write(6, "March")
	f.SetFont("Times", "", 12)
	f.Write(6, " 2025.")
	f.Ln(10)
	f.MultiCell(100, 6, tr("Frames are welded in Porto (Rua do Heroísmo) and every weld is checked twice before painting."), "", "J", false)
	f.AddPage()
	f.SetFont("Courier", "", 10)
	f.CellFormat(0, 6, "End of report.", "", 1, "L", false, 0, "")
	return output(t, f)
}

func TestRead_ThreePages(t *testing.T) {
	doc := mustRead(t, "review.pdf", threePages(t))
	if doc.Source.URI != "review.pdf" || doc.Source.Kind != kg.KindPDF {
		t.Errorf("source = %+v", doc.Source)
	}
	want := map[int]string{
		1: "Supplier review\nKestrel Alloys 6061 aluminium tubes 2019\nSerra Components hydraulic brakes 2021",
		2: "The batch KA-2291 came from Kestrel Alloys in March 2025.\n" +
			"Frames are welded in Porto (Rua do Heroísmo) and every\nweld is checked twice before painting.",
		3: "End of report.",
	}
	got := pageTexts(doc)
	if len(doc.Sections) != 3 {
		t.Fatalf("%d sections, want 3: %+v", len(doc.Sections), doc.Sections)
	}
	for page, w := range want {
		if got[page] != w {
			t.Errorf("page %d\n got %q\nwant %q", page, got[page], w)
		}
	}
}

func TestRead_PageWithoutTextHasNoSection(t *testing.T) {
	f := newFpdf()
	f.SetFont("Helvetica", "", 12)
	f.AddPage()
	f.Cell(40, 10, "First")
	f.AddPage()
	f.Rect(20, 20, 50, 50, "D") // a drawing, no text
	f.AddPage()
	f.Cell(40, 10, "Third")
	doc := mustRead(t, "gap.pdf", output(t, f))
	if len(doc.Sections) != 2 || doc.Sections[0].Page != 1 || doc.Sections[1].Page != 3 {
		t.Fatalf("sections = %+v, want pages 1 and 3", doc.Sections)
	}
	if doc.Text != "First\n\nThird" {
		t.Errorf("text = %q", doc.Text)
	}
}

// scanned draws only images, as a scanner's PDF does.
func scanned(t testing.TB, pages int) []byte {
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	for x := range 64 {
		img.SetGray(x, x%48, color.Gray{Y: 200})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	f := newFpdf()
	f.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	for range pages {
		f.AddPage()
		f.ImageOptions("scan", 10, 10, 190, 140, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
	return output(t, f)
}

func TestRead_ScannedIsRejected(t *testing.T) {
	for _, tc := range []struct {
		pages int
		want  string
	}{
		{2, "source scan.pdf: rejected: no text layer on any of its 2 pages (a scanned PDF; run OCR first)"},
		{1, "source scan.pdf: rejected: no text layer on its only page (a scanned PDF; run OCR first)"},
	} {
		_, err := read(t, "scan.pdf", scanned(t, tc.pages))
		if !errors.Is(err, kg.ErrRejected) || !errors.Is(err, ErrNoTextLayer) {
			t.Fatalf("%d pages: err = %v, want a rejection for no text layer", tc.pages, err)
		}
		if err.Error() != tc.want {
			t.Errorf("%d pages:\n got %q\nwant %q", tc.pages, err, tc.want)
		}
	}
}

func TestRead_CorruptIsRejected(t *testing.T) {
	good := threePages(t)
	rng := rand.New(rand.NewPCG(1, 2))
	random := []byte("%PDF-1.4\n")
	for range 4096 {
		random = append(random, byte(rng.UintN(256)))
	}
	flipped := bytes.Clone(good)
	num := bytes.LastIndex(flipped, []byte("startxref\n")) + len("startxref\n")
	for i := num; flipped[i] != '\n'; i++ {
		flipped[i] = '9' // an offset past the end
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)/2], "truncated or not a PDF"},
		{"truncated at the end", good[:len(good)-12], "truncated or not a PDF"},
		{"random after a header", random, "truncated or not a PDF"},
		{"random with an end", append(bytes.Clone(random), "\nstartxref\n9\n%%EOF\n"...), "corrupt PDF"},
		{"startxref points nowhere", flipped, "corrupt PDF"},
		{"empty", nil, "empty file"},
		{"not a PDF", []byte("hello, world\n%%EOF"), "not a PDF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, "bad.pdf", tc.data)
			if !errors.Is(err, kg.ErrRejected) {
				t.Fatalf("err = %v, want a rejection", err)
			}
			if !strings.HasPrefix(err.Error(), "source bad.pdf: rejected: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to name the source and say %q", err, tc.want)
			}
		})
	}
}

// handmade assembles a PDF from the bodies of its objects (object i+1 is
// objs[i]; object 1 must be the catalog), for structures fpdf does not
// write. extra goes into the trailer.
func handmade(header, extra string, objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, extra, xref)
	return b.Bytes()
}

// stream is a stream object: dict holds its entries other than Length.
func stream(dict, content string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(content), content)
}

const helveticaObj = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// onePage is a one-page PDF drawing content with font F1 (Helvetica,
// object 4); more objects follow as 6, 7, ….
func onePage(content, resources string, more ...string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> " + resources + " >> >>",
		helveticaObj,
		stream("", content),
	}
	return handmade("%PDF-1.4\n", "", append(objs, more...)...)
}

func TestRead_Layout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    string
	}{
		{
			"TJ kerning inside a word, a word gap between words",
			"BT /F1 12 Tf 72 700 Td [(Kes) 30 (trel) -300 (Al) -20 (loys)] TJ ET",
			"Kestrel Alloys",
		},
		{
			"runs drawn right to left and bottom to top",
			"BT /F1 12 Tf 1 0 0 1 72 680 Tm (second line) Tj ET " +
				"BT /F1 12 Tf 1 0 0 1 130 700 Tm (Report) Tj ET " +
				"BT /F1 12 Tf 1 0 0 1 72 700 Tm (Quality) Tj ET",
			"Quality Report\nsecond line",
		},
		{
			"one glyph per run",
			"BT /F1 10 Tf 1 0 0 1 72 700 Tm (K) Tj 6.67 0 Td (A) Tj 6.67 0 Td (-) Tj 3.33 0 Td (2) Tj 5.56 0 Td (9) Tj ET",
			"KA-29",
		},
		{
			"subscript on the same line",
			"BT /F1 12 Tf 72 700 Td (H) Tj /F1 8 Tf -3 Ts (2) Tj 0 Ts /F1 12 Tf (O cools) Tj ET",
			"H2O cools",
		},
		{
			"the quote operators and leading",
			"BT /F1 12 Tf 14 TL 72 700 Td (one) Tj (two) ' 1 0 (three) \" T* (four) Tj ET",
			"one\ntwo\nthree\nfour",
		},
		{
			"a page turned a quarter",
			"q 0 1 -1 0 612 0 cm BT /F1 12 Tf 72 300 Td (Landscape table) Tj 0 -14 Td (second row) Tj ET Q",
			"Landscape table\nsecond row",
		},
		{
			"text drawn twice for a fake bold",
			"BT /F1 12 Tf 72 700 Td (Bold) Tj ET BT /F1 12 Tf 72.3 700 Td (Bold) Tj ET BT /F1 12 Tf 102 700 Td (title) Tj ET",
			"Bold title",
		},
		{
			"white space and control characters",
			"BT /F1 12 Tf 72 700 Td (  a\\t\\tb\\001c   ) Tj ET",
			"a bc",
		},
		{
			"a font the page lacks, with bytes that are not UTF-8",
			"BT /F9 12 Tf 72 700 Td (caf\\351) Tj ET",
			"caf\uFFFD",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustRead(t, "layout.pdf", onePage(tc.content, ""))
			if doc.Text != tc.want {
				t.Errorf("text\n got %q\nwant %q", doc.Text, tc.want)
			}
		})
	}
}

func TestRead_FormXObjectText(t *testing.T) {
	form := stream("/Type /XObject /Subtype /Form /BBox [0 0 600 100] /Matrix [1 0 0 1 0 50] /Resources << /Font << /F2 4 0 R >> >>",
		"BT /F2 12 Tf 72 600 Td (Form text) Tj ET")
	doc := mustRead(t, "form.pdf", onePage("BT /F1 12 Tf 72 700 Td (Page text) Tj ET /X1 Do", "/XObject << /X1 6 0 R >>", form))
	if doc.Text != "Page text\nForm text" {
		t.Errorf("text = %q", doc.Text)
	}
}

func TestRead_RepairedEnds(t *testing.T) {
	base := onePage("BT /F1 12 Tf 72 700 Td (Hello) Tj ET", "")
	v2 := bytes.Clone(base)
	copy(v2, "%PDF-2.0")
	junk := append(bytes.Clone(base), bytes.Repeat([]byte{0}, 500)...)
	for name, data := range map[string][]byte{"PDF 2.0 header": v2, "bytes after %%EOF": junk} {
		if doc := mustRead(t, "x.pdf", data); doc.Text != "Hello" {
			t.Errorf("%s: text = %q", name, doc.Text)
		}
	}
}

func TestRead_EncryptedIsRejected(t *testing.T) {
	enc := "<< /Filter /Standard /V 1 /R 2 /O <" + strings.Repeat("a1", 32) + "> /U <" + strings.Repeat("b2", 32) + "> /P -4 >>"
	data := handmade("%PDF-1.4\n", "/Encrypt 6 0 R /ID [<"+strings.Repeat("c3", 16)+"> <"+strings.Repeat("c3", 16)+">]",
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>",
		helveticaObj,
		stream("", "BT ET"),
		enc,
	)
	_, err := read(t, "secret.pdf", data)
	if !errors.Is(err, kg.ErrRejected) || !errors.Is(err, ErrEncrypted) {
		t.Fatalf("err = %v, want a rejection for encryption", err)
	}
	if want := "source secret.pdf: rejected: encrypted with a password"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start %q", err, want)
	}
}

func TestRead_PageTreeBounds(t *testing.T) {
	page := "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>"
	content := stream("", "BT ET")
	kids := strings.Repeat("3 0 R ", MaxPages+1)
	for _, tc := range []struct {
		name  string
		pages string
		want  string
	}{
		{"count over the limit", "<< /Type /Pages /Kids [3 0 R] /Count 10001 >>", "10001 pages is over the limit of 10000"},
		{"kids over the limit", "<< /Type /Pages /Kids [" + kids + "] /Count 1 >>", "more than 10000 pages"},
		{"kids that hold their parent", "<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1 >>", "page tree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := handmade("%PDF-1.4\n", "", "<< /Type /Catalog /Pages 2 0 R >>", tc.pages, page, content)
			_, err := read(t, "big.pdf", data)
			if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a rejection saying %q", err, tc.want)
			}
		})
	}
}

func TestRead_DecompressionBombIsRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 64 MiB")
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if _, err := zw.Write(bytes.Repeat([]byte("1 "), (maxStreamBytes+2)/2)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := fmt.Sprintf("<< /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", z.Len(), z.Bytes())
	data := handmade("%PDF-1.4\n", "",
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		bomb)
	_, err := read(t, "bomb.pdf", data)
	if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "page 1: a content stream expands past") {
		t.Fatalf("err = %v, want a rejection for the bomb", err)
	}
}

func TestRead_ContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := reader{}.Read(ctx, kg.Source{URI: "review.pdf"}, threePages(t), ingest.Options{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, kg.ErrRejected) {
		t.Fatalf("err = %v, want the context's error and no rejection", err)
	}
}

func TestRead_TextLimit(t *testing.T) {
	opt := ingest.Options{Limits: ingest.Limits{MaxTextBytes: 40}}
	_, err := reader{}.Read(context.Background(), kg.Source{URI: "review.pdf"}, threePages(t), opt)
	if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "limit of 40 bytes") {
		t.Fatalf("err = %v, want a rejection for the text limit", err)
	}
}

// qualityReport is testdata/corpus/quality-report.pdf: Velora Cycles' frame
// quality report for 2025, two pages.
func qualityReport(t testing.TB) []byte {
	f := newFpdf()
	f.SetTitle("Velora Cycles - Frame Quality Report 2025", false)
	f.SetAuthor("Velora Cycles Quality Office", false)
	tr := f.UnicodeTranslatorFromDescriptor("")
	heading := func(s string) {
		f.Ln(4)
		f.SetFont("Helvetica", "B", 13)
		f.CellFormat(0, 8, tr(s), "", 1, "L", false, 0, "")
		f.SetFont("Helvetica", "", 11)
	}
	para := func(s string) { f.MultiCell(0, 5.5, tr(s), "", "L", false); f.Ln(2) }
	row := func(a, b, c string, style string) {
		f.SetFont("Helvetica", style, 10)
		f.CellFormat(55, 7, tr(a), "1", 0, "L", false, 0, "")
		f.CellFormat(75, 7, tr(b), "1", 0, "L", false, 0, "")
		f.CellFormat(40, 7, tr(c), "1", 1, "L", false, 0, "")
	}

	f.AddPage()
	f.SetFont("Helvetica", "B", 18)
	f.CellFormat(0, 10, "Velora Cycles", "", 1, "L", false, 0, "")
	f.SetFont("Helvetica", "", 14)
	f.CellFormat(0, 8, "Frame Quality Report 2025", "", 1, "L", false, 0, "")
	f.SetFont("Helvetica", "", 11)
	f.Ln(2)
	para("Velora Cycles is a bicycle maker in Porto, Portugal. Its Porto plant welds and assembles the " +
		"aluminium frames of the Trail 500. This report covers the quality of the frames built in 2025.")
	heading("Suppliers")
	row("Supplier", "Supplies", "Since", "B")
	row("Kestrel Alloys", "6061 aluminium tubes", "2019", "")
	row("Serra Components", "hydraulic disc brakes", "2021", "")
	f.SetFont("Helvetica", "", 11)
	f.Ln(3)
	para("Kestrel Alloys supplies the 6061 aluminium tubes of the Aluminium frame TR5. " +
		"Serra Components supplies the hydraulic brakes fitted to the Trail 500.")
	heading("Results")
	para("99.2% of the frames passed the final inspection at the first attempt; the rest were repaired " +
		"or scrapped before painting.")

	f.AddPage()
	heading("Incident: cracked frames, March 2025")
	para("In March 2025 riders reported cracked frames on Trail 500 bicycles. The cracks started at the " +
		"head tube weld.")
	para("The investigation traced the cracked frames to batch KA-2291 of tubes from Kestrel Alloys. " +
		"The head tube joints of that batch showed weld porosity.")
	para("Actions: batch KA-2291 was put on quality hold and reworked, the cracked frames were replaced under " +
		"warranty, and Kestrel Alloys has been on supplier probation since March 2025.")
	heading("Sign-off")
	para("Approved by Ana Ferreira, Head of Quality, Velora Cycles.")
	return output(t, f)
}

// TestCorpus_QualityReport keeps testdata/corpus/quality-report.pdf the
// file qualityReport makes (go test ./ingest/pdf -run TestCorpus -update
// writes it) and checks what the reader gets out of it.
func TestCorpus_QualityReport(t *testing.T) {
	data := qualityReport(t)
	if *update {
		if err := os.MkdirAll(filepath.Dir(corpusFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(corpusFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatalf("%v (run go test ./ingest/pdf -run TestCorpus -update)", err)
	}
	if !bytes.Equal(stored, data) {
		t.Errorf("%s differs from what qualityReport makes (run go test ./ingest/pdf -run TestCorpus -update)", corpusFile)
	}
	doc := mustRead(t, "quality-report.pdf", stored)
	pages := pageTexts(doc)
	if len(doc.Sections) != 2 {
		t.Fatalf("%d sections, want 2", len(doc.Sections))
	}
	if !strings.HasPrefix(pages[1], "Velora Cycles\nFrame Quality Report 2025\n") ||
		!strings.Contains(pages[1], "\nKestrel Alloys 6061 aluminium tubes 2019\nSerra Components hydraulic disc brakes 2021\n") ||
		!strings.HasPrefix(pages[2], "Incident: cracked frames, March 2025\n") {
		t.Errorf("title, table rows or heading are not lines of their own:\n%s\n\n%s", pages[1], pages[2])
	}
	for page, facts := range map[int][]string{
		1: {
			"Velora Cycles is a bicycle maker in Porto, Portugal.",
			"Kestrel Alloys supplies the 6061 aluminium tubes",
			"Serra Components supplies the hydraulic brakes",
		},
		2: {
			"In March 2025 riders reported cracked frames",
			"traced the cracked frames to batch KA-2291 of tubes from Kestrel Alloys",
		},
	} {
		flat := strings.ReplaceAll(pages[page], "\n", " ")
		for _, fact := range facts {
			if !strings.Contains(flat, fact) {
				t.Errorf("page %d lacks %q:\n%s", page, fact, pages[page])
			}
		}
	}
}

// BenchmarkRead reads a 100-page report of dense text.
func BenchmarkRead(b *testing.B) {
	f := newFpdf()
	f.SetFont("Helvetica", "", 10)
	line := "Kestrel Alloys supplies the 6061 aluminium tubes; batch KA-2291 was traced in March 2025. "
	for range 100 {
		f.AddPage()
		f.MultiCell(0, 5, strings.Repeat(line, 40), "", "J", false)
	}
	data := output(b, f)
	src := kg.Source{URI: "bench.pdf"}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := (reader{}).Read(context.Background(), src, data, ingest.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzPDF(f *testing.F) {
	f.Add(threePages(f))
	f.Add(scanned(f, 1))
	f.Add(qualityReport(f))
	f.Add(onePage("BT /F1 12 Tf 72 700 Td [(Kes) 30 (trel) -300 (Alloys)] TJ ET", ""))
	f.Add(onePage("q 0 1 -1 0 612 0 cm BT /F1 12 Tf 72 300 Td (turned) Tj ET Q /X1 Do", "/XObject << /X1 6 0 R >>",
		stream("/Subtype /Form /Resources << /Font << /F2 4 0 R >> >>", "BT /F2 9 Tf 1 2 Td (form) Tj ET /X1 Do")))
	f.Add(handmade("%PDF-1.4\n", "", "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", stream("", "BT ET")))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPanicOrigin(t, data)
		doc, err := reader{}.Read(context.Background(), kg.Source{URI: "fuzz.pdf"}, data, ingest.Options{})
		if err != nil {
			if !errors.Is(err, kg.ErrRejected) || !strings.HasPrefix(err.Error(), "source fuzz.pdf: rejected: ") {
				t.Fatalf("err = %v, want a rejection that names the source", err)
			}
			return
		}
		checkDocument(t, doc)
	})
}

// checkPanicOrigin reads data without Read's recover and fails if a panic
// starts in this package's code: Read turns every panic into a rejection,
// which is right for the parser's panics and would hide a bug of ours.
func checkPanicOrigin(t *testing.T, data []byte) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if _, ok := p.(abort); ok {
			return
		}
		stack := string(debug.Stack())
		if origin := panicOrigin(stack); strings.HasPrefix(origin, "kgforge/ingest/pdf.") {
			t.Fatalf("panic in our code at %s: %v\n%s", origin, p, stack)
		}
	}()
	_, _, _ = extract(context.Background(), data, ingest.DefaultLimits.MaxTextBytes)
}

// panicOrigin returns the function that panicked: the first frame after
// the runtime's own frames that follow panic(…).
func panicOrigin(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") {
			continue
		}
		for j := i + 2; j < len(lines); j += 2 {
			if !strings.HasPrefix(lines[j], "runtime.") {
				return lines[j]
			}
		}
	}
	return ""
}
