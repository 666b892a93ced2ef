// Package link is the link step of consolidate: it connects the semantic
// layer (entities and concepts) to the data layer (tables, columns, rows).
//
//   - Row entities: tables that describe things (a key and a name-like
//     column) give one entity node per row, typed by the table, with ROW_OF
//     to the table and its key; foreign keys between such tables become
//     edges between row entities (rows.go).
//   - Dictionary mentions: every name of a row entity is searched in every
//     chunk in one multi-pattern pass; a hit is a mention with its exact span
//     (dict.go).
//   - Concept links: REPRESENTED_BY (concept → table) and MEASURED_BY
//     (quantity, KPI or rule → column), scored from names, embeddings and
//     value overlap, banded like merges (concepts.go, conceptscore.go,
//     conceptnames.go).
//   - Stated rules: a sentence of a document with a rule marker that names
//     columns of a table becomes a Rule node with MEASURED_BY to them
//     (conceptrules.go).
//
// Every candidate is a kg.Link in the link log, linked or not; experts'
// decisions (Overrides) apply first. The functions here are plain functions
// from inputs to outputs; consolidate.Build calls them.
package link
