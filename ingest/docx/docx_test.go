package docx_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"kgforge/ingest"
	_ "kgforge/ingest/docx"
	"kgforge/kg"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/handbook.docx")

const corpusFile = "../../testdata/corpus/handbook.docx"

// section is a section as the tests state it: its path and its text.
type section struct{ path, text string }

func read(ctx context.Context, data []byte, lim ingest.Limits) (ingest.Document, error) {
	src := kg.Source{ID: "s1", URI: "handbook/staff.docx", Kind: kg.KindDOCX}
	return ingest.ReadDocument(ctx, src, data, ingest.Options{Limits: lim})
}

// checkDocument checks what every document must be: non-empty text and
// sections that are contiguous, ordered, non-empty and cover the text.
func checkDocument(t testing.TB, d ingest.Document) {
	t.Helper()
	if d.Text == "" || !utf8.ValidString(d.Text) {
		t.Fatalf("text %q is empty or not UTF-8", d.Text)
	}
	if d.Verbatim {
		t.Error("Verbatim = true, want false: the text is extracted")
	}
	end := 0
	for i, s := range d.Sections {
		if s.Span.Start != end || s.Span.End <= s.Span.Start || s.Span.End > len(d.Text) {
			t.Fatalf("section %d %q spans %+v after %d in text of %d bytes", i, s.Path, s.Span, end, len(d.Text))
		}
		end = s.Span.End
	}
	if end != len(d.Text) {
		t.Fatalf("sections end at %d, text at %d", end, len(d.Text))
	}
}

func sectionsOf(d ingest.Document) []section {
	var out []section
	for _, s := range d.Sections {
		out = append(out, section{s.Path, d.Text[s.Span.Start:s.Span.End]})
	}
	return out
}

// part is one file of a zip container.
type part struct{ name, body string }

// container zips parts the way Word does (deflated, with a fixed time, so
// that the corpus file is the same on every -update).
func container(t testing.TB, parts ...part) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, p.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
</Types>`

const packageRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`

const documentRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
</Relationships>`

const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
	`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ` +
	`xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" mc:Ignorable="wps"`

// documentXML wraps body in word/document.xml's envelope.
func documentXML(body string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:document ` + ns + `><w:body>` + body +
		`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`
}

// stylesXML wraps style definitions in word/styles.xml's envelope.
func stylesXML(styles string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:styles ` + ns + `>` + styles + `</w:styles>`
}

// docx returns a DOCX file whose body is body, with extra parts.
func docx(t testing.TB, body string, extra ...part) []byte {
	t.Helper()
	return container(t, append([]part{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", packageRels},
		{"word/document.xml", documentXML(body)},
	}, extra...)...)
}

// p returns a paragraph of style (none when empty) with one run of text.
func p(style, text string) string {
	var props string
	if style != "" {
		props = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + props + `<w:r><w:t xml:space="preserve">` + escape(text) + `</w:t></w:r></w:p>`
}

// li returns a paragraph that is an item of list 1.
func li(text string) string {
	return `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>` +
		`<w:r><w:t>` + escape(text) + `</w:t></w:r></w:p>`
}

// tbl returns a table; each row is a list of cells, each cell one
// paragraph (a cell given as raw XML, starting with "<", is kept as it is).
func tbl(rows ...[]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>`)
	for _, r := range rows {
		b.WriteString(`<w:tr>`)
		for _, c := range r {
			b.WriteString(`<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>`)
			if strings.HasPrefix(c, "<") {
				b.WriteString(c)
			} else {
				b.WriteString(p("", c))
			}
			b.WriteString(`</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	return b.String()
}

func escape(s string) string {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}

func TestReader_Read(t *testing.T) {
	localStyles := part{"word/styles.xml", stylesXML(
		`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Ttulo"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Ttulo1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Ttulo2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Fornecedor"><w:name w:val="Fornecedor"/><w:basedOn w:val="Ttulo2"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Nota"><w:name w:val="Nota"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="Body Heading Lookalike"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="TOCHeading"><w:name w:val="TOC Heading"/><w:basedOn w:val="Ttulo1"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>` +
			`<w:style w:type="character" w:styleId="Ttulo1Char"><w:name w:val="heading 1 Char"/></w:style>`,
	)}
	tests := []struct {
		name     string
		body     string
		extra    []part
		document string    // word/document.xml as it is, instead of body and extra
		want     string    // the whole text
		sections []section // when set, the sections
	}{{
		name: "heading styles by id",
		body: p("Title", "Velora Cycles Handbook") + p("", "Intro.") + p("Heading1", "Suppliers") + p("", "Two of them.") +
			p("heading2", "Kestrel Alloys") + p("", "Tubes.") + p("HEADING4", "Deep") + p("", "x") +
			p("Heading1", "Workshop") + p("", "Porto."),
		want: "Velora Cycles Handbook\n\nIntro.\n\nSuppliers\n\nTwo of them.\n\nKestrel Alloys\n\nTubes.\n\nDeep\n\nx\n\nWorkshop\n\nPorto.\n",
		sections: []section{
			{"Velora Cycles Handbook", "Velora Cycles Handbook\n\nIntro.\n\n"},
			{"Velora Cycles Handbook > Suppliers", "Suppliers\n\nTwo of them.\n\n"},
			{"Velora Cycles Handbook > Suppliers > Kestrel Alloys", "Kestrel Alloys\n\nTubes.\n\n"},
			{"Velora Cycles Handbook > Suppliers > Kestrel Alloys > Deep", "Deep\n\nx\n\n"},
			{"Velora Cycles Handbook > Workshop", "Workshop\n\nPorto.\n"},
		},
	}, {
		name:     "text before the first heading",
		body:     p("", "Preface.") + p("Heading2", "Later") + p("", "y"),
		want:     "Preface.\n\nLater\n\ny\n",
		sections: []section{{"", "Preface.\n\n"}, {"Later", "Later\n\ny\n"}},
	}, {
		name: "heading styles from styles.xml in another language",
		body: p("Ttulo", "Manual") + p("Ttulo1", "Fornecedores") + p("Fornecedor", "Serra Components") + p("", "Travões.") +
			p("Nota", "Nota") + p("Heading1", "Not a heading") + p("TOCHeading", "Índice") + p("Ttulo1Char", "Unknown id"),
		extra: []part{localStyles},
		want:  "Manual\n\nFornecedores\n\nSerra Components\n\nTravões.\n\nNota\n\nNot a heading\n\nÍndice\n\nUnknown id\n",
		sections: []section{
			{"Manual", "Manual\n\n"},
			{"Manual > Fornecedores", "Fornecedores\n\n"},
			{"Manual > Fornecedores > Serra Components", "Serra Components\n\nTravões.\n\n"},
			{"Manual > Fornecedores > Serra Components > Nota", "Nota\n\nNot a heading\n\nÍndice\n\nUnknown id\n"},
		},
	}, {
		name: "outline level on the paragraph",
		body: `<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Top</w:t></w:r></w:p>` +
			`<w:p><w:pPr><w:pStyle w:val="Heading2"/><w:outlineLvl w:val="9"/></w:pPr><w:r><w:t>Body text</w:t></w:r></w:p>`,
		want:     "Top\n\nBody text\n",
		sections: []section{{"Top", "Top\n\nBody text\n"}},
	}, {
		name: "runs, tabs, breaks and hyphens",
		body: `<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>` +
			`<w:r><w:rPr><w:b/></w:rPr><w:t>Vel</w:t></w:r><w:r><w:t>ora</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve">Cycles </w:t></w:r>` +
			`<w:hyperlink r:id="rId9" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:r><w:t>Porto</w:t></w:r></w:hyperlink>` +
			`<w:r><w:br/><w:t>Line</w:t><w:noBreakHyphen/><w:t>two &amp; &lt;three&gt;</w:t></w:r></w:p>`,
		want: "Velora\tCycles Porto\nLine-two & <three>\n",
	}, {
		name: "tracked changes, fields and fallbacks",
		body: `<w:p><w:r><w:t xml:space="preserve">Brakes from </w:t></w:r>` +
			`<w:del w:id="1" w:author="A"><w:r><w:delText>Shimano</w:delText></w:r></w:del>` +
			`<w:ins w:id="2" w:author="A"><w:r><w:t>Serra</w:t></w:r></w:ins>` +
			`<w:moveFrom w:id="3" w:author="A"><w:r><w:t>moved away</w:t></w:r></w:moveFrom>` +
			`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>` +
			`<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t xml:space="preserve"> (page 3)</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>` +
			`<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent>` + p("", "In the box.") +
			`</w:txbxContent></wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict>` + p("", "In the box.") + `</w:pict></mc:Fallback></mc:AlternateContent></w:r>` +
			`</w:p><w:p><w:pPr><w:pStyle w:val="Normal"/><w:pPrChange w:id="4" w:author="A"><w:pPr><w:pStyle w:val="Heading1"/></w:pPr></w:pPrChange></w:pPr><w:r><w:t>Once a heading</w:t></w:r></w:p>`,
		want:     "In the box.\n\nBrakes from Serra (page 3)\n\nOnce a heading\n",
		sections: []section{{"", "In the box.\n\nBrakes from Serra (page 3)\n\nOnce a heading\n"}},
	}, {
		name: "lists and empty paragraphs",
		body: p("", "Before.") + `<w:p/>` + p("", "  ") + li("Tubes") + li("Brakes") + p("", "After.") + li("Gloves"),
		want: "Before.\n\nTubes\nBrakes\n\nAfter.\n\nGloves\n",
	}, {
		name: "tables whole in their heading's section",
		body: p("Heading1", "Suppliers") + p("", "Main ones:") +
			tbl([]string{"Supplier", "Part"}, []string{"Kestrel Alloys", "Aluminium tubes. Drawn"}, []string{"", ""},
				[]string{p("", "Serra") + p("", "Components"), p("Heading2", "Disc brakes") + `<w:p><w:r><w:t>and</w:t><w:br/><w:t>levers</w:t></w:r></w:p>`},
				[]string{"Nested", tbl([]string{"a", "b"}, []string{"c", "d"})}) +
			p("", "After."),
		want:     "Suppliers\n\nMain ones:\n\nSupplier | Part\nKestrel Alloys | Aluminium tubes. Drawn\nSerra Components | Disc brakes and levers\nNested | a | b; c | d\n\nAfter.\n",
		sections: []section{{"Suppliers", "Suppliers\n\nMain ones:\n\nSupplier | Part\nKestrel Alloys | Aluminium tubes. Drawn\nSerra Components | Disc brakes and levers\nNested | a | b; c | d\n\nAfter.\n"}},
	}, {
		name:     "strict namespace",
		document: `<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body><w:p><w:r><w:t>Strict text</w:t></w:r></w:p></w:body></w:document>`,
		want:     "Strict text\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := docx(t, tt.body, tt.extra...)
			if tt.document != "" {
				data = stored(t, tt.document)
			}
			d, err := read(context.Background(), data, ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, d)
			if d.Text != tt.want {
				t.Errorf("text =\n%q\nwant\n%q", d.Text, tt.want)
			}
			if tt.sections != nil {
				got := sectionsOf(d)
				if len(got) != len(tt.sections) {
					t.Fatalf("sections = %q, want %q", got, tt.sections)
				}
				for i := range got {
					if got[i] != tt.sections[i] {
						t.Errorf("section %d = %q, want %q", i, got[i], tt.sections[i])
					}
				}
			}
			if d.Source.URI != "handbook/staff.docx" {
				t.Errorf("source = %+v", d.Source)
			}
		})
	}
}

func TestReader_ReadRejects(t *testing.T) {
	good := docx(t, p("", "Hello."))
	tests := []struct {
		name string
		data []byte
		lim  ingest.Limits
		want string // in the message
	}{
		{"empty", nil, ingest.Limits{}, "empty file"},
		{"not a zip", []byte("Velora Cycles handbook, plain text"), ingest.Limits{}, "corrupt DOCX: not a zip container"},
		{"truncated zip", good[:len(good)/2], ingest.Limits{}, "corrupt DOCX: not a zip container"},
		{"no document part", container(t, part{"[Content_Types].xml", contentTypes}, part{"word/styles.xml", stylesXML("")}), ingest.Limits{}, "no word/document.xml in the container"},
		{"malformed XML", container(t, part{"word/document.xml", `<w:document ` + ns + `><w:body><w:p><w:r><w:t>open`}), ingest.Limits{}, "corrupt DOCX: word/document.xml: malformed XML"},
		{"mismatched tags", container(t, part{"word/document.xml", `<w:document ` + ns + `><w:body><w:p></w:r></w:body></w:document>`}), ingest.Limits{}, "malformed XML"},
		{"not XML", container(t, part{"word/document.xml", "just words"}), ingest.Limits{}, "word/document.xml: no XML element"},
		{"another root", container(t, part{"word/document.xml", `<w:styles ` + ns + `/>`}), ingest.Limits{}, "root element is styles"},
		{"malformed styles", docx(t, p("", "x"), part{"word/styles.xml", "<w:styles " + ns + "><w:style>"}), ingest.Limits{}, "corrupt DOCX: word/styles.xml: malformed XML"},
		{"no text", docx(t, `<w:p/>`+p("", " \t ")+tbl([]string{"", ""})+`<w:p><w:r><w:delText>gone</w:delText></w:r></w:p>`), ingest.Limits{}, "no text in the document"},
		{"over the unzipped limit", docx(t, p("", strings.Repeat("Velora ", 20_000))), ingest.Limits{MaxUnzipped: 64 << 10}, "zip container expands to more than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(context.Background(), tt.data, tt.lim)
			checkRejected(t, err, tt.want)
		})
	}
}

func checkRejected(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(err, kg.ErrRejected) {
		t.Errorf("error %v does not wrap kg.ErrRejected", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "source handbook/staff.docx: rejected: ") || !strings.Contains(msg, want) {
		t.Errorf("error = %q, want it to name the source and say %q", msg, want)
	}
}

// allocated returns how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReader_ReadRefusesZipBomb(t *testing.T) {
	// 200 MB of zeros deflates to about 200 KB: a ratio of 1000.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(w, zeros{}, 200<<20); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := buf.Bytes()
	var readErr error
	n := allocated(func() { _, readErr = read(context.Background(), bomb, ingest.Limits{}) })
	checkRejected(t, readErr, "zip entry word/document.xml expands")
	if n > 16<<20 {
		t.Errorf("refusing the bomb allocated %d bytes; it should not expand it", n)
	}
}

func TestReader_ReadRefusesLyingHeader(t *testing.T) {
	// The header says 1,000 bytes; the entry holds 50 MB. CheckZip trusts
	// the header, the bounded read must not.
	var comp bytes.Buffer
	fw, err := flate.NewWriter(&comp, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	body := io.MultiReader(strings.NewReader(documentXML(p("", "Velora"))[:200]), io.LimitReader(zeros{}, 50<<20))
	if _, err := io.Copy(fw, body); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{
		Name: "word/document.xml", Method: zip.Deflate,
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: 1000, CRC32: crc32.ChecksumIEEE(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(comp.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	liar := buf.Bytes()
	var readErr error
	n := allocated(func() { _, readErr = read(context.Background(), liar, ingest.Limits{}) })
	checkRejected(t, readErr, "zip entry word/document.xml: zip: not a valid zip file")
	if n > 16<<20 {
		t.Errorf("refusing the entry allocated %d bytes; the read should stop at its declared size", n)
	}
}

func TestReader_ReadStopsWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := docx(t, strings.Repeat(p("", "Velora builds bicycles."), 20_000))
	_, err := read(ctx, data, ingest.Limits{MaxRatio: 10_000})
	if !errors.Is(err, context.Canceled) || errors.Is(err, kg.ErrRejected) {
		t.Errorf("error = %v, want context.Canceled and not a reject", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// handbook is testdata/corpus/handbook.docx: Velora Cycles' staff handbook,
// with the parts Word writes for styles and lists.
func handbook(t testing.TB) []byte {
	styles := stylesXML(
		`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr></w:rPrDefault></w:docDefaults>` +
			`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:rPr><w:sz w:val="56"/></w:rPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="120"/><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/><w:sz w:val="26"/></w:rPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720"/></w:pPr></w:style>` +
			`<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4"/><w:bottom w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/><w:insideV w:val="single" w:sz="4"/></w:tblBorders></w:tblPr></w:style>`,
	)
	numbering := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:numbering ` + ns + `><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>` +
		`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`
	body := p("Title", "Velora Cycles Staff Handbook") +
		p("", "This handbook is for everyone who works at Velora Cycles, Lda., the bicycle maker on Rua do Almada in Porto. Read it in your first week and keep it at hand.") +
		p("Heading1", "Who we are") +
		p("", "Velora Cycles designs and builds city and touring bicycles. Every frame is welded and finished in the Porto workshop, which opened in 2012.") +
		p("Heading1", "Our suppliers") +
		p("", "Two suppliers provide the parts that matter most to our frames and our riders' safety.") +
		p("Heading2", "Kestrel Alloys") +
		p("", "Kestrel Alloys, in Aveiro, supplies the 6061 aluminium tubes for every frame. Orders go out on the first Monday of each month.") +
		p("Heading2", "Serra Components") +
		p("", "Serra Components, in Braga, supplies the hydraulic disc brakes. Each brake set arrives bled and is checked again before fitting.") +
		tbl([]string{"Supplier", "City", "Part", "Contact"},
			[]string{"Kestrel Alloys", "Aveiro", "Aluminium tubes", "orders@kestrel-alloys.example"},
			[]string{"Serra Components", "Braga", "Hydraulic disc brakes", "trade@serra-components.example"}) +
		p("Heading1", "Workshop safety") +
		p("", "Before you start a shift:") +
		li("Wear safety glasses at the welding and cutting stations.") +
		li("Check the extraction fan is running before you weld.") +
		li("Report any damaged tube from Kestrel Alloys to the quality lead; do not weld it.") +
		p("Heading2", "Brakes") +
		p("", "Only trained staff bleed or adjust Serra brakes. Torque the calliper bolts to 6 Nm and test every bicycle on the ramp before it leaves the workshop.")
	return container(t,
		part{"[Content_Types].xml", contentTypes},
		part{"_rels/.rels", packageRels},
		part{"word/_rels/document.xml.rels", documentRels},
		part{"word/document.xml", documentXML(body)},
		part{"word/styles.xml", styles},
		part{"word/numbering.xml", numbering},
	)
}

func TestReader_ReadCorpusHandbook(t *testing.T) {
	if *update {
		if err := os.WriteFile(corpusFile, handbook(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatalf("%v (go test ./ingest/docx -run Corpus -update writes it)", err)
	}
	d, err := read(context.Background(), data, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	var paths []string
	for _, s := range d.Sections {
		paths = append(paths, s.Path)
	}
	const title = "Velora Cycles Staff Handbook"
	wantPaths := []string{
		title,
		title + " > Who we are",
		title + " > Our suppliers",
		title + " > Our suppliers > Kestrel Alloys",
		title + " > Our suppliers > Serra Components",
		title + " > Workshop safety",
		title + " > Workshop safety > Brakes",
	}
	if strings.Join(paths, "\n") != strings.Join(wantPaths, "\n") {
		t.Errorf("paths = %q, want %q", paths, wantPaths)
	}
	serra := sectionsOf(d)[4].text
	wantTable := "Supplier | City | Part | Contact\n" +
		"Kestrel Alloys | Aveiro | Aluminium tubes | orders@kestrel-alloys.example\n" +
		"Serra Components | Braga | Hydraulic disc brakes | trade@serra-components.example\n\n"
	if !strings.HasSuffix(serra, wantTable) {
		t.Errorf("Serra Components section does not end with the table whole:\n%s", serra)
	}
	safety := sectionsOf(d)[5].text
	if !strings.Contains(safety, "shift:\n\nWear safety glasses at the welding and cutting stations.\nCheck the extraction fan") {
		t.Errorf("the safety list is not one item a line:\n%s", safety)
	}
	// The committed file is what handbook builds (go test -update rewrites it).
	fresh, err := read(context.Background(), handbook(t), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Text != d.Text {
		t.Errorf("%s is out of date: run go test ./ingest/docx -run Corpus -update", corpusFile)
	}
}

func FuzzDOCX(f *testing.F) {
	f.Add(documentXML(p("Title", "T") + p("Heading1", "A") + p("", "x") + li("y") + tbl([]string{"1", "2"})))
	f.Add(documentXML(`<w:p><w:pPr><w:outlineLvl w:val="3"/></w:pPr><w:r><w:t>H</w:t><w:tab/><w:br/></w:r></w:p>`))
	f.Add(documentXML(tbl([]string{p("Heading2", "in cell"), tbl([]string{"n"})})))
	f.Add(`<w:document ` + ns + `><w:body><w:p><w:r><w:t>open`)
	f.Fuzz(func(t *testing.T, document string) {
		// Stored, not deflated: compress/flate is too slow under the
		// fuzzer's instrumentation.
		data := stored(t, document)
		d, err := read(context.Background(), data, ingest.Limits{})
		if err != nil {
			if !errors.Is(err, kg.ErrRejected) {
				t.Fatalf("error %v does not wrap kg.ErrRejected", err)
			}
			return
		}
		checkDocument(t, d)
		if strings.TrimSpace(d.Text) == "" {
			t.Fatalf("text %q is blank", d.Text)
		}
	})
}

// stored returns a container of one stored (uncompressed) word/document.xml.
func stored(t testing.TB, document string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, document); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
