// Package pdf reads pdf sources for package ingest (see its doc).
package pdf
