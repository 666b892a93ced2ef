// Package stages is the engine that runs a pipeline. A build is a plan of
// units: one per source (read and cut a document, or load and profile a
// table source into a DuckDB file of its own), one per batch of a
// document's chunks (extract), then the global steps (resolve and link,
// bundle, load). Each unit writes a segment under the content address of
// its inputs (source digest, options, prompt version, model digest, the
// code's digest) in the state directory beside the bundles (StateDir); a
// build reuses every segment whose address it finds, so an unchanged
// source is not even opened, a changed one is redone, a deleted one drops
// out, and a killed build resumes where it stopped.
//
// The stage packages hold the logic as plain functions; this package owns
// the scheduling (a pool for source units, as many extract workers as the
// LLM server has slots), every channel, cancellation on the first fatal
// error, the state directory (segments renamed into place whole, the file
// index, build records, retention and collection of segments), the
// content-addressed LLM caches, and the run report.
//
// Item-level failures (errors wrapping kg.ErrRejected) are counted and
// recorded in the report, and kept in their unit's segment so an unchanged
// bad item is not retried; the run goes on and ends with StatusPartial.
package stages
