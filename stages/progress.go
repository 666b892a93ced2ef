package stages

import "sync/atomic"

// ProgressCounts is a Progress that counts what it hears, safe for
// concurrent use: the displays (a terminal bar, log lines, a Temporal
// heartbeat) embed it and read Counts when they show progress.
type ProgressCounts struct {
	queued, done, sourcesDone, sources atomic.Int64
}

// Sources is Progress's: the source units this run plans.
func (c *ProgressCounts) Sources(n int) { c.sources.Store(int64(n)) }

// SourceDone is Progress's: a source unit is read (or reused) and its
// chunks queued.
func (c *ProgressCounts) SourceDone() { c.sourcesDone.Add(1) }

// Queued is Progress's: a chunk is sent to extraction.
func (c *ProgressCounts) Queued() { c.queued.Add(1) }

// Done is Progress's: a chunk's extraction ended.
func (c *ProgressCounts) Done() { c.done.Add(1) }

// Counts is what a ProgressCounts has heard so far.
func (c *ProgressCounts) Counts() Counts {
	return Counts{Queued: c.queued.Load(), Done: c.done.Load(), SourcesDone: c.sourcesDone.Load(), Sources: c.sources.Load()}
}

// Counts are a build's progress at one moment: chunks queued for and done
// by extraction, source units done of those planned.
type Counts struct {
	Queued, Done, SourcesDone, Sources int64
}

// ExpectedChunks is how many chunks the build will send to extraction,
// from those the sources done so far queued: ingest waits on extraction,
// so the queue alone would make the time left look minutes long in a
// build of hours. Exact once every source is done.
func (c Counts) ExpectedChunks() int64 {
	if c.SourcesDone <= 0 || c.SourcesDone >= c.Sources {
		return c.Queued
	}
	return max(c.Queued, c.Queued*c.Sources/c.SourcesDone)
}
