// Package sqlqa holds what the benchmark commands share about the
// text-to-SQL dev sets (Spider, KaggleDBQA): reading their examples,
// building one bundle per database with kgforge's own build (extraction
// skipped unless asked), and running gold SQL over a built bundle with
// the database's table names rewritten to the bundle's.
package sqlqa
