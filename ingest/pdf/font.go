package pdf

import (
	"math"
	"strings"
	"unicode/utf8"

	lpdf "github.com/ledongthuc/pdf"
)

// font is what text extraction needs of a PDF font: how its codes decode to
// text and how far each code moves the pen.
type font struct {
	enc     lpdf.TextEncoding
	scale   float64   // glyph space to text space: 1/1000, or a Type 3 font's FontMatrix
	widths  []float64 // simple font: width by code, negative where unknown; nil when it has none
	missing float64   // simple font: width of codes Widths leaves out; 0 when unknown
	twoByte bool      // Type0 font with an Identity encoding: two-byte codes that are CIDs
	cids    map[int]float64
	dw      float64  // Type0: width of CIDs that cids leaves out
	guess   *stdFont // widths to guess with where the font gives none
}

// rawFont stands for a font the content stream names but the page lacks:
// its bytes are taken as text.
var rawFont = &font{enc: rawEncoding{}, scale: 0.001, guess: &helvetica}

type rawEncoding struct{}

func (rawEncoding) Decode(raw string) string { return raw }

const maxCIDWidths = 1 << 17 // entries of a Type0 font's W array that are read

// font returns the font a Tf operator names, parsed once per page and scope.
func (w *walker) font(res lpdf.Value, scope, name string) *font {
	key := scope + "\x00" + name
	if f, ok := w.fonts[key]; ok {
		return f
	}
	f := rawFont
	if fv := res.Key("Font").Key(name); fv.Kind() == lpdf.Dict {
		f = newFont(fv, w)
	}
	w.fonts[key] = f
	return f
}

func newFont(fv lpdf.Value, w *walker) *font {
	f := &font{enc: encoding(fv, w), scale: 0.001, guess: guessFont(fv.Key("BaseFont").Name())}
	switch fv.Key("Subtype").Name() {
	case "Type0":
		d := fv.Key("DescendantFonts").Index(0)
		if enc := fv.Key("Encoding").Name(); enc == "Identity-H" || enc == "Identity-V" {
			f.twoByte = true
			f.dw = 1000
			if dw := d.Key("DW"); dw.Kind() == lpdf.Integer || dw.Kind() == lpdf.Real {
				f.dw = finite(dw.Float64())
			}
			f.cids = cidWidths(d.Key("W"))
		}
		return f
	case "Type3":
		if fm := fv.Key("FontMatrix"); fm.Len() == 6 {
			if s := math.Abs(finite(fm.Index(0).Float64())); s > 0 && s < 1 {
				f.scale = s
			}
		}
	}
	f.widths, f.missing = simpleWidths(fv)
	return f
}

// encoding returns the font's decoder, or the raw one when the font's
// ToUnicode map is too large or so broken that the parser panics on it: one
// bad font garbles its own text, not the whole file.
func encoding(fv lpdf.Value, w *walker) (enc lpdf.TextEncoding) {
	if tu := fv.Key("ToUnicode"); tu.Kind() == lpdf.Stream && w.charge(tu) != nil {
		return rawEncoding{}
	}
	defer func() {
		if recover() != nil {
			enc = rawEncoding{}
		}
	}()
	lf := lpdf.Font{V: fv}
	if enc = lf.Encoder(); enc == nil {
		enc = rawEncoding{}
	}
	return enc
}

func simpleWidths(fv lpdf.Value) ([]float64, float64) {
	ws := fv.Key("Widths")
	if ws.Kind() != lpdf.Array || ws.Len() == 0 {
		return nil, 0
	}
	widths := make([]float64, 256)
	for i := range widths {
		widths[i] = -1
	}
	first := fv.Key("FirstChar").Int64()
	for i := range min(ws.Len(), 256) {
		if c := first + int64(i); c >= 0 && c < 256 {
			widths[c] = finite(ws.Index(i).Float64())
		}
	}
	return widths, max(0, finite(fv.Key("FontDescriptor").Key("MissingWidth").Float64()))
}

// cidWidths reads a CIDFont's W array: "c [w1 w2 …]" gives the widths of
// CIDs from c on, "c1 c2 w" one width to CIDs c1 to c2.
func cidWidths(w lpdf.Value) map[int]float64 {
	m := map[int]float64{}
	n := w.Len()
	for i, budget := 0, maxCIDWidths; i+1 < n && budget > 0; {
		first := w.Index(i)
		if first.Kind() != lpdf.Integer {
			break
		}
		c := int(first.Int64())
		next := w.Index(i + 1)
		if next.Kind() == lpdf.Array {
			for j := range min(next.Len(), budget) {
				m[c+j] = finite(next.Index(j).Float64())
				budget--
			}
			i += 2
			continue
		}
		if i+2 >= n {
			break
		}
		last, width := int(next.Int64()), finite(w.Index(i+2).Float64())
		for ; c <= last && budget > 0; c++ {
			m[c] = width
			budget--
		}
		i += 3
	}
	return m
}

// measure decodes a string the font shows and returns its text and how far
// it moves the pen, in text space.
func (f *font) measure(raw string, g *gstate) (string, float64) {
	text := strings.ToValidUTF8(f.enc.Decode(raw), "\uFFFD")
	var adv float64
	switch {
	case f.twoByte:
		for i := 0; i+1 < len(raw); i += 2 {
			w, ok := f.cids[int(raw[i])<<8|int(raw[i+1])]
			if !ok {
				w = f.dw
			}
			adv += w*f.scale*g.tfs + g.tc
		}
	case f.widths != nil:
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			switch w := f.widths[c]; {
			case w >= 0:
				adv += w * f.scale * g.tfs
			case f.missing > 0:
				adv += f.missing * f.scale * g.tfs
			default:
				r, _ := utf8.DecodeRuneInString(f.enc.Decode(raw[i : i+1]))
				adv += f.guess.width(r) / 1000 * g.tfs
			}
			adv += g.tc
			if c == ' ' {
				adv += g.tw
			}
		}
	default:
		for _, r := range text {
			adv += f.guess.width(r)/1000*g.tfs + g.tc
			if r == ' ' {
				adv += g.tw
			}
		}
	}
	return text, adv * g.th
}
