package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/xuri/excelize/v2"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func init() {
	ingest.RegisterTable(kg.KindXLSX, loader{})
}

// loader loads each sheet of a workbook as one table.
type loader struct{}

var _ ingest.TableLoader = loader{}

// xmlInMemory is the size above which excelize extracts a worksheet or the
// shared strings to a temporary file and streams it, rather than holding it.
const xmlInMemory = 16 << 20

// maxRowWarnings is how many rows with dropped cells a sheet reports one by
// one before it sums up the rest.
const maxRowWarnings = 20

// errorValues are the values Excel shows for a formula that failed.
var errorValues = []string{"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!"}

// Load loads the sheets of in.Path into tables named after the source and
// the sheet. See the package doc.
func (loader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) (out []ingest.Loaded, err error) {
	reject := func(format string, a ...any) error { return ingest.Rejectf(in.Source.URI, format, a...) }
	defer func() {
		// Runs last, after the closes below: any failure drops every
		// table this source made.
		if err != nil && len(out) > 0 {
			err = errors.Join(err, dropTables(context.WithoutCancel(ctx), db, out))
			out = nil
		}
	}()
	lim := in.Options.Limits.WithDefaults()
	zr, err := zip.OpenReader(in.Path)
	if err != nil {
		return nil, reject("%s (%v)", notZip(in.Path), err)
	}
	defer func() { err = errors.Join(err, zr.Close()) }()
	// Before excelize reads a byte: it would unzip every part.
	if err := ingest.CheckZip(&zr.Reader, lim); err != nil {
		return nil, reject("%v", err)
	}
	parts, err := sheetParts(&zr.Reader)
	if err != nil {
		return nil, reject("%v", err)
	}
	f, err := excelize.OpenFile(in.Path, excelize.Options{
		UnzipSizeLimit:    lim.MaxUnzipped,
		UnzipXMLSizeLimit: min(xmlInMemory, lim.MaxUnzipped),
	})
	if f != nil {
		// excelize returns the file with some errors; closing it
		// removes its temporary files.
		defer func() { err = errors.Join(err, f.Close()) }()
	}
	if err != nil {
		return nil, reject("open workbook: %v", err)
	}
	if err := normalizeFormats(f); err != nil {
		return nil, reject("%v", err)
	}
	sheets, err := pickSheets(f.GetSheetList(), in.Options.Sheets)
	if err != nil {
		return nil, reject("%v", err)
	}
	base := ingest.TableName(in.Base) // Base may be the source's path
	for _, sheet := range sheets {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("load source %s: %w", in.Source.URI, err)
		}
		ld, ok, err := loadSheet(ctx, db, f, parts[sheet], sheet, in, base)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, ld)
		}
	}
	if len(out) == 0 {
		return nil, reject("no sheet holds data (sheets read: %s)", quoteList(sheets))
	}
	return out, nil
}

// ole2Magic starts an OLE2 compound file: a legacy .xls workbook, or an
// encrypted .xlsx, which Excel wraps in one.
var ole2Magic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// notZip says why the file at path, which archive/zip cannot open, is no
// workbook, by the bytes it starts with.
func notZip(path string) string {
	head := make([]byte, len(ole2Magic))
	n, err := readHead(path, head)
	switch {
	case err != nil:
		return "not an xlsx workbook"
	case n == 0:
		return "not an xlsx workbook: the file is empty"
	case bytes.HasPrefix(head[:n], ole2Magic):
		return "not an xlsx workbook: a legacy .xls workbook or an encrypted .xlsx (an OLE2 file, not a zip container); save it as .xlsx without a password"
	case bytes.HasPrefix(head[:n], []byte("PK\x03\x04")):
		return "not a readable xlsx workbook: its zip container is truncated or corrupt (the directory at its end is missing or damaged)"
	}
	return "not an xlsx workbook: the file is not a zip container"
}

// readHead reads the first len(b) bytes of the file at path, or fewer when
// it is shorter.
func readHead(path string, b []byte) (n int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	n, err = io.ReadFull(f, b)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return n, err
}

// pickSheets returns the sheets of the workbook, in its order, that want
// names (case-insensitively, as Excel compares sheet names); every sheet
// when want is empty.
func pickSheets(all, want []string) ([]string, error) {
	if len(want) == 0 {
		if len(all) == 0 {
			return nil, errors.New("the workbook has no sheet")
		}
		return all, nil
	}
	var out, missing []string
	for _, s := range all {
		if slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(w, s) }) {
			out = append(out, s)
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(all, func(s string) bool { return strings.EqualFold(w, s) }) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no sheet named %s in the workbook (its sheets: %s)", quoteList(missing), quoteList(all))
	}
	return out, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// readError is a failure to read a sheet, as opposed to one of DuckDB.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// sheetRows streams the non-empty rows of a sheet.
type sheetRows struct {
	rows *excelize.Rows
	num  int // rows read so far, empty ones included: the number of the last
}

// next returns the next non-empty row; ok is false at the end of the sheet.
func (s *sheetRows) next() (r row, ok bool, err error) {
	// Next steps through every row number, also those the file leaves
	// out, so counting its calls numbers the rows.
	for s.rows.Next() {
		s.num++
		cells, err := s.rows.Columns()
		if err != nil {
			return row{}, false, fmt.Errorf("row %d: %w", s.num, err)
		}
		if slices.ContainsFunc(cells, func(v string) bool { return !blank(v) }) {
			return row{num: s.num, cells: cells}, true, nil
		}
	}
	return row{}, false, s.rows.Error()
}

// loadSheet loads one sheet; ok is false when the sheet is empty.
func loadSheet(ctx context.Context, db *sql.DB, f *excelize.File, part *zip.File, sheet string, in ingest.TableInput, base string) (ld ingest.Loaded, ok bool, err error) {
	reject := func(err error) error {
		return fmt.Errorf("source %s: %w: sheet %s: %w", in.Source.URI, kg.ErrRejected, sheet, err)
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		return ld, false, reject(err)
	}
	defer func() {
		if cerr := rows.Close(); cerr != nil {
			err = errors.Join(err, reject(cerr))
			if ok {
				err = errors.Join(err, dropTable(context.WithoutCancel(ctx), db, ld.Name))
				ld, ok = ingest.Loaded{}, false
			}
		}
	}()
	src := &sheetRows{rows: rows}
	var head []row
	for len(head) < maxTitleRows+2 {
		r, more, err := src.next()
		if err != nil {
			return ld, false, reject(err)
		}
		if !more {
			break
		}
		head = append(head, r)
	}
	if len(head) == 0 {
		return ld, false, nil
	}
	var (
		merges []cellRange
		sums   []sumCell
	)
	if part != nil {
		touches := func(m cellRange) bool {
			return slices.ContainsFunc(head, func(r row) bool { return m.top <= r.num && r.num <= m.bottom })
		}
		if merges, err = scanMerges(part, touches); err != nil {
			return ld, false, reject(fmt.Errorf("worksheet part %s: %w", part.Name, err))
		}
		if sums, err = scanSums(part); err != nil {
			return ld, false, reject(fmt.Errorf("worksheet part %s: %w", part.Name, err))
		}
	}
	h := findHeader(head, merges)
	for _, t := range h.titles {
		_, c, _ := t.span()
		ld.Warnings = append(ld.Warnings, fmt.Sprintf("sheet %s row %d: title %q above the header skipped", sheet, t.num, clean(t.cells[c])))
	}
	cols := make([]duck.Column, len(h.names))
	for i, n := range h.names {
		cols[i] = duck.Column{Name: n, Type: "VARCHAR"}
	}
	ld.Name = in.Name(base + "_" + strings.ReplaceAll(sheet, ".", "_"))
	ld.Origin = sheet
	var (
		vals     = make([]driver.Value, len(cols))
		ragged   int // rows with cells outside the header
		errCells int
		errKinds []string
		totals   = totalRows{sums: sums, left: h.left, width: len(cols)}
		skipped  int // rows of totals left out
	)
	emit := func(r row, yield func([]driver.Value) error) error {
		if why := totals.why(r); why != "" {
			skipped++
			if skipped <= maxRowWarnings {
				ld.Warnings = append(ld.Warnings, fmt.Sprintf("sheet %s row %d: row of totals left out of the table (%s)", sheet, r.num, why))
			}
			return nil
		}
		clear(vals)
		var before, beyond int
		filled := false
		for j, v := range r.cells {
			t := strings.TrimSpace(v)
			switch {
			case t == "":
			case j < h.left:
				before++
			case j >= h.left+len(vals):
				beyond++
			case t[0] == '#' && slices.Contains(errorValues, t):
				errCells++
				if !slices.Contains(errKinds, t) {
					errKinds = append(errKinds, t)
				}
			default:
				vals[j-h.left] = v
				filled = true
			}
		}
		if before+beyond > 0 {
			ragged++
			if ragged <= maxRowWarnings {
				ld.Warnings = append(ld.Warnings, droppedWarning(sheet, r.num, before, beyond))
			}
		}
		if !filled {
			return nil
		}
		return yield(vals)
	}
	n, err := duck.Append(ctx, db, ld.Name, cols, func(yield func([]driver.Value) error) error {
		for _, r := range head[h.used:] {
			if err := emit(r, yield); err != nil {
				return err
			}
		}
		for {
			r, more, err := src.next()
			if err != nil {
				return readError{err}
			}
			if !more {
				return nil
			}
			if err := emit(r, yield); err != nil {
				return err
			}
		}
	})
	var re readError
	switch {
	case errors.As(err, &re):
		return ld, false, reject(re.err)
	case err != nil:
		return ld, false, fmt.Errorf("load source %s sheet %s: %w", in.Source.URI, sheet, err)
	}
	if err := duck.InferTypes(ctx, db, ld.Name); err != nil {
		return ld, false, errors.Join(fmt.Errorf("load source %s sheet %s: %w", in.Source.URI, sheet, err), dropTable(context.WithoutCancel(ctx), db, ld.Name))
	}
	if ragged > maxRowWarnings {
		ld.Warnings = append(ld.Warnings, fmt.Sprintf("sheet %s: cells outside the header dropped in %d more rows", sheet, ragged-maxRowWarnings))
	}
	if skipped > maxRowWarnings {
		ld.Warnings = append(ld.Warnings, fmt.Sprintf("sheet %s: %d more rows of totals left out of the table", sheet, skipped-maxRowWarnings))
	}
	if errCells > 0 {
		ld.Warnings = append(ld.Warnings, fmt.Sprintf("sheet %s: %d cells with formula errors (%s) loaded as NULL", sheet, errCells, strings.Join(errKinds, ", ")))
	}
	ld.Rows = n
	return ld, true, nil
}

func droppedWarning(sheet string, num, before, beyond int) string {
	var parts []string
	if before > 0 {
		parts = append(parts, fmt.Sprintf("%d cells left of the header", before))
	}
	if beyond > 0 {
		parts = append(parts, fmt.Sprintf("%d cells beyond the header", beyond))
	}
	return fmt.Sprintf("sheet %s row %d: %s dropped", sheet, num, strings.Join(parts, " and "))
}

// dropTables drops the tables a failed load made.
func dropTables(ctx context.Context, db *sql.DB, loaded []ingest.Loaded) error {
	var errs []error
	for _, ld := range loaded {
		errs = append(errs, dropTable(ctx, db, ld.Name))
	}
	return errors.Join(errs...)
}

func dropTable(ctx context.Context, db *sql.DB, table string) error {
	if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+duck.QuoteIdent(table)); err != nil {
		return fmt.Errorf("drop table %s: %w", table, err)
	}
	return nil
}
