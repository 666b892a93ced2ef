package benchdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns where the benchmark data lives: $KGFORGE_BENCHMARKS, or
// ../shared/benchmarks beside the repository as a test of a bench
// command (run in bench/NAME) sees it.
func Dir() string {
	if d := os.Getenv("KGFORGE_BENCHMARKS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "benchmarks")
}

// Require returns Dir and skips t when want, a path inside it, is not
// there.
func Require(t testing.TB, want string) string {
	t.Helper()
	dir := Dir()
	if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
		t.Skipf("no %s in the benchmark data at %s (set KGFORGE_BENCHMARKS)", want, dir)
	}
	return dir
}
