package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/xuri/excelize/v2"
)

// totalWords are the words that label a row of totals, in lower case:
// English, German, French, Italian, Spanish, Portuguese and Dutch. A label
// is split into words at every character that is not a letter or a digit,
// so "Sub-total:", "Sous-total" and "Grand Total" are found by "total".
var totalWords = []string{
	"total", "totals", "subtotal", "subtotals", "sum", // English (also French, Spanish, Portuguese "total")
	"gesamt", "insgesamt", "summe", "gesamtsumme", "zwischensumme", "endsumme", // German
	"somme",                         // French
	"totale", "totali", "subtotale", // Italian
	"suma", "soma", // Spanish, Portuguese
	"totaal", "subtotaal", "eindtotaal", // Dutch
}

// maxLabelWords is the most words a total label has: the total word and
// what it totals ("Porto Total", "Grand total (EUR)", "Total Q1 2025"). A
// longer text is prose that holds the word, such as a defect "total loss of
// the frame".
const maxLabelWords = 3

// isTotalLabel reports whether the text of a cell labels a row of totals:
// it has at most maxLabelWords words, and one of them is a total word.
func isTotalLabel(v string) bool {
	words := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return len(words) <= maxLabelWords && slices.ContainsFunc(words, func(w string) bool { return slices.Contains(totalWords, w) })
}

// totalLabel returns the label of r when r totals the rows above by its
// label: among the table's columns, from left on for width, its first value
// is a total label (isTotalLabel) and all the others are numbers (at least
// one) or Excel's error values. A data row has other text: an id, a name.
func totalLabel(r row, left, width int) (string, bool) {
	label, numbers := "", 0
	for j := left; j < left+width && j < len(r.cells); j++ {
		v := strings.TrimSpace(r.cells[j])
		switch {
		case v == "":
		case label == "":
			label = v
		case isNumber(v):
			numbers++
		case !slices.Contains(errorValues, v):
			return "", false
		}
	}
	return label, numbers > 0 && isTotalLabel(label)
}

// sumCell is a cell whose formula totals cells above it in its own column.
type sumCell struct {
	row, col int // 1-based row, 0-based column (A is 0)
	ref      string
	formula  string
}

// sumsAbove reports whether formula, the formula of the cell in column col
// (0-based) of row num, is SUM or SUBTOTAL of cells and ranges of its own
// column above it, and nothing else: SUM(E3:E6), SUBTOTAL(9,$E$3:$E$6),
// SUM(E7,E12). A formula over other columns (a row total, B2+C2) or other
// sheets, or one that does more than sum, is not.
func sumsAbove(formula string, col, num int) bool {
	f := strings.ToUpper(strings.ReplaceAll(strings.Join(strings.Fields(formula), ""), "$", ""))
	f = strings.TrimPrefix(f, "=")
	var args string
	switch {
	case !strings.HasSuffix(f, ")"):
		return false
	case strings.HasPrefix(f, "SUM("):
		args = f[len("SUM(") : len(f)-1]
	case strings.HasPrefix(f, "SUBTOTAL("):
		fn, rest, ok := strings.Cut(f[len("SUBTOTAL("):len(f)-1], ",")
		if _, err := strconv.Atoi(fn); err != nil || !ok {
			return false
		}
		args = rest
	default:
		return false
	}
	for a := range strings.SplitSeq(args, ",") {
		from, to, ok := strings.Cut(a, ":")
		if !ok {
			to = from
		}
		c1, r1, err1 := excelize.CellNameToCoordinates(from)
		c2, r2, err2 := excelize.CellNameToCoordinates(to)
		if err1 != nil || err2 != nil || c1 != col+1 || c2 != col+1 || max(r1, r2) >= num {
			return false
		}
	}
	return true
}

// sumMarkers are the texts a worksheet part holds when a formula in it may
// sum: scanSums decodes only the parts that hold one.
var sumMarkers = [][]byte{[]byte("SUM("), []byte("sum("), []byte("SUBTOTAL("), []byte("subtotal(")}

// maxFormula bounds the formula text scanSums keeps of a cell; a longer
// formula is no plain sum.
const maxFormula = 1 << 10

// scanSums returns the cells of worksheet part zf whose formulas total the
// cells above them (sumsAbove), the first of each row, in row order. The
// part is read through once to look for sumMarkers, and decoded only when
// it holds one: most sheets of data have no formula at all.
func scanSums(zf *zip.File) ([]sumCell, error) {
	found, err := partHolds(zf, sumMarkers)
	if err != nil || !found {
		return nil, err
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	out, err := decodeSums(rc)
	return out, errors.Join(err, rc.Close())
}

// partHolds reports whether part zf holds any of markers.
func partHolds(zf *zip.File, markers [][]byte) (_ bool, err error) {
	rc, err := zf.Open()
	if err != nil {
		return false, err
	}
	defer func() { err = errors.Join(err, rc.Close()) }()
	const chunk, overlap = 256 << 10, 16 // overlap: longer than any marker
	buf := make([]byte, 0, chunk+overlap)
	for {
		n, rerr := io.ReadFull(rc, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if slices.ContainsFunc(markers, func(m []byte) bool { return bytes.Contains(buf, m) }) {
			return true, nil
		}
		switch {
		case errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF):
			return false, nil
		case rerr != nil:
			return false, rerr
		}
		buf = buf[:copy(buf, buf[len(buf)-overlap:])]
	}
}

// decodeSums decodes a worksheet part and returns its cells that total the
// cells above them, the first of each row.
func decodeSums(r io.Reader) ([]sumCell, error) {
	dec := xml.NewDecoder(r)
	var (
		out      []sumCell
		num, col int // the current row (1-based) and cell (0-based)
		ref      string
		inF      bool
		text     []byte
	)
	for {
		tok, err := dec.RawToken()
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case err != nil:
			return nil, fmt.Errorf("read formulas: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				num, col = num+1, -1
				if v, ok := attr(t, "r"); ok {
					if n, err := strconv.Atoi(v); err == nil {
						num = n
					}
				}
			case "c":
				col, ref = col+1, ""
				if v, ok := attr(t, "r"); ok {
					if c, n, err := excelize.CellNameToCoordinates(v); err == nil {
						col, num, ref = c-1, n, v
					}
				}
			case "f":
				inF, text = true, text[:0]
			}
		case xml.CharData:
			if inF && len(text)+len(t) <= maxFormula {
				text = append(text, t...)
			}
		case xml.EndElement:
			if t.Name.Local != "f" || !inF {
				continue
			}
			inF = false
			if (len(out) == 0 || out[len(out)-1].row != num) && sumsAbove(string(text), col, num) {
				if ref == "" {
					ref, _ = excelize.CoordinatesToCellName(col+1, num)
				}
				out = append(out, sumCell{row: num, col: col, ref: ref, formula: strings.TrimPrefix(strings.TrimSpace(string(text)), "=")})
			}
		}
	}
}

func attr(e xml.StartElement, local string) (string, bool) {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// totalRows tells the rows of a sheet that total the rows above from the
// rows of data.
type totalRows struct {
	sums        []sumCell // cells that sum the cells above, in row order, from the next row on
	left, width int       // the table's columns
}

// why says why r totals the rows above ("label \"Total\", E7 =SUM(E3:E6)"),
// or returns "" when r is a row of data. Rows must come in sheet order.
func (t *totalRows) why(r row) string {
	for len(t.sums) > 0 && t.sums[0].row < r.num {
		t.sums = t.sums[1:]
	}
	var reasons []string
	if label, ok := totalLabel(r, t.left, t.width); ok {
		reasons = append(reasons, fmt.Sprintf("label %q", clean(label)))
	}
	for _, s := range t.sums {
		if s.row != r.num {
			break
		}
		if t.left <= s.col && s.col < t.left+t.width {
			reasons = append(reasons, s.ref+" ="+s.formula)
		}
	}
	return strings.Join(reasons, ", ")
}
