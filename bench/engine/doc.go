// Command engine measures what the stage engine reuses: it writes a
// synthetic corpus of Markdown documents and CSV tables, builds it with the
// kgforge binary (extract.skip, so no model is asked and the figures are
// the engine's own), then builds it again unchanged, with one document
// changed, and with one document deleted. For each build it prints the
// wall time, the peak memory of the process, the sources read and the
// units run and reused, from the run report.
//
//	go run ./bench/engine -docs 300
package main
