package bundle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"kgforge/kg"
)

// writeParquetByRecords is how the writer wrote a file before it built one
// column at a time: whole record batches of rowGroupRows rows. The test
// below holds the column writer to its bytes.
func writeParquetByRecords[T any](path string, cols []column[T], rows []T) error {
	return createFile(path, func(f io.Writer) error {
		schema := schemaOf(cols)
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithMaxRowGroupLength(rowGroupRows), parquet.WithCreatedBy("kgforge"))
		w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		if err := recordBatches(schema, cols, rows, w.Write); err != nil {
			return err
		}
		return w.Close()
	})
}

// TestParquetWrittenByColumnIsTheRecordBatchFileByteForByte holds the
// column-at-a-time writer (which keeps one column of one row group in
// Arrow form instead of every column) to the bytes of the record-batch
// writer it replaced, for no rows, one row group, and several with a
// short last one, for a type with a list column and one with a map.
func TestParquetWrittenByColumnIsTheRecordBatchFileByteForByte(t *testing.T) {
	edges := func(n int) []kg.Edge {
		out := make([]kg.Edge, n)
		for i := range out {
			out[i] = kg.Edge{
				ID: fmt.Sprintf("e%07d", i), Src: fmt.Sprintf("n%d", i%977), Dst: fmt.Sprintf("n%d", i%131), Type: "MENTIONS",
				Confidence: float64(i%10) / 10, ChunkIDs: []string{fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", i+1)},
			}
			if i%3 == 0 {
				out[i].Properties = map[string]string{"evidence_span": fmt.Sprintf("s:%d-%d", i, i+9)}
			}
		}
		return out
	}
	nodes := func(n int) []kg.Node {
		out := make([]kg.Node, n)
		for i := range out {
			out[i] = kg.Node{
				ID: fmt.Sprintf("n%07d", i), Name: fmt.Sprintf("Name %d", i%5000), Kind: kg.NodeChunk, Labels: []string{"Chunk"},
				Properties: map[string]string{"ordinal": fmt.Sprint(i), "section": "A > B"},
			}
		}
		return out
	}
	dir := t.TempDir()
	for _, n := range []int{0, 7, rowGroupRows, 2*rowGroupRows + 5} {
		same(t, dir, fmt.Sprintf("edges-%d", n), edgeColumns, edges(n))
		same(t, dir, fmt.Sprintf("nodes-%d", n), nodeColumns, nodes(n))
	}
}

// same writes rows with both writers and compares the files: every byte
// before the footer (the pages of every column chunk, so every offset the
// footer records) and the footer's length. The footer's bytes themselves
// may differ between any two writes of the same rows: arrow-go lists a
// column chunk's page encoding stats from a map, in Go's random order, when
// a dictionary fell back to plain pages (the cause of the differing
// chunks.parquet checksums seen before in this package's tests).
func same[T any](t *testing.T, dir, name string, cols []column[T], rows []T) {
	t.Helper()
	want, got := filepath.Join(dir, name+"-records.parquet"), filepath.Join(dir, name+"-columns.parquet")
	if err := writeParquetByRecords(want, cols, rows); err != nil {
		t.Fatal(err)
	}
	n, err := writeParquetFrom(got, cols, sliceRows(rows))
	if err != nil || n != len(rows) {
		t.Fatalf("%s: wrote %d rows of %d: %v", name, n, len(rows), err)
	}
	a, errA := os.ReadFile(want)
	b, errB := os.ReadFile(got)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if len(a) != len(b) || !bytes.Equal(a[:pagesEnd(a)], b[:pagesEnd(b)]) || !bytes.Equal(a[len(a)-8:], b[len(b)-8:]) {
		t.Errorf("%s: the column writer's file (%d bytes) differs from the record writer's (%d bytes) before its footer", name, len(b), len(a))
	}
}

// pagesEnd is where a Parquet file's footer starts: before it, its
// length (4 bytes, little-endian) and "PAR1".
func pagesEnd(f []byte) int {
	return len(f) - 8 - int(binary.LittleEndian.Uint32(f[len(f)-8:]))
}

// peakAlloc is an Arrow allocator that counts the bytes it holds and the
// most it held.
type peakAlloc struct {
	memory.Allocator
	now, peak int
}

func (a *peakAlloc) Allocate(n int) []byte {
	a.now += n
	a.peak = max(a.peak, a.now)
	return a.Allocator.Allocate(n)
}

func (a *peakAlloc) Reallocate(n int, b []byte) []byte {
	a.now += n - len(b)
	a.peak = max(a.peak, a.now)
	return a.Allocator.Reallocate(n, b)
}

func (a *peakAlloc) Free(b []byte) {
	a.now -= len(b)
	a.Allocator.Free(b)
}

// wide is a row of ten string columns of 100 bytes each.
type wide struct{ f [10]string }

func wideColumns() []column[wide] {
	cols := make([]column[wide], 10)
	for i := range cols {
		cols[i] = column[wide]{fmt.Sprintf("f%d", i), str, func(x *wide) any { return x.f[i] }, func(x *wide, v any) { x.f[i] = s(v) }}
	}
	return cols
}

// TestParquetWriterHoldsOneColumnOfARowGroupNotTheWholeGroup bounds the
// Arrow data the writer holds while it writes a full row group of rows
// with ten columns: under three columns' worth, where building the whole
// record batch held all ten (and more, as its buffers grew by doubling).
// This was the largest part of a 100,000-chunk build's peak.
func TestParquetWriterHoldsOneColumnOfARowGroupNotTheWholeGroup(t *testing.T) {
	rows := make([]wide, rowGroupRows)
	for i := range rows {
		for j := range rows[i].f {
			rows[i].f[j] = fmt.Sprintf("%0100d", i*10+j) // distinct: no dictionary makes them small
		}
	}
	a := &peakAlloc{Allocator: memory.NewGoAllocator()}
	old := writeAlloc
	writeAlloc = a
	defer func() { writeAlloc = old }()
	if _, err := writeParquetFrom(filepath.Join(t.TempDir(), "wide.parquet"), wideColumns(), sliceRows(rows)); err != nil {
		t.Fatal(err)
	}
	column := rowGroupRows * 100
	if a.peak > 3*column {
		t.Errorf("the writer held %d MiB of Arrow data at most; one column of the row group is %d MiB", a.peak>>20, column>>20)
	}
	t.Logf("held %.1f MiB at most; one column is %.1f MiB", float64(a.peak)/(1<<20), float64(column)/(1<<20))
}
