// Package html reads html sources for package ingest (see its doc).
package html
