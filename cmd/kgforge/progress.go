package main

import (
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressBar shows extraction progress on a terminal: the total grows as
// ingest cuts chunks, the count as extraction finishes them.
type progressBar struct{ bar *progressbar.ProgressBar }

// newProgressBar returns a bar on stderr, or nil when stderr is not a
// terminal (a scheduler's log should not fill with redraws).
func newProgressBar() *progressBar {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &progressBar{bar: progressbar.NewOptions(0,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("extract"),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progressBar) Queued() { p.bar.AddMax(1) }
func (p *progressBar) Done()   { _ = p.bar.Add(1) } // a failed redraw must not fail the build
func (p *progressBar) finish() { _ = p.bar.Finish() }
