// Package bundle is the one place that knows the layout of a kgforge bundle
// (format v1, specified in docs/bundle.md): it writes a bundle into a
// temporary directory beside its destination and renames it into place only
// when whole, and it opens and verifies bundles, refusing a wrong format
// version, a missing file, a checksum mismatch, a path that escapes the
// bundle, or any entry of the bundle directory the manifest does not list.
//
// The manifest records a logical digest of every data table (format 1.3):
// Bundle.VerifyTables recomputes them, and Compare tells two bundles apart
// by content although the bytes of their DuckDB files differ.
//
// The link log (format 1.4) is links.parquet, read back by Bundle.Links,
// and link_report.md beside merge_report.md.
//
// Vector sets are Arrow IPC files that Bundle.Vectors memory-maps. Pack
// writes a bundle as one .tar archive, which Open accepts as well as a
// directory: it extracts it into a private temporary directory under strict
// rules (no links, no path outside the one top directory, every entry
// listed in the manifest with its size) and verifies it as a directory.
//
// It is the only package that imports arrow-go, its Parquet writer and its
// IPC format.
package bundle
