package tabular

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func init() {
	ingest.RegisterTable(kg.KindCSV, csvLoader{})
}

// MaxRowWarnings is how many skipped rows a CSV source's warnings name one
// by one; the rest are counted in one more warning.
const MaxRowWarnings = 20

// csvLoader loads delimited text: its encoding told in Go (transcoded to
// UTF-8 when DuckDB cannot read it), then DuckDB's read_csv, which detects
// the dialect and types and skips the rows it cannot parse.
type csvLoader struct{}

var _ ingest.TableLoader = csvLoader{}

func (csvLoader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) (_ []ingest.Loaded, err error) {
	reject := func(format string, a ...any) error { return ingest.Rejectf(in.Source.URI, format, a...) }
	limit := in.Options.Limits.WithDefaults().MaxTableBytes
	sc, err := scanFile(in.Path, limit)
	if err != nil {
		return nil, reject("%v", err)
	}
	path := in.Path
	if sc.transcoded() {
		if path, err = transcodeFile(in.Path, sc, limit); err != nil {
			return nil, fmt.Errorf("source %s: %w", in.Source.URI, err)
		}
		defer func() {
			if rerr := os.Remove(path); rerr != nil {
				err = errors.Join(err, fmt.Errorf("source %s: remove transcoded copy: %w", in.Source.URI, rerr))
			}
		}()
	}
	name := in.Name(in.Base)
	res, err := duck.LoadCSVWithRejects(ctx, db, name, path, MaxRowWarnings)
	if err != nil {
		if ie, ok := errors.AsType[*duck.InputError](err); ok {
			return nil, reject("%s", strings.ReplaceAll(ie.Message(), path, in.Source.URI))
		}
		return nil, fmt.Errorf("source %s: %w", in.Source.URI, err)
	}
	reason, err := unusable(ctx, db, name, sc, res)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", in.Source.URI, err)
	}
	if reason != "" {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+duck.QuoteIdent(name)); err != nil {
			return nil, fmt.Errorf("source %s: drop table %s: %w", in.Source.URI, name, err)
		}
		return nil, reject("%s", reason)
	}
	return []ingest.Loaded{{Name: name, Rows: res.Rows, Warnings: warnings(sc, res)}}, nil
}

// unusable returns why a table DuckDB loaded is no use, or "".
func unusable(ctx context.Context, db *sql.DB, table string, sc scanned, res duck.CSVResult) (string, error) {
	if res.Rows == 0 && res.Rejected > 0 {
		reason := fmt.Sprintf("every row was rejected (%d rows; %s)", res.Rejected, describeDialect(res.Dialect, sc))
		if len(res.Rejects) > 0 {
			reason += "; first: " + rowError(res.Rejects[0])
		}
		return reason, nil
	}
	// A NUL past the bytes scan looks at can end up in the header, and no
	// SQL statement can name such a column.
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_name = ? AND contains(column_name, chr(0))", table).Scan(&n)
	if err != nil {
		return "", fmt.Errorf("check column names of table %s: %w", table, err)
	}
	if n > 0 {
		return "binary content: a NUL character in the header", nil
	}
	return "", nil
}

// warnings says what the load repaired or skipped, most useful first; a
// clean load has none.
func warnings(sc scanned, res duck.CSVResult) []string {
	var w []string
	switch {
	case sc.Invalid:
		w = append(w, fmt.Sprintf("not valid UTF-8 despite its byte-order mark (byte 0x%02X on line %d): bad bytes read as U+FFFD", sc.BadByte, sc.BadLine))
	case sc.Guessed && sc.Encoding == Windows1252:
		w = append(w, fmt.Sprintf("not valid UTF-8 (byte 0x%02X on line %d): read as Windows-1252 (Latin-1); check accented text", sc.BadByte, sc.BadLine))
	case sc.Guessed:
		w = append(w, fmt.Sprintf("no byte-order mark: read as %s from its NUL bytes", strings.ToUpper(string(sc.Encoding))))
	}
	if res.Rejected > 0 {
		w = append(w, "read with "+describeDialect(res.Dialect, sc))
	}
	for _, r := range res.Retyped {
		msg, _ := strings.CutPrefix(r.Message, fmt.Sprintf("Error when converting column %q. ", r.Column))
		w = append(w, fmt.Sprintf("column %s read as VARCHAR: line %d: %s", r.Column, r.Line, msg))
	}
	for _, r := range res.Rejects {
		w = append(w, rowError(r)+" (row skipped)")
	}
	if more := res.Rejected - int64(len(res.Rejects)); more > 0 {
		w = append(w, fmt.Sprintf("and %d more rows skipped", more))
	}
	return w
}

// rowError says where a row DuckDB skipped is and why it was.
func rowError(r duck.CSVReject) string {
	if want, got, ok := r.Columns(); ok {
		return fmt.Sprintf("line %d: expected %d columns, found %d", r.Line, want, got)
	}
	return fmt.Sprintf("line %d: %s: %s", r.Line, strings.ToLower(r.Type), r.Message)
}

// describeDialect names the dialect DuckDB detected and the encoding Go
// told.
func describeDialect(d duck.CSVDialect, sc scanned) string {
	quote := func(s string) string {
		switch s {
		case "", "(empty)":
			return "none"
		case "\t":
			return "tab"
		case " ":
			return "space"
		}
		return "'" + s + "'"
	}
	header := "no header"
	if d.Header {
		header = "a header"
	}
	return fmt.Sprintf("delimiter %s, quote %s, %s, encoding %s", quote(d.Delimiter), quote(d.Quote), header, sc.Encoding)
}

// scanFile checks the file at path and tells its dialect (see scan).
func scanFile(path string, limit int64) (_ scanned, err error) {
	f, err := os.Open(path)
	if err != nil {
		return scanned{}, err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	info, err := f.Stat()
	if err != nil {
		return scanned{}, err
	}
	if info.Size() > limit {
		return scanned{}, fmt.Errorf("%d bytes is over the limit of %d", info.Size(), limit)
	}
	return scan(f, limit)
}

// transcodeFile writes the file at path, as scan found it, to a temporary
// file in UTF-8 and returns its name; the caller removes it. It reads at
// most limit bytes, so it writes at most three times that (Windows-1252's
// largest expansion).
func transcodeFile(path string, sc scanned, limit int64) (_ string, err error) {
	e := sc.Encoding
	src, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("transcode from %s: %w", e, err)
	}
	defer func() { err = errors.Join(err, src.Close()) }()
	dst, err := os.CreateTemp("", "kgforge-*.csv")
	if err != nil {
		return "", fmt.Errorf("transcode from %s: %w", e, err)
	}
	lr := &io.LimitedReader{R: src, N: limit + 1}
	err = transcode(dst, lr, sc)
	if err == nil && lr.N == 0 {
		err = fmt.Errorf("the file grew over the limit of %d bytes", limit)
	}
	err = errors.Join(err, dst.Close())
	if err != nil {
		return "", errors.Join(fmt.Errorf("transcode from %s: %w", e, err), os.Remove(dst.Name()))
	}
	return dst.Name(), nil
}
