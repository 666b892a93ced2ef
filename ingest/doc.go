// Package ingest discovers the sources a pipeline names, reads each by its
// kind and emits either documents cut into chunks with exact provenance
// (text-like sources) or profiled DuckDB tables (table-like sources).
//
// Readers register by kind with Register, like database/sql drivers. Every
// file is opened through an os.Root, so nothing can make a build read outside
// the directory its pipeline names (no "..", no escaping symlinks).
package ingest
