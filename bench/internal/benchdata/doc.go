// Package benchdata finds the shared benchmark data (../shared/benchmarks
// beside the repository, or $KGFORGE_BENCHMARKS) for the tests of bench's
// commands, and skips a test when the part it needs is not there.
package benchdata
