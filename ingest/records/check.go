package records

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"kgforge/ingest"
	"kgforge/kg"
)

// rejectf returns the error that refuses src alone, for the reason format
// and args say.
func rejectf(src kg.Source, format string, args ...any) error {
	return fmt.Errorf("source %s: %w: %s", src.URI, kg.ErrRejected, fmt.Sprintf(format, args...))
}

// checkText rejects data that is empty, binary or not UTF-8, as package
// ingest does for its own text readers.
func checkText(src kg.Source, data []byte) error {
	if len(data) == 0 {
		return rejectf(src, "empty file")
	}
	if slices.Contains(data[:min(len(data), 8192)], 0) {
		return fmt.Errorf("source %s: %w: %w: binary content (NUL bytes)", src.URI, kg.ErrRejected, ingest.ErrNotText)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("source %s: %w: %w: invalid UTF-8 at byte %d (wrongly encoded; convert it to UTF-8)", src.URI, kg.ErrRejected, ingest.ErrNotText, invalidAt(data))
	}
	return nil
}

func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, w := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && w == 1 {
			return i
		}
		i += w
	}
	return -1
}

// normalizeNewlines drops a byte order mark and turns CRLF into LF, as
// package ingest does, so a log's lines are the file's lines.
func normalizeNewlines(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// tooMany is the reason a source with more than limit records is refused.
func tooMany(src kg.Source, limit int) error {
	return rejectf(src, "more than %d records (raise limits.max_records in the pipeline file, or split the file)", limit)
}

// ctxEvery is how many records a reader reads between looks at its context.
const ctxEvery = 4096
