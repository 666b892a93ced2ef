package records

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"kgforge/ingest"
	"kgforge/kg"
)

type jsonlReader struct{}

var _ ingest.Reader = jsonlReader{}

// Read reads one JSON value per line as a record and builds the document's
// text from the records' text fields.
func (jsonlReader) Read(ctx context.Context, src kg.Source, data []byte, opt ingest.Options) (ingest.Document, error) {
	if err := checkText(src, data); err != nil {
		return ingest.Document{}, err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	b := newBuilder(src, opt)
	for pos, lineNo := 0, 1; pos < len(data); lineNo++ {
		if lineNo%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return ingest.Document{}, err
			}
		}
		lineEnd := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			lineEnd = pos + i
		}
		line := data[pos:lineEnd]
		pos = lineEnd + 1
		body := bytes.TrimLeft(line, " \t\r")
		if len(bytes.TrimRight(body, " \t\r")) == 0 {
			continue
		}
		indent := len(line) - len(body)
		dec := newDecoder(body)
		r, err := readRecord(dec, src.Modified)
		if err == nil {
			err = atEOF(dec)
		}
		if err != nil {
			off, err := locate(body, dec, err)
			return ingest.Document{}, rejectf(src, "line %d: invalid JSON: %v (column %d)", lineNo, err, indent+off+1)
		}
		if err := b.add(r); err != nil {
			return ingest.Document{}, err
		}
	}
	return b.document()
}

type jsonReader struct{}

var _ ingest.Reader = jsonReader{}

// Read reads one JSON document, whose records are the elements of a
// top-level array or else the document itself, and builds the document's
// text from the records' text fields.
func (jsonReader) Read(ctx context.Context, src kg.Source, data []byte, opt ingest.Options) (ingest.Document, error) {
	if err := checkText(src, data); err != nil {
		return ingest.Document{}, err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	b := newBuilder(src, opt)
	dec := newDecoder(data)
	err := func() error {
		body := bytes.TrimLeft(data, " \t\r\n")
		if len(body) == 0 || body[0] != '[' {
			r, err := readRecord(dec, src.Modified)
			if err != nil {
				return err
			}
			return b.add(r)
		}
		if _, err := dec.Token(); err != nil { // the array's '['
			return err
		}
		for n := 1; dec.More(); n++ {
			if n%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			r, err := readRecord(dec, src.Modified)
			if err != nil {
				return err
			}
			if err := b.add(r); err != nil {
				return err
			}
		}
		_, err := dec.Token() // the array's ']'
		return err
	}()
	if err == nil {
		err = atEOF(dec)
	}
	switch {
	case err == nil:
	case errors.Is(err, kg.ErrRejected), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ingest.Document{}, err
	default:
		off, err := locate(data, dec, err)
		line, col := lineCol(data, off)
		return ingest.Document{}, rejectf(src, "line %d: invalid JSON: %v (column %d)", line, err, col)
	}
	return b.document()
}

func newDecoder(data []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec
}

// errAfterValue means a line or file holds more after its JSON value.
var errAfterValue = errors.New("more data after the JSON value")

// atEOF checks that dec has nothing left but white space.
func atEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errAfterValue
	}
	return nil
}

// locate returns where in data, the decoder's input, err was found, and
// the error to report. The decoder's token stream is vague about where a
// syntax error lies, so for one json.Unmarshal checks data again: it names
// the exact byte. It costs a pass over data, on the way to a reject only.
func locate(data []byte, dec *json.Decoder, err error) (int, error) {
	if _, ok := errors.AsType[*json.SyntaxError](err); ok || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errAfterValue) {
		if se, ok := errors.AsType[*json.SyntaxError](json.Unmarshal(data, new(json.RawMessage))); ok {
			// Offset counts the bytes read, the bad one too; at the end
			// of the input there is no bad byte.
			off := int(se.Offset) - 1
			if strings.HasPrefix(se.Error(), "unexpected end") {
				off = int(se.Offset)
			}
			return off, se
		}
	}
	return int(dec.InputOffset()), err
}

// lineCol turns a byte offset in data into a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	head := data[:off]
	return bytes.Count(head, []byte("\n")) + 1, off - bytes.LastIndexByte(head, '\n')
}

// A leaf is one scalar value of a record.
type leaf struct {
	path  string // dotted keys from the record's root, without array indexes
	value string
	str   bool // a JSON string, not a number or a boolean
}

// A record is what one JSON record holds for the document.
type record struct {
	leaves []leaf
	time   time.Time
}

// timeKeys are the top-level fields that may hold a record's time, in the
// order they are tried.
var timeKeys = []string{"timestamp", "time", "ts", "@timestamp"}

// maxDepth bounds how deeply a record may nest, so that a hostile file
// cannot exhaust the stack.
const maxDepth = 1000

// readRecord reads the next JSON value from dec, token by token, as a
// record.
func readRecord(dec *json.Decoder, mod time.Time) (record, error) {
	w := walker{dec: dec, mod: mod, times: make([]time.Time, len(timeKeys))}
	if err := w.value("", 0); err != nil {
		return record{}, err
	}
	r := record{leaves: w.leaves}
	for _, t := range w.times {
		if !t.IsZero() {
			r.time = t
			break
		}
	}
	return r, nil
}

type walker struct {
	dec    *json.Decoder
	mod    time.Time
	leaves []leaf
	times  []time.Time // by index of timeKeys
}

// value reads one value at path, depth levels below the record's root.
func (w *walker) value(path string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	tok, err := w.dec.Token()
	if err != nil {
		return eofIsUnexpected(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			for w.dec.More() {
				k, err := w.dec.Token()
				if err != nil {
					return eofIsUnexpected(err)
				}
				key, _ := k.(string)
				child := key
				if path != "" {
					child = path + "." + key
				}
				n := len(w.leaves)
				if err := w.value(child, depth+1); err != nil {
					return err
				}
				if depth == 0 && len(w.leaves) == n+1 {
					w.noteTime(key, w.leaves[n])
				}
			}
		case '[':
			for w.dec.More() {
				if err := w.value(path, depth+1); err != nil {
					return err
				}
			}
		}
		if _, err := w.dec.Token(); err != nil { // the closing delimiter
			return eofIsUnexpected(err)
		}
	case string:
		w.leaves = append(w.leaves, leaf{path: path, value: t, str: true})
	case json.Number:
		w.leaves = append(w.leaves, leaf{path: path, value: t.String()})
	case bool:
		w.leaves = append(w.leaves, leaf{path: path, value: fmt.Sprint(t)})
	}
	return nil
}

// noteTime keeps the time a top-level field holds, if its key is one of
// timeKeys.
func (w *walker) noteTime(key string, l leaf) {
	for i, k := range timeKeys {
		if k != key || !w.times[i].IsZero() {
			continue
		}
		if l.str {
			w.times[i], _ = valueTime(l.value, w.mod)
		} else {
			w.times[i], _ = numberTime(l.value)
		}
	}
}

// eofIsUnexpected turns the io.EOF of a value cut short into the error it
// is.
func eofIsUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// builder builds a document's text from its records.
type builder struct {
	src     kg.Source
	fields  []string
	limit   int
	text    strings.Builder
	records []ingest.Record
	read    int // records read, with or without text
}

func newBuilder(src kg.Source, opt ingest.Options) *builder {
	return &builder{src: src, fields: opt.TextFields, limit: opt.Limits.WithDefaults().MaxRecords}
}

// add appends a record's lines to the text, a blank line after the record
// before, and skips a record without text.
func (b *builder) add(r record) error {
	b.read++
	lines := textLines(r.leaves, b.fields)
	if len(lines) == 0 {
		return nil
	}
	if len(b.records) == b.limit {
		return tooMany(b.src, b.limit)
	}
	if b.text.Len() > 0 {
		b.text.WriteByte('\n')
	}
	start := b.text.Len()
	b.text.WriteString(strings.Join(lines, "\n"))
	b.records = append(b.records, ingest.Record{Span: kg.Span{Start: start, End: b.text.Len()}, Time: r.time})
	b.text.WriteByte('\n')
	return nil
}

func (b *builder) document() (ingest.Document, error) {
	if len(b.records) == 0 {
		switch {
		case b.read == 0:
			return ingest.Document{}, rejectf(b.src, "no records")
		case len(b.fields) > 0:
			return ingest.Document{}, rejectf(b.src, "no record has a text field of %s (%d read; check text_fields in the pipeline file)", strings.Join(b.fields, ", "), b.read)
		default:
			return ingest.Document{}, rejectf(b.src, "no record has a string value (%d read; set text_fields in the pipeline file)", b.read)
		}
	}
	text := b.text.String()
	return ingest.Document{
		Source:   b.src,
		Text:     text,
		Sections: []ingest.Section{{Span: kg.Span{End: len(text)}}},
		Records:  b.records,
	}, nil
}

// textLines returns the lines a record's leaves give: the values of the
// text fields, in the order of fields, or every string value when fields
// is empty.
func textLines(leaves []leaf, fields []string) []string {
	var lines []string
	add := func(l leaf, bare bool) {
		v := cleanValue(l.value)
		switch {
		case v == "":
		case bare || l.path == "":
			lines = append(lines, v)
		default:
			lines = append(lines, strings.Map(dropControl, l.path)+": "+v)
		}
	}
	if len(fields) == 0 {
		for _, l := range leaves {
			if l.str {
				add(l, false)
			}
		}
		return lines
	}
	taken := make([]bool, len(leaves))
	for _, f := range fields {
		for i, l := range leaves {
			if taken[i] || (l.path != f && !strings.HasPrefix(l.path, f+".")) {
				continue
			}
			taken[i] = true
			add(l, len(fields) == 1 && l.path == f)
		}
	}
	return lines
}

// cleanValue trims a value and drops the control characters a JSON escape
// may hold, but keeps its line breaks and tabs.
func cleanValue(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

// dropControl drops every control character of a key, line breaks too, so
// that a path stays on its line.
func dropControl(r rune) rune {
	if r < 0x20 || r == 0x7f {
		return -1
	}
	return r
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f
}
