package records

import (
	"context"
	"regexp"
	"strings"
	"time"

	"kgforge/ingest"
	"kgforge/kg"
)

func init() {
	ingest.Register(kg.KindLog, logReader{})
	ingest.Register(kg.KindJSONL, jsonlReader{})
	ingest.Register(kg.KindJSON, jsonReader{})
}

type logReader struct{}

var _ ingest.Reader = logReader{}

// Read keeps the log's text as it is and cuts it into records: one per
// non-blank line, or one per line that matches opt.RecordStart with the
// lines that follow it. Each record gets the time its first line starts
// with.
func (logReader) Read(ctx context.Context, src kg.Source, data []byte, opt ingest.Options) (ingest.Document, error) {
	if err := checkText(src, data); err != nil {
		return ingest.Document{}, err
	}
	var start *regexp.Regexp
	if opt.RecordStart != "" {
		re, err := regexp.Compile(opt.RecordStart)
		if err != nil {
			return ingest.Document{}, rejectf(src, "record_start %q is not a valid regular expression: %v (fix it in the pipeline file)", opt.RecordStart, err)
		}
		start = re
	}
	stamp := func(line string) (time.Time, bool) {
		t, _, ok := leadingTime(line, src.Modified)
		return t, ok
	}
	if opt.TimeLayout != "" {
		stamp = func(line string) (time.Time, bool) {
			t, _, ok := layoutTime(opt.TimeLayout, line, src.Modified)
			return t, ok
		}
	}
	limit := opt.Limits.WithDefaults().MaxRecords
	text := normalizeNewlines(string(data))

	var (
		records []ingest.Record
		open    = -1 // start of the record being read; -1 before the first
		first   string
		last    int // end of the record's last non-blank line
	)
	closeRecord := func() {
		if open < 0 {
			return
		}
		r := ingest.Record{Span: kg.Span{Start: open, End: last}}
		if t, ok := stamp(first); ok {
			r.Time = t
		}
		records = append(records, r)
	}
	for pos, n := 0, 0; pos < len(text); n++ {
		if n%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return ingest.Document{}, err
			}
		}
		lineEnd := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			lineEnd = pos + i
		}
		line := text[pos:lineEnd]
		if strings.TrimSpace(line) != "" {
			if open < 0 || start == nil || start.MatchString(line) {
				closeRecord()
				if len(records) == limit {
					return ingest.Document{}, tooMany(src, limit)
				}
				open, first = pos, line
			}
			last = lineEnd
		}
		pos = lineEnd + 1
	}
	closeRecord()
	if len(records) == 0 {
		return ingest.Document{}, rejectf(src, "no records: the file holds only blank lines")
	}
	return ingest.Document{
		Source:   src,
		Text:     text,
		Sections: []ingest.Section{{Span: kg.Span{End: len(text)}}},
		Verbatim: true,
		Records:  records,
	}, nil
}
