package bundle

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"kgforge/bench/synth"
	"kgforge/kg"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// The benchmarks' graph: 100k nodes and 300k edges shaped like kgforge's
// (bench/synth). Made once per process; it takes a few seconds.
var benchGraph = sync.OnceValue(func() kg.Graph { return synth.Graph(100_000, 300_000, 1) })

// Every benchmark counts the same bytes, the size of the nodes and edges as
// uncompressed Arrow IPC (the in-memory Arrow size), so MB/s compare across
// formats and directions.
var benchBytes = sync.OnceValues(func() (int64, error) {
	dir, err := os.MkdirTemp("", "kgforge-bench-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	return writeGraph(dir, writeIPC)
})

type rowsWriter func(path string, g kg.Graph, nodes bool) error

func writeGraph(dir string, w rowsWriter) (int64, error) {
	var total int64
	for _, nodes := range []bool{true, false} {
		path := filepath.Join(dir, map[bool]string{true: "nodes", false: "edges"}[nodes])
		if err := w(path, benchGraph(), nodes); err != nil {
			return 0, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		total += st.Size()
	}
	return total, nil
}

func writeParquetRows(path string, g kg.Graph, nodes bool) error {
	if nodes {
		return writeParquet(path, nodeColumns, g.Nodes)
	}
	return writeParquet(path, edgeColumns, g.Edges)
}

func writeIPC(path string, g kg.Graph, nodes bool) error {
	if nodes {
		return writeIPCRows(path, nodeColumns, g.Nodes)
	}
	return writeIPCRows(path, edgeColumns, g.Edges)
}

// writeIPCRows is writeParquet with an uncompressed Arrow IPC file writer in
// place of the Parquet one: the same column tables, batches and fsync.
func writeIPCRows[T any](path string, cols []column[T], rows []T) (err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	schema := schemaOf(cols)
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := ipc.NewFileWriter(bw, ipc.WithSchema(schema))
	if err != nil {
		return err
	}
	if err := recordBatches(schema, cols, rows, w.Write); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// readIPCRows streams the rows of an Arrow IPC file through the memory map,
// converting them to T as readParquet does.
func readIPCRows[T any](path string, cols []column[T], fn func(T) error) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return errors.Join(err, f.Close())
	}
	data, err := mapFile(f, st.Size())
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unmapFile(data)) }()
	r, err := ipc.NewMappedFileReader(data)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	for i := range r.NumRecords() {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return err
		}
		for row := range int(rec.NumRows()) {
			var x T
			for j, c := range cols {
				c.set(&x, valueAt(rec.Column(j), row))
			}
			if err := fn(x); err != nil {
				rec.Release()
				return err
			}
		}
		rec.Release()
	}
	return nil
}

// heapPeak samples the heap every millisecond without stopping the world:
// the heap in use (objects and the free space of in-use spans, as
// MemStats.HeapInuse, garbage included) and the live heap the last GC
// marked, which is the working set whatever GOGC is.
type heapPeak struct {
	stop                chan struct{}
	done                sync.WaitGroup
	base                uint64 // live heap at the start, after a GC: the input
	peakInuse, peakLive uint64
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/gc/heap/live:bytes"}

func trackHeap() *heapPeak {
	runtime.GC()
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	h := &heapPeak{stop: make(chan struct{})}
	sample := func() {
		metrics.Read(s)
		h.peakInuse = max(h.peakInuse, s[0].Value.Uint64()+s[1].Value.Uint64())
		h.peakLive = max(h.peakLive, s[2].Value.Uint64())
	}
	sample()
	h.base = h.peakLive
	h.done.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				sample()
				return
			case <-t.C:
				sample()
			}
		}
	})
	return h
}

func (h *heapPeak) report(b *testing.B) {
	close(h.stop)
	h.done.Wait()
	b.ReportMetric(float64(h.base)/1e6, "input_MB")
	b.ReportMetric(float64(h.peakInuse)/1e6, "peak_heap_inuse_MB")
	b.ReportMetric(float64(h.peakLive-h.base)/1e6, "peak_live_extra_MB")
}

func BenchmarkBundleWrite(b *testing.B) {
	g := benchGraph()
	logical, err := benchBytes()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		w    rowsWriter
	}{
		{"parquet_zstd", writeParquetRows}, // what Commit writes
		{"arrow_ipc", writeIPC},            // the ceiling: no encoding, no compression
	} {
		b.Run(tc.name, func(b *testing.B) {
			base := b.TempDir()
			b.SetBytes(logical)
			h := trackHeap()
			var size int64
			b.ResetTimer()
			for i := range b.N {
				dir := filepath.Join(base, fmt.Sprint(i))
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				if size, err = writeGraph(dir, tc.w); err != nil {
					b.Fatal(err)
				}
				if err := syncDir(dir); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := os.RemoveAll(dir); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			h.report(b)
			b.ReportMetric(float64(size)/1e6, "file_MB")
			b.ReportMetric(float64(len(g.Nodes)+len(g.Edges))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func BenchmarkBundleRead(b *testing.B) {
	g := benchGraph()
	logical, err := benchBytes()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		write rowsWriter
		nodes func(string, func(kg.Node) error) error
		edges func(string, func(kg.Edge) error) error
	}{
		{
			"parquet_zstd", writeParquetRows, // what Bundle.Nodes and Bundle.Edges do
			func(p string, fn func(kg.Node) error) error { return readParquet(ctx, p, nodeColumns, fn) },
			func(p string, fn func(kg.Edge) error) error { return readParquet(ctx, p, edgeColumns, fn) },
		},
		{
			"arrow_ipc_mmap", writeIPC,
			func(p string, fn func(kg.Node) error) error { return readIPCRows(p, nodeColumns, fn) },
			func(p string, fn func(kg.Edge) error) error { return readIPCRows(p, edgeColumns, fn) },
		},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			if _, err := writeGraph(dir, tc.write); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(logical)
			h := trackHeap()
			b.ResetTimer()
			for range b.N {
				var nodes, edges int
				if err := tc.nodes(filepath.Join(dir, "nodes"), func(kg.Node) error { nodes++; return nil }); err != nil {
					b.Fatal(err)
				}
				if err := tc.edges(filepath.Join(dir, "edges"), func(kg.Edge) error { edges++; return nil }); err != nil {
					b.Fatal(err)
				}
				if nodes != len(g.Nodes) || edges != len(g.Edges) {
					b.Fatalf("read %d nodes, %d edges; wrote %d, %d", nodes, edges, len(g.Nodes), len(g.Edges))
				}
			}
			b.StopTimer()
			h.report(b)
			b.ReportMetric(float64(len(g.Nodes)+len(g.Edges))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkVectors writes 100k vectors of 384 float32 (all-MiniLM-L6-v2's
// size) with Commit's writer, and opens and reads every one back through
// the memory map.
func BenchmarkVectors(b *testing.B) {
	const n, dim = 100_000, 384
	v := VectorSet{Name: "nodes", Model: "all-minilm", Dim: dim, IDs: make([]string, n), Data: make([]float32, n*dim)}
	for i := range v.IDs {
		v.IDs[i] = kg.ID("node", fmt.Sprint(i))
	}
	for i := range v.Data {
		v.Data[i] = float32(i%1000) / 1000
	}
	vecBytes := int64(n * dim * 4)
	b.Run("write", func(b *testing.B) {
		base := b.TempDir()
		b.SetBytes(vecBytes)
		h := trackHeap()
		b.ResetTimer()
		for i := range b.N {
			if err := writeVectors(filepath.Join(base, fmt.Sprint(i)), v); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		h.report(b)
	})
	b.Run("open_and_read", func(b *testing.B) {
		out := b.TempDir()
		w, err := Create(out, "b")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Commit(Contents{Vectors: []VectorSet{v}}, Manifest{}); err != nil {
			b.Fatal(err)
		}
		bun, err := Open(out)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = bun.Close() })
		b.SetBytes(vecBytes)
		h := trackHeap()
		b.ResetTimer()
		var sum float32
		for range b.N {
			vs, err := bun.Vectors("nodes")
			if err != nil {
				b.Fatal(err)
			}
			for i := range vs.Len() {
				for _, x := range vs.Vector(i) {
					sum += x
				}
			}
			if err := vs.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		h.report(b)
		if sum == 0 {
			b.Fatal("read nothing")
		}
	})
}

// benchLinks is a link log of n links as the link step writes it: one
// ROW_OF link per row entity (a third of them), the rest concept links
// to columns and tables with two or three signals and one evidence span.
func benchLinks(n int) []kg.Link {
	out := make([]kg.Link, n)
	for i := range out {
		src := kg.ID("concept", fmt.Sprint(i%50_000))
		l := kg.Link{
			Src: src, SrcName: fmt.Sprintf("concept number %d", i%50_000), Score: float64(i%1000) / 1000,
			Signals: []string{"name_match", fmt.Sprintf("cosine:%.2f", float64(i%100)/100)}, Rule: "score_high", DecidedBy: "auto",
			Evidence: []string{kg.ID("chunk", fmt.Sprint(i%9000)) + ":120-164"}, Band: []string{kg.LinkBandLinked, kg.LinkBandUncertain, kg.LinkBandNone}[i%3],
		}
		switch i % 3 {
		case 0:
			key := fmt.Sprintf("S%06d", i)
			l.Src, l.Type, l.Target, l.Dst = kg.ID("row", "suppliers", key), kg.LinkRowOf, kg.RowTarget("suppliers", key), kg.TableNodeID("suppliers")
			l.Signals, l.Evidence, l.Band, l.Rule = []string{"key:supplier_id", "name:name"}, []string{kg.RowTarget("suppliers", key)}, kg.LinkBandLinked, "row_profile"
		case 1:
			l.Type, l.Target, l.Dst = kg.LinkMeasuredBy, fmt.Sprintf("table_%d.column_%d", i%40, i%17), kg.ColumnNodeID(fmt.Sprint("table_", i%40), fmt.Sprint("column_", i%17))
			l.Signals = append(l.Signals, "value_overlap:0.81")
		default:
			l.Type, l.Target, l.Dst = kg.LinkRepresentedBy, fmt.Sprint("table_", i%40), kg.TableNodeID(fmt.Sprint("table_", i%40))
		}
		l.ID = kg.EdgeID(l.Src, l.Type, l.Dst)
		out[i] = l
	}
	return out
}

// BenchmarkLinkLog writes a link log of a million links as Commit does
// (links.parquet) and streams it back as Bundle.Links does.
func BenchmarkLinkLog(b *testing.B) {
	links := benchLinks(1_000_000)
	ctx := context.Background()
	dir := b.TempDir()
	b.Run("write", func(b *testing.B) {
		h := trackHeap()
		var size int64
		for i := range b.N {
			p := filepath.Join(dir, fmt.Sprint("w", i, ".parquet"))
			if err := writeParquet(p, linkColumns, links); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			fi, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			size = fi.Size()
			if err := os.Remove(p); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.StopTimer()
		h.report(b)
		b.ReportMetric(float64(size)/1e6, "file_MB")
		b.ReportMetric(float64(len(links))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("read", func(b *testing.B) {
		p := filepath.Join(b.TempDir(), "r.parquet")
		if err := writeParquet(p, linkColumns, links); err != nil {
			b.Fatal(err)
		}
		h := trackHeap()
		b.ResetTimer()
		for range b.N {
			n := 0
			if err := readParquet(ctx, p, linkColumns, func(kg.Link) error { n++; return nil }); err != nil {
				b.Fatal(err)
			}
			if n != len(links) {
				b.Fatalf("read %d links, wrote %d", n, len(links))
			}
		}
		b.StopTimer()
		h.report(b)
		b.ReportMetric(float64(len(links))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
