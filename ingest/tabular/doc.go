// Package tabular loads delimited text (CSV, TSV and the like) and Parquet
// files into the build's DuckDB with DuckDB's own readers, in bulk.
//
// A delimited file's encoding is told in Go before DuckDB reads it (Sniff):
// UTF-8 with or without a byte-order mark, UTF-16 by its mark or its NUL
// bytes, and Windows-1252 (Latin-1) for a file that is not valid UTF-8.
// Files DuckDB cannot read in their encoding are transcoded to a temporary
// UTF-8 copy, streaming. DuckDB's sniffer detects the delimiter, quoting,
// header and column types. Rows DuckDB cannot parse (too many or too few
// fields) are skipped and named, with their line in the file, in the
// table's warnings; a column whose values outgrow the type sniffed from a
// sample is read as VARCHAR rather than losing rows. An empty, blank or
// binary file, or one whose every row is skipped, is rejected.
//
// A Parquet file DuckDB cannot read is rejected with what is wrong in
// words, then DuckDB's message in parentheses: empty or too short; not
// ending with the magic bytes PAR1 (not Parquet, or cut short); a footer
// that does not decode (corrupt, or the file truncated); or a footer that
// decodes over data that does not (told apart by reading the footer alone).
package tabular
