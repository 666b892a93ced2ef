package pdf

import "strings"

// stdFont holds the advance widths, in thousandths of an em, of the
// printable ASCII characters of one of the standard PDF fonts (Adobe's
// Core 14 AFM metrics), to measure text whose font gives no widths: the
// standard fonts may leave them out, and simple generators do.
type stdFont struct {
	ascii [95]float64 // U+0020 to U+007E
	other float64     // any other character: a typical letter
}

func (s *stdFont) width(r rune) float64 {
	if r >= 0x20 && r <= 0x7e {
		return s.ascii[r-0x20]
	}
	return s.other
}

// guessFont picks the standard font whose widths come nearest to the named
// font's.
func guessFont(base string) *stdFont {
	if _, after, ok := strings.Cut(base, "+"); ok {
		base = after // subset prefix: ABCDEF+Name
	}
	name := strings.ToLower(base)
	bold := strings.Contains(name, "bold") || strings.Contains(name, "black") || strings.Contains(name, "heavy")
	switch {
	case strings.Contains(name, "courier") || strings.Contains(name, "mono"):
		return &courier
	case strings.Contains(name, "times") || strings.Contains(name, "serif") && !strings.Contains(name, "sans"):
		if bold {
			return &timesBold
		}
		return &times
	case bold:
		return &helveticaBold
	}
	return &helvetica
}

var courier = stdFont{other: 600, ascii: fixed(600)}

func fixed(w float64) (ws [95]float64) {
	for i := range ws {
		ws[i] = w
	}
	return ws
}

var helvetica = stdFont{other: 556, ascii: [95]float64{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
}}

var helveticaBold = stdFont{other: 556, ascii: [95]float64{
	278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
	975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
	333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
	611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
}}

var times = stdFont{other: 500, ascii: [95]float64{
	250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278,
	500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444,
	921, 722, 667, 667, 722, 611, 556, 722, 722, 333, 389, 722, 611, 889, 722, 722,
	556, 722, 667, 556, 611, 722, 722, 944, 722, 722, 611, 333, 278, 333, 469, 500,
	333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500, 278, 778, 500, 500,
	500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
}}

var timesBold = stdFont{other: 500, ascii: [95]float64{
	250, 333, 555, 500, 500, 1000, 833, 278, 333, 333, 500, 570, 250, 333, 250, 278,
	500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 333, 333, 570, 570, 570, 500,
	930, 722, 667, 722, 722, 667, 611, 778, 778, 389, 500, 778, 667, 944, 722, 778,
	611, 778, 722, 556, 667, 722, 722, 1000, 722, 722, 667, 333, 278, 333, 581, 500,
	333, 500, 556, 444, 556, 444, 333, 500, 556, 278, 333, 556, 278, 833, 556, 500,
	556, 556, 444, 389, 333, 556, 500, 722, 500, 500, 444, 394, 220, 394, 520,
}}
