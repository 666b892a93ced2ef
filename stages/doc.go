// Package stages runs a pipeline: it wires ingest, extract, consolidate,
// bundle and load together, owns every channel and worker pool, cancels the
// whole run on the first fatal error, keeps the content-addressed cache that
// makes re-runs pay only for what changed, and writes the run report.
//
// Item-level failures (errors wrapping kg.ErrRejected) are counted and
// recorded in the report; the run goes on and ends with StatusPartial.
package stages
