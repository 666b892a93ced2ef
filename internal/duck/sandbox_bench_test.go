package duck

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSandbox_RunawayStop measures how long after its start a runaway
// cross join (10^14 pairs, a small right side so that it runs on CPU and not
// into the memory limit) returns, for the default time limit and shorter
// ones: stop-ms is what a caller waits, late-ms how much of it is past the
// limit.
//
//	go test -run '^$' -bench Sandbox_RunawayStop -benchtime 1x ./internal/duck
func BenchmarkSandbox_RunawayStop(b *testing.B) {
	for _, timeout := range []time.Duration{time.Second, 5 * time.Second, DefaultQueryTimeout} {
		b.Run(timeout.String(), func(b *testing.B) {
			sb := openBenchSandbox(b, SandboxLimits{Timeout: timeout})
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				_, _, _, err := sb.Query(context.Background(),
					"SELECT sum(a.range + b.range) FROM range(1000000000) a, range(100000) b", 1)
				total += time.Since(start)
				if !errors.Is(err, ErrTimeLimit) {
					b.Fatalf("err = %v, want ErrTimeLimit", err)
				}
			}
			stop := total / time.Duration(b.N)
			b.ReportMetric(float64(stop.Milliseconds()), "stop-ms")
			b.ReportMetric(float64((stop - timeout).Milliseconds()), "late-ms")
		})
	}
}

// BenchmarkSandbox_MemoryPeak measures the peak resident memory of the
// process (Linux's VmHWM, reset before each query) while a memory-hungry
// SELECT runs into the sandbox's memory limit: base-MiB is the resident
// memory before the query (Go, DuckDB's code and the sandbox), peak-MiB the
// highest while it ran.
//
//	go test -run '^$' -bench Sandbox_MemoryPeak -benchtime 1x ./internal/duck
func BenchmarkSandbox_MemoryPeak(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak resident memory: %v", err)
	}
	for _, limit := range []string{"256MiB", "1GiB"} {
		b.Run(limit, func(b *testing.B) {
			sb := openBenchSandbox(b, SandboxLimits{MemoryLimit: limit})
			var base, peak int64
			for b.Loop() {
				if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
					b.Fatal(err)
				}
				base = max(base, peakRSS(b))
				_, _, _, err := sb.Query(context.Background(),
					"SELECT count(DISTINCT 'key-' || range::VARCHAR) FROM range(400000000)", 1)
				if !errors.Is(err, ErrMemoryLimit) {
					b.Fatalf("err = %v, want ErrMemoryLimit", err)
				}
				peak = max(peak, peakRSS(b))
			}
			b.ReportMetric(float64(base>>20), "base-MiB")
			b.ReportMetric(float64(peak>>20), "peak-MiB")
		})
	}
}

func openBenchSandbox(b *testing.B, lim SandboxLimits) *Sandbox {
	b.Helper()
	dir := b.TempDir()
	db, err := Open(context.Background(), dir+"/data.duckdb", Settings{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE orders AS SELECT range AS id FROM range(5)"); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	sb, err := OpenSandbox(context.Background(), dir, "data.duckdb", nil, lim)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sb.Close() })
	return sb
}

// peakRSS returns VmHWM of this process in bytes.
func peakRSS(b *testing.B) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// BenchmarkSandbox_Open measures what opening costs for a bundle whose
// chunks.parquet holds 200,000 chunks of 1 KiB: the Parquet files are loaded
// into memory (table-MiB of the memory limit) before the file system is
// turned off.
//
//	go test -run '^$' -bench Sandbox_Open -benchtime 3x ./internal/duck
func BenchmarkSandbox_Open(b *testing.B) {
	dir := b.TempDir()
	db, err := Open(context.Background(), dir+"/data.duckdb", Settings{})
	if err != nil {
		b.Fatal(err)
	}
	q := "COPY (SELECT 'c' || range AS id, repeat(md5(range::VARCHAR), 32) AS text FROM range(200000)) TO " +
		QuoteString(dir+"/chunks.parquet") + " (FORMAT parquet)"
	if _, err := db.Exec(q); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(dir + "/chunks.parquet")
	if err != nil {
		b.Fatal(err)
	}
	var table int64
	for b.Loop() {
		sb, err := OpenSandbox(context.Background(), dir, "data.duckdb", map[string]string{"chunks": "chunks.parquet"}, SandboxLimits{})
		if err != nil {
			b.Fatal(err)
		}
		_, rows, _, err := sb.Query(context.Background(), "SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'", 1)
		if err != nil || len(rows) != 1 {
			b.Fatal(rows, err)
		}
		table, _ = strconv.ParseInt(rows[0][0], 10, 64)
		if err := sb.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fi.Size()>>20), "parquet-MiB")
	b.ReportMetric(float64(table>>20), "table-MiB")
}
