package duck

// What is wrong with a file DuckDB cannot read, in words a user can act on:
// DuckDB's own messages speak of its decoders ("don't know what type",
// "Out of buffer"), not of the file.

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// parquetError gives an *InputError of read_parquet a reason that says
// what is wrong with the file, and keeps DuckDB's message as its detail.
// Whether the footer (the file's metadata, at its end) or the data is at
// fault is told by reading the footer alone, since DuckDB's messages from
// its Thrift decoder are the same for both. Other errors come back
// unchanged.
func parquetError(ctx context.Context, db *sql.DB, path string, err error) error {
	ie, ok := errors.AsType[*InputError](err)
	if !ok {
		return err
	}
	ie.Detail = ie.Reason
	switch {
	case strings.Contains(ie.Detail, "too small to be a Parquet file"):
		ie.Reason = "not a Parquet file: it is empty or too short to hold one"
	case strings.Contains(ie.Detail, "No magic bytes found at end of file"):
		ie.Reason = "not a Parquet file, or one cut short: it does not end with Parquet's magic bytes PAR1"
	case footerReadable(ctx, db, path):
		ie.Reason = "not a readable Parquet file: its footer reads but its data does not (a corrupt page, or an encoding DuckDB cannot read)"
	default:
		ie.Reason = "not a readable Parquet file: its footer is corrupt or the file is truncated"
	}
	return ie
}

// footerReadable reports whether DuckDB can decode the footer of the
// Parquet file at path.
func footerReadable(ctx context.Context, db *sql.DB, path string) bool {
	var n int64
	return db.QueryRowContext(ctx, "SELECT count(*) FROM parquet_file_metadata("+QuoteString(path)+")").Scan(&n) == nil
}

// databaseFileError turns err, met attaching or reading the DuckDB database
// file at path, into an *InputError when DuckDB blames the file: it is no
// DuckDB database, is truncated, fails a checksum, was written by a DuckDB
// this one cannot read, or is locked by a writer. The reason says so in
// words and the detail keeps DuckDB's message. Other errors (the build's
// own database, a cancelled context) come back unchanged.
func databaseFileError(ctx context.Context, path string, err error) error {
	var de *duckdb.Error
	if ctx.Err() != nil || !errors.As(err, &de) {
		return err
	}
	msg := condense(de.Msg)
	reason := ""
	switch {
	case strings.Contains(msg, "not a valid DuckDB database file"):
		reason = "not a DuckDB database file: it does not start with DuckDB's header"
	case strings.Contains(msg, "Could not read enough bytes from file") && strings.Contains(msg, path):
		reason = "not a readable DuckDB database file: it is truncated (it lists blocks past its end)"
	case strings.Contains(msg, "Corrupt database file"):
		reason = "not a readable DuckDB database file: it is corrupt (a block fails its checksum)"
	case strings.Contains(msg, "version number"), strings.Contains(msg, "newer version of DuckDB"), strings.Contains(msg, "older version of DuckDB"):
		reason = "written by a DuckDB version this kgforge cannot read; export it with that version (EXPORT DATABASE) or to Parquet"
	case strings.Contains(msg, "Could not set lock on file"):
		reason = "locked by a process that writes it; stop the writer or load a copy of the file"
	case de.Type == duckdb.ErrorTypeIO && strings.Contains(msg, path):
		reason = "not a readable DuckDB database file"
	default:
		return err
	}
	return &InputError{Path: path, Reason: reason, Detail: msg, Err: err}
}
