package main

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"kgforge/stages"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is how a build shows extraction as it goes: a live bar on a
// terminal, or a log line per interval for a scheduler. Never both: with
// the bar, log lines go through its writer, which clears the bar first.
type progress interface {
	stages.Progress
	finish()
}

// newProgress picks the display for stderr: a bar when it is a terminal,
// else a progress log line every interval (0: none).
func newProgress(log *slog.Logger, interval time.Duration, tty bool) progress {
	if tty {
		return newProgressBar()
	}
	if interval <= 0 {
		return nil
	}
	return newProgressLog(log, interval, time.Now)
}

func stderrIsTerminal() bool { return term.IsTerminal(int(os.Stderr.Fd())) }

// progressBar shows extraction on a terminal: count, rate and time left;
// the total is the chunks expected from the sources done so far, the count
// grows as extraction finishes them.
type progressBar struct {
	stages.ProgressCounts
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func newProgressBar() *progressBar {
	return &progressBar{bar: progressbar.NewOptions(0,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("extract"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("chunks"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// a failed redraw must not fail the build: the bar's errors are dropped.
func (p *progressBar) SourceDone() { p.ProgressCounts.SourceDone(); p.resize() }
func (p *progressBar) Queued()     { p.ProgressCounts.Queued(); p.resize() }
func (p *progressBar) Done()       { p.ProgressCounts.Done(); p.mu.Lock(); _ = p.bar.Add(1); p.mu.Unlock() }
func (p *progressBar) finish()     { p.mu.Lock(); _ = p.bar.Finish(); p.mu.Unlock() }

// resize sets the bar's total to the chunks the build is expected to
// send, so that its time left is the build's, not the queue's.
func (p *progressBar) resize() {
	p.mu.Lock()
	p.bar.ChangeMax64(p.Counts().ExpectedChunks())
	p.mu.Unlock()
}

// Write writes a log line above the bar: the bar's line is cleared, the
// line written, and the bar drawn again below it.
func (p *progressBar) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Clear()
	n, err := os.Stderr.Write(b)
	_ = p.bar.RenderBlank()
	return n, err
}

var _ io.Writer = (*progressBar)(nil)

// progressLog logs a progress line for the extract stage every interval:
// chunks done of queued, sources done of planned, the rate over the last
// rateWindow, and the time left at that rate for the chunks expected.
type progressLog struct {
	stages.ProgressCounts
	log     *slog.Logger
	now     func() time.Time
	start   time.Time
	seen    []sample // chunks done at the start and at each report since rateWindow ago; report's alone
	stop    chan struct{}
	stopped sync.WaitGroup
}

// rateWindow is how far back the progress line's rate looks. A resumed
// build counts hundreds of reused chunks as done in its first seconds; a
// rate since the start would promise it minutes where hours are left.
const rateWindow = 5 * time.Minute

// sample is the chunks done at one moment.
type sample struct {
	at   time.Time
	done int64
}

func newProgressLog(log *slog.Logger, interval time.Duration, now func() time.Time) *progressLog {
	start := now()
	p := &progressLog{log: log, now: now, start: start, seen: []sample{{at: start}}, stop: make(chan struct{})}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if p.Counts().Queued > 0 {
					p.report()
				}
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// finish stops the ticker; the build's own lines say how it ended.
func (p *progressLog) finish() {
	close(p.stop)
	p.stopped.Wait()
}

// report logs one progress line.
func (p *progressLog) report() {
	c := p.Counts()
	now := p.now()
	elapsed := now.Sub(p.start)
	attrs := []any{
		"stage", "extract", "done", c.Done, "queued", c.Queued,
		"sources_done", c.SourcesDone, "sources", c.Sources, "elapsed_s", int64(elapsed.Seconds()),
	}
	rate := p.rate(now, c.Done)
	if c.Done > 0 && elapsed > 0 {
		attrs = append(attrs, "rate_per_s", float64(int(rate*100))/100)
		if left := c.ExpectedChunks() - c.Done; left > 0 && rate > 0 {
			attrs = append(attrs, "eta_s", int64(float64(left)/rate))
		}
	}
	p.log.Info("progress", attrs...)
}

// rate is the chunks done a second over the last rateWindow (since the
// start within the first): from the newest sample at least rateWindow
// old, or the oldest, to now. Zero when nothing finished in the window.
func (p *progressLog) rate(now time.Time, done int64) float64 {
	p.seen = append(p.seen, sample{at: now, done: done})
	for len(p.seen) > 2 && now.Sub(p.seen[1].at) >= rateWindow {
		p.seen = p.seen[1:]
	}
	from := p.seen[0]
	if dt := now.Sub(from.at).Seconds(); dt > 0 {
		return float64(done-from.done) / dt
	}
	return 0
}

// logSink is the writer of every log line: stderr, or the bar's writer
// while a bar is shown, so that a line never lands inside the bar.
type logSink struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *logSink) Write(b []byte) (int, error) {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	return w.Write(b)
}

// set makes w the writer of the log lines.
func (s *logSink) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}
