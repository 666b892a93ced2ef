package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	lpdf "github.com/ledongthuc/pdf"
)

const (
	maxFormDepth  = 8    // form XObjects drawn inside form XObjects
	maxFormsDrawn = 4096 // form XObjects drawn on one page
	maxSaveDepth  = 1024 // nested q operators kept
	checkEvery    = 1024 // operators between two looks at ctx
)

// matrix is a PDF transformation [a b c d e f]: it maps (x, y) to
// (a·x + c·y + e, b·x + d·y + f).
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m then n: the matrix that applies m first.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

func translate(x, y float64) matrix { return matrix{1, 0, 0, 1, x, y} }

func matrixOf(args []lpdf.Value) matrix {
	var m matrix
	for i := range m {
		m[i] = finite(args[i].Float64())
	}
	return m
}

// finite keeps NaN and infinities, which a corrupt file can hold, out of
// the geometry.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// gstate is the part of the graphics state that places text; q and Q save
// and restore it.
type gstate struct {
	ctm                        matrix
	tc, tw, th, tl, tfs, trise float64
	font                       *font
}

// run is a piece of text shown by one text operator, in a frame turned so
// that its baseline runs along +x: x0 and x1 are where it starts and ends on
// the baseline, y is the baseline's height.
type run struct {
	text      string
	turn      int // quarter turns of the baseline from the page's +x axis
	x0, x1, y float64
	size      float64 // font size on the page
}

// walker reads the text runs of pages. One walker reads one document, so
// that the budgets hold for the whole file.
type walker struct {
	maxText    int64 // bytes of run text allowed in the whole file
	textLeft   int64
	opsLeft    int64 // content operators allowed in the whole file
	streamLeft int64 // decompressed content bytes still allowed
	ops        int64
	forms      int
	fonts      map[string]*font // of the current page, by resource scope and name
	runs       []run
}

// page returns the text of one page, its lines rebuilt from the runs.
func (w *walker) page(ctx context.Context, page lpdf.Value) (string, error) {
	w.runs, w.forms, w.fonts = w.runs[:0], 0, map[string]*font{}
	contents := page.Key("Contents")
	if contents.IsNull() {
		return "", nil
	}
	if err := w.charge(contents); err != nil {
		return "", err
	}
	g := gstate{ctm: identity, th: 1}
	w.walk(ctx, contents, inherited(page, "Resources"), "", g, 0)
	return layout(w.runs), nil
}

// charge counts the decompressed bytes of a content stream (or of an array
// of them) against the file's budget before the parser reads it, and
// refuses a stream past maxStreamBytes: the parser holds a stream's operands
// on a stack, so a decompression bomb would otherwise exhaust memory, and
// a form drawn over and over would take hours.
func (w *walker) charge(strm lpdf.Value) error {
	if strm.Kind() == lpdf.Array { // of streams; not nested, so a cycle cannot recurse
		for i := range strm.Len() {
			if s := strm.Index(i); s.Kind() == lpdf.Stream {
				if err := w.charge(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if strm.Kind() != lpdf.Stream {
		return nil
	}
	rc := strm.Reader()
	n, err := io.Copy(io.Discard, io.LimitReader(rc, maxStreamBytes+1))
	err = errors.Join(err, rc.Close())
	switch w.streamLeft -= n; {
	case n > maxStreamBytes:
		return fmt.Errorf("a content stream expands past %d bytes (a decompression bomb?)", maxStreamBytes)
	case w.streamLeft < 0:
		return fmt.Errorf("its content streams expand past %d bytes in all", maxContentBytes)
	case err != nil:
		return fmt.Errorf("corrupt content stream: %w", err)
	}
	return nil
}

// walk interprets one content stream with the resources it names; scope
// names the resource dictionary (the chain of forms that led to it) so that
// fonts are parsed once per page and scope.
func (w *walker) walk(ctx context.Context, content, res lpdf.Value, scope string, g gstate, depth int) {
	var (
		saved   []gstate
		tm, tlm = identity, identity
	)
	newline := func() {
		tlm = translate(0, -g.tl).mul(tlm)
		tm = tlm
	}
	lpdf.Interpret(content, func(stk *lpdf.Stack, op string) {
		args := make([]lpdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		w.ops++
		if w.ops > w.opsLeft {
			panic(abort{fmt.Errorf("content streams hold more than %d operators", maxContentOps)})
		}
		if w.ops%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				panic(abort{err})
			}
		}
		switch op {
		case "q":
			if len(saved) < maxSaveDepth {
				saved = append(saved, g)
			}
		case "Q":
			if n := len(saved); n > 0 {
				g, saved = saved[n-1], saved[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				g.ctm = matrixOf(args).mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tc", "Tw", "Tz", "TL", "Ts":
			if len(args) == 1 {
				g.set(op, finite(args[0].Float64()))
			}
		case "Tf":
			if len(args) == 2 {
				g.font = w.font(res, scope, args[0].Name())
				g.tfs = finite(args[1].Float64())
			}
		case "Td", "TD":
			if len(args) == 2 {
				tx, ty := finite(args[0].Float64()), finite(args[1].Float64())
				if op == "TD" {
					g.tl = -ty
				}
				tlm = translate(tx, ty).mul(tlm)
				tm = tlm
			}
		case "Tm":
			if len(args) == 6 {
				tm = matrixOf(args)
				tlm = tm
			}
		case "T*":
			newline()
		case "Tj", "'":
			if len(args) == 1 {
				if op == "'" {
					newline()
				}
				w.show(&g, &tm, args)
			}
		case "\"":
			if len(args) == 3 {
				g.tw, g.tc = finite(args[0].Float64()), finite(args[1].Float64())
				newline()
				w.show(&g, &tm, args[2:])
			}
		case "TJ":
			if len(args) == 1 && args[0].Kind() == lpdf.Array {
				items := make([]lpdf.Value, args[0].Len())
				for i := range items {
					items[i] = args[0].Index(i)
				}
				w.show(&g, &tm, items)
			}
		case "Do":
			if len(args) == 1 {
				w.form(ctx, res, scope, args[0].Name(), g, depth)
			}
		}
	})
}

func (g *gstate) set(op string, v float64) {
	switch op {
	case "Tc":
		g.tc = v
	case "Tw":
		g.tw = v
	case "Tz":
		g.th = v / 100
	case "TL":
		g.tl = v
	case "Ts":
		g.trise = v
	}
}

// form draws a form XObject: text inside one (headers, stamps, whole pages
// of some producers) is part of the page.
func (w *walker) form(ctx context.Context, res lpdf.Value, scope, name string, g gstate, depth int) {
	xo := res.Key("XObject").Key(name)
	if xo.Kind() != lpdf.Stream || xo.Key("Subtype").Name() != "Form" || depth >= maxFormDepth || w.forms >= maxFormsDrawn {
		return
	}
	w.forms++
	if m := xo.Key("Matrix"); m.Kind() == lpdf.Array && m.Len() == 6 {
		g.ctm = matrixOf([]lpdf.Value{m.Index(0), m.Index(1), m.Index(2), m.Index(3), m.Index(4), m.Index(5)}).mul(g.ctm)
	}
	if r := xo.Key("Resources"); r.Kind() == lpdf.Dict {
		res, scope = r, scope+"/"+name
	}
	if err := w.charge(xo); err != nil {
		panic(abort{err})
	}
	w.walk(ctx, xo, res, scope, g, depth+1)
}

// wordGap is the smallest gap, in ems, that separates two words: spaces are
// a quarter em or more, kerning inside a word a tenth or less.
const wordGap = 0.15

// show adds the run drawn by a text-showing operator: items are its strings
// and, for TJ, the adjustments between them in thousandths of an em. It
// moves the text matrix past the run.
func (w *walker) show(g *gstate, tm *matrix, items []lpdf.Value) {
	f := g.font
	if f == nil {
		f = rawFont
	}
	var (
		b   strings.Builder
		adv float64 // in text space
	)
	for _, it := range items {
		switch it.Kind() {
		case lpdf.String:
			text, dx := f.measure(it.RawString(), g)
			b.WriteString(text)
			adv += dx
		case lpdf.Integer, lpdf.Real:
			n := finite(it.Float64())
			if -n/1000 >= wordGap && b.Len() > 0 {
				b.WriteByte(' ')
			}
			adv -= n / 1000 * g.tfs * g.th
		}
	}
	m := tm.mul(g.ctm)
	*tm = translate(adv, 0).mul(*tm)
	if b.Len() == 0 {
		return
	}
	w.textLeft -= int64(b.Len())
	if w.textLeft < 0 {
		panic(abort{fmt.Errorf("its text passes the limit of %d bytes", w.maxText)})
	}
	turn := quarterTurns(m[0], m[1])
	x0, y := rotate(turn)(m.apply(0, g.trise))
	x1, _ := rotate(turn)(m.apply(adv, g.trise))
	size := math.Abs(g.tfs) * math.Hypot(m[2], m[3])
	if size == 0 {
		size = math.Abs(g.tfs) * math.Hypot(m[0], m[1])
	}
	w.runs = append(w.runs, run{text: b.String(), turn: turn, x0: x0, x1: max(x0, x1), y: y, size: size})
}

// quarterTurns says which of the four right angles the baseline direction
// (dx, dy) is nearest to.
func quarterTurns(dx, dy float64) int {
	if dx == 0 && dy == 0 {
		return 0
	}
	q := int(math.Round(math.Atan2(dy, dx) / (math.Pi / 2)))
	return (q%4 + 4) % 4
}

// rotate returns the map that turns a point by -turn quarter turns, so that
// a baseline of that direction runs along +x.
func rotate(turn int) func(x, y float64) (float64, float64) {
	switch turn {
	case 1:
		return func(x, y float64) (float64, float64) { return y, -x }
	case 2:
		return func(x, y float64) (float64, float64) { return -x, -y }
	case 3:
		return func(x, y float64) (float64, float64) { return -y, x }
	}
	return func(x, y float64) (float64, float64) { return x, y }
}
