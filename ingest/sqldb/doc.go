// Package sqldb reads sqldb sources for package ingest (see its doc).
package sqldb
