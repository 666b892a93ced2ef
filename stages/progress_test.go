package stages

import "testing"

func TestCounts_ExpectedChunks(t *testing.T) {
	for _, c := range []struct{ queued, done, sources, want int64 }{
		{0, 0, 0, 0},  // nothing planned
		{5, 0, 10, 5}, // no source done yet: the queue is all that is known
		{12, 10, 1000, 1200},
		{7, 10, 10, 7},     // every source done: exact
		{3, 2, 2000, 3000}, // sources that queue nothing (reused, tables) pull it down as they finish
	} {
		got := Counts{Queued: c.queued, SourcesDone: c.done, Sources: c.sources}.ExpectedChunks()
		if got != c.want {
			t.Errorf("ExpectedChunks: %d queued, %d of %d sources done = %d, want %d", c.queued, c.done, c.sources, got, c.want)
		}
	}
}

func TestProgressCounts_CountsWhatItHears(t *testing.T) {
	var p ProgressCounts
	p.Sources(3)
	for range 2 {
		p.SourceDone()
	}
	for range 5 {
		p.Queued()
	}
	p.Done()
	if got, want := p.Counts(), (Counts{Queued: 5, Done: 1, SourcesDone: 2, Sources: 3}); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}
