// Package docx reads docx sources for package ingest (see its doc).
package docx
