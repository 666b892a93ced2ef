package bundle

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// VectorSet is one set of embeddings a build puts in the bundle: one vector
// of Dim float32 per id, all made by Model. It is written as the Arrow IPC
// file vectors-NAME.arrow.
type VectorSet struct {
	Name  string // ^[a-z][a-z0-9_]*$, at most 64 bytes: e.g. "nodes", "chunks"
	Model string // the embedding model, as the server names it
	Dim   int
	IDs   []string  // non-empty and unique: the node or chunk ids the vectors belong to
	Data  []float32 // len(IDs)*Dim values, row-major: row i is Data[i*Dim:(i+1)*Dim]
}

// VectorInfo is the manifest's entry for one vector set.
type VectorInfo struct {
	Model string `json:"model"`
	Dim   int    `json:"dim"`
	Rows  int64  `json:"rows"`
}

var vectorSetName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// VectorsFile returns the name of the file of the vector set name.
func VectorsFile(name string) string { return "vectors-" + name + ".arrow" }

// vectorsSetOf returns the set name of a vectors file, or false.
func vectorsSetOf(file string) (string, bool) {
	name, ok := strings.CutPrefix(file, "vectors-")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(name, ".arrow")
}

// Schema metadata keys of a vectors file.
const (
	vectorsModelKey = "model"
	vectorsDimKey   = "dim"
)

func vectorSchema(model string, dim int) *arrow.Schema {
	md := arrow.NewMetadata([]string{vectorsModelKey, vectorsDimKey}, []string{model, strconv.Itoa(dim)})
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "vector", Type: arrow.FixedSizeListOfNonNullable(int32(dim), arrow.PrimitiveTypes.Float32)},
	}, &md)
}

// checkVectorSets returns every problem of the sets at once.
func checkVectorSets(sets []VectorSet) error {
	var errs []error
	names := map[string]bool{}
	for i, v := range sets {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("vector set %d (%q): %s", i, v.Name, fmt.Sprintf(format, args...)))
		}
		if !vectorSetName.MatchString(v.Name) {
			bad("name must match %s", vectorSetName)
		}
		if names[v.Name] {
			bad("a second set of that name")
		}
		names[v.Name] = true
		if v.Model == "" {
			bad("no model")
		}
		if v.Dim <= 0 || v.Dim > 1<<16 {
			bad("dim %d, want 1 to 65536", v.Dim)
			continue
		}
		if len(v.Data) != len(v.IDs)*v.Dim {
			bad("%d values for %d ids of dim %d, want %d", len(v.Data), len(v.IDs), v.Dim, len(v.IDs)*v.Dim)
		}
		if row, other, msg := checkIDs(len(v.IDs), func(i int) string { return v.IDs[i] }); msg != "" {
			bad("id of row %d %s%s", row, msg, rowRef(other))
		}
	}
	return errors.Join(errs...)
}

func rowRef(other int) string {
	if other < 0 {
		return ""
	}
	return " " + strconv.Itoa(other)
}

// checkIDs finds an empty or repeated id among n without holding a set of
// strings (the ids of a mapped file stay in the mapping): it sorts the rows
// by a hash of their id and compares neighbours.
// It returns the offending row, the row it repeats (or -1) and a reason.
func checkIDs(n int, id func(int) string) (row, other int, msg string) {
	type entry struct {
		h   uint64
		row int
	}
	seed := maphash.MakeSeed()
	entries := make([]entry, n)
	for i := range n {
		s := id(i)
		if s == "" {
			return i, -1, "is empty"
		}
		entries[i] = entry{maphash.String(seed, s), i}
	}
	// Equal ids have equal hashes; ties are ordered by id, so equal ids end
	// up next to each other, in file order.
	slices.SortFunc(entries, func(a, b entry) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		if c := strings.Compare(id(a.row), id(b.row)); c != 0 {
			return c
		}
		return cmp.Compare(a.row, b.row)
	})
	row, other = -1, -1
	for i := 1; i < n; i++ {
		prev, cur := entries[i-1], entries[i]
		if prev.h == cur.h && (row < 0 || cur.row < row) && id(prev.row) == id(cur.row) {
			row, other = cur.row, prev.row // the first row in file order that repeats one
		}
	}
	if row < 0 {
		return 0, -1, ""
	}
	return row, other, "repeats row"
}

// checkManifestVectors checks that the vector sets and the vectors files of
// the manifest name each other.
func checkManifestVectors(m Manifest) error {
	for _, name := range slices.Sorted(maps.Keys(m.Vectors)) {
		info := m.Vectors[name]
		if !vectorSetName.MatchString(name) {
			return fmt.Errorf("%w: vector set name %q does not match %s", ErrInvalid, name, vectorSetName)
		}
		if _, ok := m.Files[VectorsFile(name)]; !ok {
			return fmt.Errorf("%w: manifest lists vector set %s but no file %s", ErrInvalid, name, VectorsFile(name))
		}
		if info.Dim <= 0 || info.Rows < 0 {
			return fmt.Errorf("%w: vector set %s has dim %d and %d rows", ErrInvalid, name, info.Dim, info.Rows)
		}
	}
	for _, file := range slices.Sorted(maps.Keys(m.Files)) {
		if set, ok := vectorsSetOf(file); ok {
			if _, ok := m.Vectors[set]; !ok {
				return fmt.Errorf("%w: file %s belongs to no vector set of the manifest", ErrInvalid, file)
			}
		}
	}
	return nil
}

// writeVectors writes one vector set to path as an uncompressed Arrow IPC
// file, in record batches of rowGroupRows rows, and fsyncs it.
func writeVectors(path string, v VectorSet) error {
	return createFile(path, func(f io.Writer) error {
		schema := vectorSchema(v.Model, v.Dim)
		bw := bufio.NewWriterSize(f, 1<<20)
		w, err := ipc.NewFileWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return err
		}
		for lo := 0; lo < len(v.IDs); lo += rowGroupRows {
			rec := vectorBatch(schema, v, lo, min(lo+rowGroupRows, len(v.IDs)))
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// vectorBatch returns rows [lo, hi) of v as a record batch whose vector
// values are v.Data itself, not a copy.
func vectorBatch(schema *arrow.Schema, v VectorSet, lo, hi int) arrow.RecordBatch {
	ids := array.NewStringBuilder(memory.DefaultAllocator)
	defer ids.Release()
	ids.Reserve(hi - lo)
	for _, id := range v.IDs[lo:hi] {
		ids.Append(id)
	}
	idArr := ids.NewStringArray()
	defer idArr.Release()
	raw := memory.NewBufferBytes(arrow.Float32Traits.CastToBytes(v.Data[lo*v.Dim : hi*v.Dim]))
	vals := array.NewData(arrow.PrimitiveTypes.Float32, (hi-lo)*v.Dim, []*memory.Buffer{nil, raw}, nil, 0, 0)
	defer vals.Release()
	list := array.NewData(schema.Field(1).Type, hi-lo, []*memory.Buffer{nil}, []arrow.ArrayData{vals}, 0, 0)
	defer list.Release()
	vecArr := array.NewFixedSizeListData(list)
	defer vecArr.Release()
	return array.NewRecordBatch(schema, []arrow.Array{idArr, vecArr}, int64(hi-lo))
}

// Vectors is an opened vector set. Its file is memory-mapped: vectors are
// read from the page cache on demand, never copied. It is safe for
// concurrent readers; Close must not run while they read.
type Vectors struct {
	bundle, file string // for errors
	model        string
	dim, n       int
	mapping      []byte
	reader       *ipc.FileReader
	recs         []arrow.RecordBatch
	starts       []int // first row of each batch, then n
	ids          []*array.String
	vals         [][]float32 // per batch, row-major
}

// Vectors opens the vector set name of the bundle. It memory-maps the file
// and checks its schema, metadata, row count and ids against the manifest.
// A name the manifest does not list is an error wrapping fs.ErrNotExist.
func (b *Bundle) Vectors(name string) (_ *Vectors, err error) {
	file := VectorsFile(name)
	fail := func(err error) error {
		return fmt.Errorf("open vectors %q of bundle %s (%s): %w", name, b.name(), file, err)
	}
	if !vectorSetName.MatchString(name) {
		return nil, fail(fmt.Errorf("%w: name must match %s", ErrInvalid, vectorSetName))
	}
	info, ok := b.Manifest.Vectors[name]
	if !ok {
		sets := slices.Sorted(maps.Keys(b.Manifest.Vectors))
		return nil, fail(fmt.Errorf("no such vector set (the bundle has %q): %w", sets, fs.ErrNotExist))
	}
	want := b.Manifest.Files[file] // verify made sure it is listed
	f, err := b.root.Open(file)
	if err != nil {
		return nil, fail(err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fail(errors.Join(err, f.Close()))
	}
	if st.Size() != want.Bytes || st.Size() == 0 {
		return nil, fail(errors.Join(fmt.Errorf("%w: %d bytes, manifest says %d", ErrChecksum, st.Size(), want.Bytes), f.Close()))
	}
	data, err := mapFile(f, st.Size())
	// The mapping outlives the descriptor.
	if err = errors.Join(err, f.Close()); err != nil {
		if data != nil {
			err = errors.Join(err, unmapFile(data))
		}
		return nil, fail(fmt.Errorf("map: %w", err))
	}
	v := &Vectors{bundle: b.name(), file: file, model: info.Model, dim: info.Dim, mapping: data}
	if err := v.load(info); err != nil {
		return nil, fail(errors.Join(err, v.Close()))
	}
	return v, nil
}

// load reads the footer and batches of the mapped file and checks them. A
// file damaged past its checksum (changed after Open) may make arrow-go
// panic; that is reported as an invalid file.
func (v *Vectors) load(info VectorInfo) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: unreadable Arrow IPC file: %v", ErrInvalid, p)
		}
	}()
	r, err := ipc.NewMappedFileReader(v.mapping)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	v.reader = r
	if err := checkVectorSchema(r.Schema(), info); err != nil {
		return err
	}
	for i := range r.NumRecords() {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return fmt.Errorf("%w: batch %d: %w", ErrInvalid, i, err)
		}
		v.recs = append(v.recs, rec)
		ids, ok1 := rec.Column(0).(*array.String)
		vecs, ok2 := rec.Column(1).(*array.FixedSizeList)
		if !ok1 || !ok2 || ids.NullN() != 0 || vecs.NullN() != 0 || ids.Len() != int(rec.NumRows()) || vecs.Len() != ids.Len() {
			return fmt.Errorf("%w: batch %d: columns of the wrong type, length or with nulls", ErrInvalid, i)
		}
		values, ok := vecs.ListValues().(*array.Float32)
		lo, hi := vecs.Offset()*v.dim, (vecs.Offset()+vecs.Len())*v.dim
		if !ok || values.NullN() != 0 || values.Len() < hi {
			return fmt.Errorf("%w: batch %d: vector values of the wrong type, length or with nulls", ErrInvalid, i)
		}
		v.starts = append(v.starts, v.n)
		v.ids = append(v.ids, ids)
		v.vals = append(v.vals, values.Float32Values()[lo:hi])
		v.n += ids.Len()
	}
	v.starts = append(v.starts, v.n)
	if int64(v.n) != info.Rows {
		return fmt.Errorf("%w: %d rows, manifest says %d", ErrInvalid, v.n, info.Rows)
	}
	if row, other, msg := checkIDs(v.n, v.rawID); msg != "" {
		return fmt.Errorf("%w: id of row %d %s%s", ErrInvalid, row, msg, rowRef(other))
	}
	return nil
}

func checkVectorSchema(s *arrow.Schema, info VectorInfo) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: schema %s: %s", ErrInvalid, s, fmt.Sprintf(format, args...))
	}
	if s.NumFields() != 2 || s.Field(0).Name != "id" || s.Field(1).Name != "vector" {
		return bad("want the columns id and vector")
	}
	if !arrow.TypeEqual(s.Field(0).Type, arrow.BinaryTypes.String) {
		return bad("id is not utf8")
	}
	fsl, ok := s.Field(1).Type.(*arrow.FixedSizeListType)
	if !ok || !arrow.TypeEqual(fsl.Elem(), arrow.PrimitiveTypes.Float32) {
		return bad("vector is not a fixed-size list of float32")
	}
	if int(fsl.Len()) != info.Dim {
		return bad("vectors of dim %d, manifest says %d", fsl.Len(), info.Dim)
	}
	md := s.Metadata()
	model, dim := md.FindKey(vectorsModelKey), md.FindKey(vectorsDimKey)
	if model < 0 || dim < 0 {
		return bad("metadata lacks %s or %s", vectorsModelKey, vectorsDimKey)
	}
	if m := md.Values()[model]; m != info.Model {
		return bad("model %q, manifest says %q", m, info.Model)
	}
	if d := md.Values()[dim]; d != strconv.Itoa(info.Dim) {
		return bad("metadata dim %q, manifest says %d", d, info.Dim)
	}
	return nil
}

func (v *Vectors) at(i int) (batch, row int) {
	if i < 0 || i >= v.n {
		panic(fmt.Sprintf("bundle: vector %d out of range [0, %d) in %s of %s", i, v.n, v.file, v.bundle))
	}
	batch = sort.SearchInts(v.starts, i+1) - 1
	return batch, i - v.starts[batch]
}

// rawID returns an id that points into the mapping; it must not outlive it.
func (v *Vectors) rawID(i int) string {
	b, r := v.at(i)
	return v.ids[b].Value(r)
}

// Len returns the number of vectors.
func (v *Vectors) Len() int { return v.n }

// Dim returns the length of each vector.
func (v *Vectors) Dim() int { return v.dim }

// Model returns the embedding model that made the vectors.
func (v *Vectors) Model() string { return v.model }

// ID returns the id of vector i, 0 <= i < Len(). The string is a copy; it
// stays valid after Close.
func (v *Vectors) ID(i int) string { return strings.Clone(v.rawID(i)) }

// Vector returns vector i, 0 <= i < Len(): a slice of the read-only mapping,
// not a copy. It is valid until Close, and writing to it faults.
func (v *Vectors) Vector(i int) []float32 {
	b, r := v.at(i)
	return v.vals[b][r*v.dim : (r+1)*v.dim : (r+1)*v.dim]
}

// Close releases the batches and unmaps the file; slices from Vector are
// invalid afterwards. Closing twice is harmless.
func (v *Vectors) Close() error {
	for _, r := range v.recs {
		r.Release()
	}
	v.recs, v.ids, v.vals, v.starts, v.n = nil, nil, nil, nil, 0
	var errs []error
	if v.reader != nil {
		errs = append(errs, v.reader.Close())
		v.reader = nil
	}
	if v.mapping != nil {
		if err := unmapFile(v.mapping); err != nil {
			errs = append(errs, fmt.Errorf("close vectors %s of bundle %s: %w", v.file, v.bundle, err))
		}
		v.mapping = nil
	}
	return errors.Join(errs...)
}
