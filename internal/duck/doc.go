// Package duck is kgforge's one importer of github.com/duckdb/duckdb-go: it
// opens DuckDB with kgforge's settings, opens the read-only sandbox the query
// agent uses, bulk-loads files with DuckDB's own readers and quotes
// identifiers. Everything else speaks database/sql to what it returns.
//
// It is a leaf: it imports nothing of kgforge.
package duck
