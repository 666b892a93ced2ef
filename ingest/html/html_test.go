package html_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"kgforge/ingest"
	_ "kgforge/ingest/html"
	"kgforge/kg"
)

// section is a section as the tests state it: its path and its text.
type section struct{ path, text string }

func read(data []byte) (ingest.Document, error) {
	src := kg.Source{ID: "s1", URI: "site/about.html", Kind: kg.KindHTML}
	return ingest.ReadDocument(context.Background(), src, data, ingest.Options{})
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
	if len(d.Sections) == 0 {
		t.Fatal("no sections")
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

func TestReader_Read(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     string    // the whole text
		sections []section // when set, the sections
	}{{
		name: "heading paths",
		in: `<p>Intro.</p><h1>Velora</h1><p>Porto.</p><h2>Suppliers</h2><p>Two.</p>` +
			`<h3>Kestrel</h3><p>Tubes.</p><h2>Bikes</h2><p>City.</p><h1>Other</h1><p>End.</p>`,
		want: "Intro.\n\nVelora\n\nPorto.\n\nSuppliers\n\nTwo.\n\nKestrel\n\nTubes.\n\nBikes\n\nCity.\n\nOther\n\nEnd.\n",
		sections: []section{
			{"", "Intro.\n\n"},
			{"Velora", "Velora\n\nPorto.\n\n"},
			{"Velora > Suppliers", "Suppliers\n\nTwo.\n\n"},
			{"Velora > Suppliers > Kestrel", "Kestrel\n\nTubes.\n\n"},
			{"Velora > Bikes", "Bikes\n\nCity.\n\n"},
			{"Other", "Other\n\nEnd.\n"},
		},
	}, {
		name:     "skipped heading level",
		in:       `<h1>A</h1><h3>C</h3><p>x</p><h2>B</h2><p>y</p>`,
		want:     "A\n\nC\n\nx\n\nB\n\ny\n",
		sections: []section{{"A", "A\n\n"}, {"A > C", "C\n\nx\n\n"}, {"A > B", "B\n\ny\n"}},
	}, {
		name:     "heading with markup and an empty heading",
		in:       `<h1>  Velora <em>Cycles</em><a aria-hidden="true" href="#x">#</a></h1><h2> </h2><p>Text.</p>`,
		want:     "Velora Cycles\n\nText.\n",
		sections: []section{{"Velora Cycles", "Velora Cycles\n\nText.\n"}},
	}, {
		name: "scripts, styles and navigation removed",
		in: `<html><head><title>T</title><style>p{}</style><script>var a = "<p>no</p>";</script></head><body>` +
			`<nav><a>Home</a></nav><div role="navigation">Menu</div><header>Site banner</header>` +
			`<p>Kept one.<script>alert(1)</script></p><noscript>Enable JS</noscript><template><p>tpl</p></template>` +
			`<form><label>Email</label><button>Send</button></form><iframe src="x">frame</iframe>` +
			`<svg><text>chart</text></svg><aside>Ad</aside><p hidden>Hidden</p><p aria-hidden="true">Aria</p>` +
			`<p aria-hidden="false">Kept two.</p><div style="display: none">Styled</div><footer>Copyright</footer></body></html>`,
		want: "Kept one.\n\nKept two.\n",
	}, {
		name: "main preferred",
		in:   `<body><div>Site chrome</div><main><h1>About</h1><p>Body text.</p></main><div>More chrome</div></body>`,
		want: "About\n\nBody text.\n",
	}, {
		name: "articles when there is no main",
		in:   `<body><div>Chrome</div><article><p>One.</p><article><p>Nested.</p></article></article><div>x</div><article><p>Two.</p></article></body>`,
		want: "One.\n\nNested.\n\nTwo.\n",
	}, {
		name: "empty main falls back to the body",
		in:   `<body><main><script>x()</script></main><p>Only text.</p></body>`,
		want: "Only text.\n",
	}, {
		name: "header inside an article kept, page header dropped",
		in:   `<body><header>Logo</header><article><header><h1>Post</h1><p>By Ana</p></header><p>Text.</p><footer>Tags: bikes</footer></article></body>`,
		want: "Post\n\nBy Ana\n\nText.\n\nTags: bikes\n",
	}, {
		name: "table whole in its heading's section",
		in: `<h2>Suppliers</h2><table><caption>Main suppliers</caption><thead><tr><th>Name</th><th>Part</th></tr></thead>` +
			`<tbody><tr><td>Kestrel Alloys</td><td>Tubes. Aluminium</td></tr><tr><td> </td><td></td></tr>` +
			`<tr><td>Serra <b>Components</b></td><td><p>Brakes</p><p>and levers</p></td></tr></tbody></table><p>After.</p>`,
		want:     "Suppliers\n\nMain suppliers\nName | Part\nKestrel Alloys | Tubes. Aluminium\nSerra Components | Brakes and levers\n\nAfter.\n",
		sections: []section{{"Suppliers", "Suppliers\n\nMain suppliers\nName | Part\nKestrel Alloys | Tubes. Aluminium\nSerra Components | Brakes and levers\n\nAfter.\n"}},
	}, {
		name:     "layout table read as blocks",
		in:       `<table><tr><td><h1>Velora</h1><p>Porto.</p></td><td><h2>News</h2><p>New bike.</p></td></tr></table>`,
		want:     "Velora\n\nPorto.\n\nNews\n\nNew bike.\n",
		sections: []section{{"Velora", "Velora\n\nPorto.\n\n"}, {"Velora > News", "News\n\nNew bike.\n"}},
	}, {
		name: "character references decoded",
		in:   `<p>Kestrel &amp; Serra &lt;b&gt; caf&eacute; &#233; &#x2014; 20&nbsp;km &quot;q&quot; &unknown;</p>`,
		want: "Kestrel & Serra <b> café é — 20 km \"q\" &unknown;\n",
	}, {
		name: "white space collapsed outside pre",
		in:   "<p>  Velora\n\t Cycles   <span>builds</span><b>bi</b>kes </p><pre>  a  b\n\tc\n</pre><p>x</p>",
		want: "Velora Cycles buildsbikes\n\n  a  b\n\tc\n\nx\n",
	}, {
		name: "blocks end lines",
		in:   `<div>One</div><div>Two<br>Three</div><ul><li>Tubes</li><li>Brakes</li></ul><p>A<br><br>B</p><blockquote>Q</blockquote>`,
		want: "One\nTwo\nThree\n\nTubes\nBrakes\n\nA\n\nB\n\nQ\n",
	}, {
		name: "fragment without html or body",
		in:   `Plain words & more`,
		want: "Plain words & more\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := read([]byte(tt.in))
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
			if d.Source.URI != "site/about.html" {
				t.Errorf("source = %+v", d.Source)
			}
		})
	}
}

func TestReader_ReadCharsets(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE}
	for _, r := range "<p>Café</p>" {
		utf16le = append(utf16le, byte(r), byte(r>>8))
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"utf-8 with BOM", []byte("\uFEFF<p>Café</p>"), "Café\n"},
		{"meta charset", []byte("<meta charset=\"windows-1252\"><p>Caf\xe9 \x96 Porto</p>"), "Café – Porto\n"},
		{"meta http-equiv", []byte("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"><p>Caf\xe9</p>"), "Café\n"},
		{"utf-16 BOM", utf16le, "Café\n"},
		{"valid utf-8 despite meta", []byte(`<meta charset="iso-8859-1"><p>Café</p>`), "Café\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := read(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, d)
			if d.Text != tt.want {
				t.Errorf("text = %q, want %q", d.Text, tt.want)
			}
		})
	}
}

func TestReader_ReadRejects(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    string // in the message
		notText bool   // the error wraps ingest.ErrNotText
	}{
		{"empty", nil, "empty file", false},
		{"binary", []byte("<p>a\x00b</p>"), "binary content", true},
		{"invalid utf-8, no charset", []byte("<p>Caf\xe9</p>"), "invalid UTF-8 at byte 6 and no <meta charset>", true},
		{"invalid utf-8 declared utf-8", []byte("<meta charset=utf-8><p>Caf\xe9</p>"), "though the page declares utf-8", true},
		{"unknown charset", []byte("<meta charset=klingon><p>Caf\xe9</p>"), `unknown charset "klingon"`, true},
		{"only scripts", []byte(`<html><head><title>T</title></head><body><script>x()</script><style>p{}</style></body></html>`), "no text in the page", false},
		{"only navigation", []byte(`<nav><a href="/">Home</a></nav><footer>© Velora</footer>`), "no text in the page", false},
		{"only white space", []byte("<p> \n\t&nbsp; </p><pre>   </pre>"), "no text in the page", false},
		{"too deep", []byte(strings.Repeat("<div>", 600) + "x"), "parse HTML", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, kg.ErrRejected) {
				t.Errorf("error %v does not wrap kg.ErrRejected", err)
			}
			if got := errors.Is(err, ingest.ErrNotText); got != tt.notText {
				t.Errorf("errors.Is(err, ErrNotText) = %v, want %v", got, tt.notText)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "source site/about.html: rejected: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error = %q, want it to name the source and say %q", msg, tt.want)
			}
		})
	}
}

func TestReader_ReadCorpusPage(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/page.html")
	if err != nil {
		t.Fatal(err)
	}
	d, err := read(data)
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	var paths []string
	for _, s := range d.Sections {
		paths = append(paths, s.Path)
	}
	wantPaths := []string{
		"About Velora Cycles",
		"About Velora Cycles > Our suppliers",
		"About Velora Cycles > Our suppliers > Quality & testing",
		"About Velora Cycles > Visit the workshop",
	}
	if strings.Join(paths, "\n") != strings.Join(wantPaths, "\n") {
		t.Errorf("paths = %q, want %q", paths, wantPaths)
	}
	suppliers := sectionsOf(d)[1].text
	if !strings.Contains(suppliers, "Supplier | Part | Since\nKestrel Alloys | Aluminium tubes | 2012\nSerra Components | Disc brakes | 2016\n\n") {
		t.Errorf("suppliers section does not hold the table whole:\n%s", suppliers)
	}
	for _, gone := range []string{"dataLayer", "font-family", "Bikes", "cookies", "Spring sale", "rights reserved", "analytics"} {
		if strings.Contains(d.Text, gone) {
			t.Errorf("text holds %q, which is not the page's main text", gone)
		}
	}
	for _, kept := range []string{"Porto, Portugal", "Kestrel Alloys, drawn", "20 °C", "Book through the shop — it's free."} {
		if !strings.Contains(d.Text, kept) {
			t.Errorf("text lacks %q", kept)
		}
	}
}

func FuzzHTML(f *testing.F) {
	f.Add([]byte(`<h1>A</h1><p>x</p><h2>B</h2><table><tr><td>1</td><td>2</td></tr></table><pre> y </pre>`))
	f.Add([]byte(`<main><article><header><h1>T</h1></header><p>a<br>b</p></article></main><nav>n</nav>`))
	f.Add([]byte("<meta charset=windows-1252><p>Caf\xe9</p>"))
	f.Add([]byte("<table><tr><td><h3>x</h3><table><tr><td>y</td></tr></table></td></tr></table>"))
	f.Add([]byte("<p>&amp;&#0;&#x110000;&nbsp;</p><h4>\u00a0</h4><h5>z</h5>"))
	if data, err := os.ReadFile("../../testdata/corpus/page.html"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := read(data)
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
