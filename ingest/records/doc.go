// Package records reads records sources for package ingest (see its doc).
package records
