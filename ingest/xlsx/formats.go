package xlsx

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// The number formats dates are read with, whatever format the workbook
// shows them in: ISO 8601, which duck.InferTypes casts to DATE and
// TIMESTAMP. The locale tag (en-US) changes nothing in these formats, but
// without one excelize searches its whole language table for every cell.
const (
	isoDate     = "[$-409]yyyy-mm-dd"
	isoDateTime = "[$-409]yyyy-mm-dd hh:mm:ss"
)

// storedValue is a number format id that no format has: excelize returns
// the value of a cell with it as stored (numbers cut to Excel's 15
// significant digits) without formatting it, which General would do at a
// cost for every cell.
const storedValue = -1

// formatKind is what a number format shows a number as.
type formatKind int

const (
	formatNumber   formatKind = iota // a number, however decorated
	formatText                       // the text format "@": values as stored
	formatDate                       // a calendar date
	formatDateTime                   // a date with a time of day
	formatTime                       // a time of day or a duration
)

// normalizeFormats rewrites the number format of every cell style of f, in
// memory only, so that the formatted values excelize returns are what the
// cells hold rather than how the workbook shows them: date formats become
// ISO dates (excelize would render built-in format 14 as "03-04-25", which
// no type casts to a date), date-time formats ISO timestamps, and number
// formats none, so "1,234.50 €" reads as 1234.5 and "12.5%" as 0.125.
// Text and time-of-day formats are kept.
func normalizeFormats(f *excelize.File) error {
	ss := f.Styles
	if ss == nil || ss.CellXfs == nil {
		return nil
	}
	custom := map[int]string{}
	if ss.NumFmts != nil {
		for _, nf := range ss.NumFmts.NumFmt {
			if nf == nil {
				continue
			}
			code := nf.FormatCode
			if nf.FormatCode16 != "" {
				code = nf.FormatCode16
			}
			custom[nf.NumFmtID] = code
		}
	}
	// The ISO formats are added before any style is rewritten: NewStyle
	// compares the new style with the existing ones. It registers the
	// format; its id is read back from the style it makes. The workbook is
	// never saved.
	n := len(ss.CellXfs.Xf) // the styles added here need no rewrite
	isoIDs := map[formatKind]int{}
	for kind, code := range map[formatKind]string{formatDate: isoDate, formatDateTime: isoDateTime} {
		style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return fmt.Errorf("add number format %s: %w", code, err)
		}
		xf := f.Styles.CellXfs.Xf[style]
		if xf.NumFmtID == nil {
			return fmt.Errorf("add number format %s: style %d has no format", code, style)
		}
		isoIDs[kind] = *xf.NumFmtID
	}
	for i := range n {
		xfs := f.Styles.CellXfs.Xf
		if xfs[i].NumFmtID == nil {
			continue
		}
		id := *xfs[i].NumFmtID
		var to int
		switch kind := classifyFormat(id, custom); kind {
		case formatText, formatTime:
			continue
		case formatDate, formatDateTime:
			to = isoIDs[kind]
		case formatNumber:
			to = storedValue
		}
		f.Styles.CellXfs.Xf[i].NumFmtID = &to
	}
	return nil
}

// classifyFormat tells what the number format id shows, from its code when
// the workbook defines it and from the built-in table otherwise.
func classifyFormat(id int, custom map[int]string) formatKind {
	if code, ok := custom[id]; ok {
		return classifyCode(code)
	}
	switch {
	case id == 49:
		return formatText
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id == 36, id >= 50 && id <= 58:
		// 27-31, 36 and 50-58 are the East Asian built-in date formats.
		return formatDate
	case id == 22:
		return formatDateTime
	case id >= 18 && id <= 21, id >= 32 && id <= 35, id >= 45 && id <= 47:
		return formatTime
	}
	return formatNumber
}

// classifyCode tells what a number format code shows by the date and time
// tokens left once quoted text, escaped characters, fills and bracketed
// colours, conditions and locales are skipped. "m" is a month unless hours
// or seconds are present, as in Excel.
func classifyCode(code string) formatKind {
	lower := strings.ToLower(code)
	lower = strings.NewReplacer("am/pm", "", "a/p", "", "general", "").Replace(lower)
	var date, month, clock, text bool
	for i := 0; i < len(lower); i++ {
		switch c := lower[i]; c {
		case '"':
			if j := strings.IndexByte(lower[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(lower)
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(lower[i:], ']')
			if j < 0 {
				i = len(lower)
				continue
			}
			if inner := lower[i+1 : i+j]; inner != "" && strings.Trim(inner, "hms") == "" {
				clock = true // elapsed time: [h], [mm], [ss]
			}
			i += j
		case 'y', 'd':
			date = true
		case 'm':
			month = true
		case 'h', 's':
			clock = true
		case '@':
			text = true
		}
	}
	date = date || month && !clock
	switch {
	case date && clock:
		return formatDateTime
	case date:
		return formatDate
	case clock:
		return formatTime
	case text:
		return formatText
	}
	return formatNumber
}
