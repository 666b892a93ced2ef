// Package pdf reads PDF sources for package ingest: importing it registers
// a reader for kg.KindPDF.
//
// Each page with text becomes one ingest.Section whose Page is the page's
// 1-based number; the pages' texts are joined with a blank line. A page's
// lines are rebuilt from the positions of its text runs, not taken in the
// order the file draws them: runs are grouped into rows by baseline, each row
// is read left to right, and a space goes between two runs only where the
// page leaves a gap, so words split across runs stay whole. The text is not
// the file's own bytes, so Document.Verbatim is false.
//
// A PDF whose pages have no text at all (a scan without OCR) is rejected
// with ErrNoTextLayer, an encrypted one with ErrEncrypted, and a corrupt,
// truncated or oversized one (more than MaxPages pages, text beyond
// Limits.MaxTextBytes, a content stream that expands past 64 MiB or
// streams past 1 GiB in all) with the reason. Every rejection wraps
// kg.ErrRejected; a cancelled ctx returns its error instead. The parser, github.com/ledongthuc/pdf, panics on some
// malformed files; Read turns such a panic into a rejection of that source.
//
// Limits: text inside form XObjects is read, but multi-column pages are read
// row by row across the columns, and fonts with neither widths nor a known
// standard name get estimated glyph widths, so the spaces between their
// runs are a guess.
package pdf
