package records

import (
	"kgforge/ingest"
	"kgforge/kg"
)

// rejectf returns the error that refuses src alone, for the reason format
// and args say.
func rejectf(src kg.Source, format string, args ...any) error {
	return ingest.Rejectf(src.URI, format, args...)
}

func checkText(src kg.Source, data []byte) error { return ingest.CheckText(src, data) }

func normalizeNewlines(s string) string { return ingest.NormalizeNewlines(s) }

// tooMany is the reason a source with more than limit records is refused.
func tooMany(src kg.Source, limit int) error {
	return rejectf(src, "more than %d records (raise limits.max_records in the pipeline file, or split the file)", limit)
}

// ctxEvery is how many records a reader reads between looks at its context.
const ctxEvery = 4096
