// Package xlsx reads xlsx sources for package ingest (see its doc).
package xlsx
