// Package sqldb loads the tables of databases into the build's DuckDB: SQLite
// and DuckDB files, and PostgreSQL servers. It registers one
// ingest.TableLoader for each of kg.KindSQLite, kg.KindDuckDB and
// kg.KindPostgres in init; blank-import it (ingest/all does) to use them.
//
// Every loader loads the tables named in Options.Tables, or, when it is
// empty, every user table of the database, in the order of their names. Each
// becomes the DuckDB table named by TableInput.Name for the source's base
// name and the table's name joined by "_" ("erp" and "suppliers":
// erp_suppliers), with the table's name in the source as Loaded.Origin. A
// named table that does not exist rejects the source, and the error lists
// the tables there are. A loader that fails drops the tables it made.
//
// SQLite: the file is opened read-only and immutable (SQLite neither writes
// nor locks it), or only read-only when a write-ahead log (FILE-wal) lies
// beside it, which SQLite must read. A column's DuckDB type follows SQLite's affinity rules for
// its declared type (INT: BIGINT; CHAR, CLOB, TEXT: VARCHAR; BLOB: BLOB;
// REAL, FLOA, DOUB: DOUBLE; BOOL: BOOLEAN; DATE: DATE; DATETIME, TIMESTAMP:
// TIMESTAMP; other numeric types: DOUBLE; none: what the values are).
// SQLite does not enforce declared types, so a first pass counts the values
// of each storage class (typeof) and a column whose values do not all fit
// its declared type is loaded as the narrowest type that holds them — an
// INTEGER column with reals as DOUBLE, anything with text as VARCHAR — with
// a warning. Rows are then streamed through DuckDB's Appender. Views are
// loaded when named, never by default.
//
// DuckDB: the file is attached read-only to the build's database under an
// alias of its own and each table is copied with CREATE TABLE … AS SELECT,
// DuckDB's engine end to end; the file is detached however the load ends.
// Tables of schema main are named by their name, others as schema.table.
// A file DuckDB cannot read rejects the source with what is wrong in words,
// then DuckDB's message in parentheses: not a DuckDB database file (its
// header is not DuckDB's), truncated, corrupt (a block fails its checksum),
// written by a DuckDB version this one cannot read, or locked by a writer.
//
// PostgreSQL: Options.DSN is the connection string; it is never shown, and
// its password is masked in every error. Everything is read in one READ ONLY
// REPEATABLE READ transaction (one snapshot for all tables), each statement
// bounded by a statement timeout (10 minutes) and a lock timeout (30
// seconds). Options.Query, when set, is loaded as one table named after the
// source; otherwise Options.Tables are "schema.table" or "table" (schema
// public), and the default is every table the user may
// read in a schema that is not PostgreSQL's own (pg_*, information_schema);
// views, materialized views, foreign tables and partitions only by name.
// Column types come from the result's field types: smallint and integer:
// INTEGER; bigint: BIGINT; real and double precision: DOUBLE; numeric(p,s)
// with p <= 38: DECIMAL(p,s), exact; numeric without a precision (what
// sum() and avg() return) or wider: DOUBLE; boolean: BOOLEAN; date: DATE;
// timestamp: TIMESTAMP; timestamptz: TIMESTAMPTZ; bytea: BLOB; text, char,
// varchar, uuid, json, jsonb, arrays and every other type: VARCHAR, in
// PostgreSQL's text form. Infinite dates and timestamps are loaded as NULL,
// with a warning. Rows are streamed through DuckDB's Appender.
//
// An SQLite file that is empty, is not an SQLite database (its header is
// not SQLite's) or is corrupt or truncated is rejected in those words, with
// SQLite's message in parentheses. A database that cannot be opened or
// reached, a missing table, a query that fails: each rejects that source
// alone (kg.ErrRejected). A cancelled
// build is not a rejection: the context's error is returned.
package sqldb
