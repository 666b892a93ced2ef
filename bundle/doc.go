// Package bundle is the one place that knows the layout of a kgforge bundle
// (format v1, specified in docs/bundle.md): it writes a bundle into a
// temporary directory beside its destination and renames it into place only
// when whole, and it opens and verifies bundles, refusing a wrong format
// version, a missing file, a checksum mismatch or a path that escapes the
// bundle.
//
// It is the only package that imports arrow-go and its Parquet writer.
package bundle
