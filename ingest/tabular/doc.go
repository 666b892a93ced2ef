// Package tabular loads delimited text (CSV, TSV) and Parquet files into the
// build's DuckDB with DuckDB's own readers.
package tabular
