package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// column maps one field of a row type T to an Arrow column. get returns a
// string, int64, float64 or []string matching typ; set stores one back.
type column[T any] struct {
	name string
	typ  arrow.DataType
	get  func(*T) any
	set  func(*T, any)
}

var listOfStrings = arrow.ListOf(arrow.BinaryTypes.String)

// rowGroupRows bounds the rows of one record batch and one Parquet row group.
const rowGroupRows = 64 * 1024

func schemaOf[T any](cols []column[T]) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: false}
	}
	return arrow.NewSchema(fields, nil)
}

// writeParquet writes rows to path as zstd-compressed Parquet and fsyncs it.
func writeParquet[T any](path string, cols []column[T], rows []T) error {
	_, err := writeParquetFrom(path, cols, sliceRows(rows))
	return err
}

// writeAlloc is the allocator of the Arrow data the Parquet writer builds
// and encodes; a test counts what it holds at most.
var writeAlloc memory.Allocator = memory.DefaultAllocator

// writeParquetFrom writes the rows each yields to path as Parquet,
// streaming: it holds the rows of one row group (pointers, which each
// must keep valid until the write returns) and builds and writes them one
// column at a time, so that the Arrow data of one column of one row group
// is all it holds besides the rows. The file is the same, byte for byte,
// as one written a record batch of rowGroupRows rows at a time. It
// returns how many rows it wrote.
func writeParquetFrom[T any](path string, cols []column[T], each func(yield func(*T) error) error) (n int, err error) {
	err = createFile(path, func(f io.Writer) error {
		schema := schemaOf(cols)
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithMaxRowGroupLength(rowGroupRows), parquet.WithCreatedBy("kgforge"), parquet.WithAllocator(writeAlloc))
		// The Parquet writer closes a sink that is an io.Closer; hide Close
		// so the file can be synced first.
		w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		if n, err = rowGroupsFrom(each, func(rows []*T) error { return writeRowGroup(w, schema, cols, rows) }); err != nil {
			return errors.Join(err, w.Close())
		}
		return w.Close()
	})
	return n, err
}

// rowGroupsFrom gathers the rows each yields into row groups of
// rowGroupRows rows (one empty group when there are no rows, so that a
// file has a schema and a row group) and hands each to write. It returns
// how many rows there were.
func rowGroupsFrom[T any](each func(yield func(*T) error) error, write func([]*T) error) (int, error) {
	rows := make([]*T, 0, rowGroupRows)
	n := 0
	err := each(func(row *T) error {
		rows = append(rows, row)
		n++
		if len(rows) < rowGroupRows {
			return nil
		}
		err := write(rows)
		clear(rows) // what the group pointed at may go
		rows = rows[:0]
		return err
	})
	if err == nil && (len(rows) > 0 || n == 0) {
		err = write(rows)
	}
	return n, err
}

// writeRowGroup writes rows as a new row group, one column at a time.
func writeRowGroup[T any](w *pqarrow.FileWriter, schema *arrow.Schema, cols []column[T], rows []*T) error {
	if err := w.NewRowGroupChecked(); err != nil {
		return err
	}
	for j, c := range cols {
		b := array.NewBuilder(writeAlloc, schema.Field(j).Type)
		for _, r := range rows {
			appendValue(b, c.get(r))
		}
		a := b.NewArray()
		b.Release()
		err := w.WriteColumnData(a)
		a.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// sliceRows yields the rows of a slice in order.
func sliceRows[T any](rows []T) func(yield func(*T) error) error {
	return func(yield func(*T) error) error {
		for i := range rows {
			if err := yield(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// recordBatches builds rows into record batches, as recordBatchesFrom does.
func recordBatches[T any](schema *arrow.Schema, cols []column[T], rows []T, write func(arrow.RecordBatch) error) error {
	_, err := recordBatchesFrom(schema, cols, sliceRows(rows), write)
	return err
}

// recordBatchesFrom builds the rows each yields into record batches of
// rowGroupRows rows (one empty batch when there are no rows, so the file
// has a schema and a row group) and hands each to write. It returns how
// many rows there were.
func recordBatchesFrom[T any](schema *arrow.Schema, cols []column[T], each func(yield func(*T) error) error, write func(arrow.RecordBatch) error) (int, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		return write(rec)
	}
	n := 0
	err := each(func(row *T) error {
		for j, c := range cols {
			appendValue(b.Field(j), c.get(row))
		}
		n++
		if n%rowGroupRows == 0 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	if n%rowGroupRows != 0 || n == 0 {
		return n, flush()
	}
	return n, nil
}

func appendValue(b array.Builder, v any) {
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.ListBuilder:
		b.Append(true)
		vb := b.ValueBuilder().(*array.StringBuilder)
		for _, s := range v.([]string) {
			vb.Append(s)
		}
	default:
		panic(fmt.Sprintf("bundle: no appender for %T", b))
	}
}

// readParquet streams the rows of a Parquet file one record batch at a time,
// so memory stays bounded by the batch size, not the file size.
func readParquet[T any](ctx context.Context, path string, cols []column[T], fn func(T) error) (err error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer func() { err = errors.Join(err, pf.Close()) }()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	schema, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var idx []int
	var present []column[T] // the columns read, in the order of idx
	for _, c := range cols {
		found := schema.FieldIndices(c.name)
		if len(found) == 0 && slices.Contains(addedColumns[filepath.Base(path)], c.name) {
			continue // a bundle older than the column: zero values
		}
		if len(found) != 1 {
			return fmt.Errorf("read %s: %w: no column %q", path, ErrInvalid, c.name)
		}
		idx = append(idx, found[0])
		present = append(present, c)
	}
	rr, err := fr.GetRecordReader(ctx, idx, nil)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			var row T
			for i, c := range present {
				c.set(&row, valueAt(rec.Column(i), r))
			}
			if err := fn(row); err != nil {
				return err
			}
		}
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func valueAt(a arrow.Array, i int) any {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.List:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues().(*array.String)
		out := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, vals.Value(int(j)))
		}
		return out
	}
	panic(fmt.Sprintf("bundle: no reader for %T", a))
}
