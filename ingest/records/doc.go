// Package records reads the record-shaped text sources of package ingest:
// logs (kind log), JSON Lines (kind jsonl) and JSON documents (kind json).
// Importing it registers a reader for each of the three kinds.
//
// Every reader fills ingest.Document.Records, the units the chunker packs
// whole, and gives each record the time it carries, so chunks of a log get a
// time range.
//
// # Logs
//
// A log's text is the file's own text (byte order mark dropped, CRLF made
// LF) and the document is Verbatim, so the chunker's line numbers are the
// file's. Each non-blank line is a record, unless the source sets
// record_start (Options.RecordStart): then a record starts at each line the
// expression matches and the lines after it (a stack trace, a wrapped
// message) belong to it; lines before the first match form a record of their
// own. A record's span covers its lines without the final newline and
// without trailing blank lines.
//
// A record's time is the timestamp at the start of its first line. With
// time_layout (Options.TimeLayout) it is parsed with that Go layout;
// otherwise these forms are recognised, and only at the start of the line,
// so a date inside a message is never taken for the record's time:
//
//	2024-03-01T10:15:00Z, 2024-03-01 10:15:00,123 +0100, 2024/03/01 10:15:00  (RFC 3339, ISO 8601, Go's log package; optionally in brackets)
//	Mar  1 10:15:00                                                          (syslog; the year is taken from the file's modification time)
//	[01/Mar/2024:10:15:00 +0000], host - user [01/Mar/2024:10:15:00 +0000]    (Apache and NCSA common log format)
//	[Fri Mar 01 10:15:00.123 2024]                                           (Apache error log)
//	1709288100, 1709288100.5, 1709288100500                                  (Unix seconds, 10 digits, or milliseconds, 13, as the first field)
//
// A timestamp without a zone is taken as UTC, and every time is returned in
// UTC. A year-less timestamp gets the year of the file's modification time,
// or the year before when that would put it more than a day after the file
// was last written (a log that spans New Year); with no modification time it
// has no time at all.
//
// # JSON and JSON Lines
//
// A JSON Lines file holds one JSON value per line; blank lines are skipped.
// A JSON file holds one value: an array, whose elements are the records, or
// any other value, which is one record. Neither is kept as it is: the
// document's text is built from the records, one block of lines per record
// and a blank line between records, and is not Verbatim.
//
// The lines of a record come from its text fields (text_fields,
// Options.TextFields): dotted paths such as "subject" or "details.note",
// written without array indexes, so "items.name" collects the name of every
// element of items. A path that names an object takes every value under it.
// Fields are taken in the order the pipeline lists them and their values in
// document order; each becomes the line "path: value", or just "value" when
// exactly one field is set and the value sits at that path. Without
// text_fields every string value of the record becomes a "path: value" line,
// in document order. A record with none of the fields is skipped.
//
// A record's time is the first of its top-level fields "timestamp", "time",
// "ts" and "@timestamp" that holds one: a string that is wholly a timestamp
// of a form above or a date (2006-01-02), or a number of Unix seconds,
// milliseconds, microseconds or nanoseconds, told apart by its size.
//
// JSON is read as a stream of tokens, one record at a time: no tree of the
// document is built, and only the values of the record being read are held
// besides the text.
//
// # Rejects
//
// Errors that wrap kg.ErrRejected refuse one source: an empty, binary or
// non-UTF-8 file (wrapping ingest.ErrNotText for the last two), an invalid
// record_start expression, more records than limits.max_records, no record
// with any text, and invalid JSON, named by its line and column. A JSON
// Lines file with one bad line is refused whole rather than read in part,
// so a build never drops data without saying so.
package records
