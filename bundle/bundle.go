package bundle

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// Format names a kgforge bundle in its manifest.
const Format = "kgforge-bundle"

// Version is the format version this package writes. A reader of 1.x
// accepts any 1.y: minor versions only add files, columns or manifest fields.
const Version = "1.6"

// LatestLink is the name of the symbolic link to the newest bundle in an
// output directory.
const LatestLink = "latest"

// Errors a reader returns; each wraps into a message naming the bundle.
var (
	ErrInvalid  = errors.New("invalid bundle")
	ErrVersion  = errors.New("unsupported bundle format version")
	ErrChecksum = errors.New("bundle file checksum mismatch")
	ErrEscape   = errors.New("path escapes the bundle")
	// ErrUnlisted means a bundle directory holds an entry (a file, a
	// directory, a link) its manifest does not list; such errors also
	// match ErrInvalid.
	ErrUnlisted = errors.New("not listed in the manifest")
)

// Manifest describes a bundle: what built it, from what, and a checksum of
// every file.
type Manifest struct {
	Format         string                `json:"format"`
	Version        string                `json:"version"`
	BuildID        string                `json:"build_id"`
	Created        time.Time             `json:"created"`
	Pipeline       string                `json:"pipeline"`
	PipelineSHA256 string                `json:"pipeline_sha256"`
	Models         map[string]Model      `json:"models"`
	Prompts        map[string]string     `json:"prompts"` // prompt file → version
	Sources        []ManifestSource      `json:"sources"`
	Counts         map[string]int64      `json:"counts"`  // rows per table: nodes, edges, chunks, …, vectors:NAME
	Vectors        map[string]VectorInfo `json:"vectors"` // vector set name → model, dim, rows (since 1.2)
	Files          map[string]FileInfo   `json:"files"`
	// TableDigests holds the logical digest of every table of the data
	// file, by table name (since 1.3; nil in an older bundle).
	TableDigests map[string]TableDigest `json:"table_digests"`
}

// Model names a model and its digest on the server that ran it.
type Model struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// ManifestSource is one source of the build.
type ManifestSource struct {
	ID     string `json:"id"`
	URI    string `json:"uri"`
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// FileInfo is the size and SHA-256 of one file of the bundle.
type FileInfo struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Contents is what a build puts in a bundle besides the data file.
type Contents struct {
	Sources []kg.Source
	Chunks  []kg.Chunk
	// EachChunk, when set, stands for Chunks: the writer calls it once
	// and writes each chunk it yields as it comes (indexing its text for
	// search on the way), so that a build need not hold every chunk's
	// text in memory. It must yield the same chunks in the same order
	// every time.
	EachChunk func(fn func(kg.Chunk) error) error
	Triplets  []kg.Triplet // ignored once Writer.WriteTriplets wrote them
	Tables    []kg.Table
	// Graph is the graph; once Writer.WriteGraph wrote its nodes and
	// edges, its edges are ignored and its nodes need only be those that
	// are not chunks.
	Graph   kg.Graph
	Vectors []VectorSet // embeddings, one file each; none writes no file
	// MergeReport is the merge log rendered for a person (Markdown); empty
	// writes no file.
	MergeReport string
	// LinkReport is the link log rendered for a person (Markdown); empty
	// writes no file.
	LinkReport string
}

// Writer builds one bundle in a temporary directory beside its destination.
// Call Commit to publish it or Abort to remove it; until then nothing is
// visible at the destination.
type Writer struct {
	outDir, buildID, tmp string
	lock                 *os.File // the locked temporary directory; see stale.go
	data                 *sql.DB
	settings             duck.Settings // the data file's, reused for its digests
	done                 bool

	// Stale names what crashed builds had left in the output directory
	// and Create removed; StaleErr says what it could not remove (the new
	// build goes on regardless).
	Stale    []string
	StaleErr error

	// Unlisted makes Commit rename the bundle into place but leave the
	// latest link as it is: a build that failed its quality gates.
	Unlisted bool

	// early holds the rows of each file written before Commit
	// (WriteTriplets, WriteGraph), which Commit then does not write.
	early map[string]int
}

// Create starts a bundle with the given build id under outDir, first
// removing the temporary directories of builds that died there.
func Create(outDir, buildID string) (*Writer, error) {
	if !validBuildID(buildID) {
		return nil, fmt.Errorf("create bundle in %s: invalid build id %q", outDir, buildID)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("create bundle in %s: %w", outDir, err)
	}
	if _, err := os.Stat(filepath.Join(outDir, buildID)); err == nil {
		return nil, fmt.Errorf("create bundle in %s: build %s already exists", outDir, buildID)
	}
	stale, staleErr := removeStale(outDir, time.Now())
	tmp, err := os.MkdirTemp(outDir, ".tmp-"+buildID+"-")
	if err != nil {
		return nil, fmt.Errorf("create bundle in %s: %w", outDir, err)
	}
	lock, err := lockDir(tmp)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("create bundle in %s: %w", outDir, err), os.RemoveAll(tmp))
	}
	return &Writer{outDir: outDir, buildID: buildID, tmp: tmp, lock: lock, Stale: stale, StaleErr: staleErr, early: map[string]int{}}, nil
}

// Data opens the bundle's DuckDB data file for writing; the Writer closes it.
func (w *Writer) Data(ctx context.Context, s duck.Settings) (*sql.DB, error) {
	if w.data == nil {
		db, err := duck.Open(ctx, filepath.Join(w.tmp, DataFile), s)
		if err != nil {
			return nil, err
		}
		w.data, w.settings = db, s
	}
	return w.data, nil
}

// WriteTriplets writes the bundle's triplets file now, before Commit, so
// that a build need not hold its triplets while it writes the rest: Commit
// then ignores Contents.Triplets. The file is the one Commit would write.
func (w *Writer) WriteTriplets(rows []kg.Triplet) error {
	return w.writeEarly(TripletsFile, func(p string) (int, error) {
		return writeParquetFrom(p, tripletColumns, sliceRows(rows))
	})
}

// WriteGraph writes the bundle's nodes and edges files now, before
// Commit, so that a build need not hold the graph's edges and chunk nodes
// (a node and edges for every chunk) while it writes the rest: Commit then
// ignores Contents.Graph's edges, and reads of its nodes only those that
// are not chunks (for the search index). The files are the ones Commit
// would write.
func (w *Writer) WriteGraph(g kg.Graph) error {
	err := w.writeEarly(NodesFile, func(p string) (int, error) { return writeParquetFrom(p, nodeColumns, sliceRows(g.Nodes)) })
	if err != nil {
		return err
	}
	return w.writeEarly(EdgesFile, func(p string) (int, error) { return writeParquetFrom(p, edgeColumns, sliceRows(g.Edges)) })
}

// writeEarly writes one file of the bundle before Commit.
func (w *Writer) writeEarly(name string, write func(string) (int, error)) error {
	if _, ok := w.early[name]; ok || w.done {
		return fmt.Errorf("bundle %s: %s written already, or the bundle is done", w.buildID, name)
	}
	n, err := write(filepath.Join(w.tmp, name))
	if err != nil {
		return fmt.Errorf("bundle %s: %w", w.buildID, err)
	}
	w.early[name] = n
	return nil
}

// Commit writes contents and the manifest, syncs everything, renames the
// directory into place and points the latest link at it. It returns the
// bundle's final directory.
func (w *Writer) Commit(c Contents, m Manifest) (string, error) {
	if w.done {
		return "", errors.New("commit bundle: already committed or aborted")
	}
	if err := w.commit(c, &m); err != nil {
		return "", errors.Join(err, w.Abort())
	}
	w.done = true
	if err := w.lock.Close(); err != nil {
		return "", fmt.Errorf("commit bundle %s: unlock: %w", w.buildID, err)
	}
	return filepath.Join(w.outDir, w.buildID), nil
}

func (w *Writer) commit(c Contents, m *Manifest) error {
	if err := checkVectorSets(c.Vectors); err != nil {
		return fmt.Errorf("commit bundle %s: %w", w.buildID, err)
	}
	if err := w.closeData(); err != nil {
		return err
	}
	m.Format, m.Version, m.BuildID = Format, Version, w.buildID
	digests, err := digestData(context.Background(), filepath.Join(w.tmp, DataFile), w.settings)
	if err != nil {
		return fmt.Errorf("commit bundle: %w", err)
	}
	m.TableDigests = digests
	written, err := w.writeFiles(c, m)
	if err != nil {
		return fmt.Errorf("commit bundle: %w", err)
	}
	m.Sources = make([]ManifestSource, len(c.Sources))
	for i, s := range c.Sources {
		m.Sources[i] = ManifestSource{ID: s.ID, URI: s.URI, Kind: string(s.Kind), SHA256: s.SHA256, Bytes: s.Bytes}
	}
	if err := w.checksumFiles(written, m); err != nil {
		return fmt.Errorf("commit bundle: %w", err)
	}
	if err := writeJSON(filepath.Join(w.tmp, ManifestFile), m); err != nil {
		return fmt.Errorf("commit bundle: %w", err)
	}
	if err := syncDir(w.tmp); err != nil {
		return fmt.Errorf("commit bundle: %w", err)
	}
	return w.publish()
}

// closeData checkpoints the data file, so that no write-ahead log is left
// beside it, and closes it; a bundle never written to gets an empty one.
func (w *Writer) closeData() error {
	if w.data == nil {
		if _, err := w.Data(context.Background(), duck.Settings{}); err != nil {
			return err
		}
	}
	if _, err := w.data.Exec("CHECKPOINT"); err != nil {
		return fmt.Errorf("commit bundle: checkpoint data file: %w", err)
	}
	if err := w.data.Close(); err != nil {
		return fmt.Errorf("commit bundle: close data file: %w", err)
	}
	w.data = nil
	return nil
}

// writeFiles writes every file of the bundle but the data file and the
// manifest, fills m's counts and vectors, and returns the names of the
// files the bundle holds, the data file included.
func (w *Writer) writeFiles(c Contents, m *Manifest) ([]string, error) {
	pb := newPostingBuilder()
	var posts []Posting
	var docs []PostingDoc
	writes := []struct {
		name string
		fn   func(string) (int, error)
	}{
		{NodesFile, func(p string) (int, error) { return writeParquetFrom(p, nodeColumns, sliceRows(c.Graph.Nodes)) }},
		{EdgesFile, func(p string) (int, error) { return writeParquetFrom(p, edgeColumns, sliceRows(c.Graph.Edges)) }},
		{ChunksFile, func(p string) (int, error) { return writeParquetFrom(p, chunkColumns, c.chunks(pb)) }},
		{SourcesFile, func(p string) (int, error) { return writeParquetFrom(p, sourceColumns, sliceRows(c.Sources)) }},
		{TripletsFile, func(p string) (int, error) { return writeParquetFrom(p, tripletColumns, sliceRows(c.Triplets)) }},
		{MergesFile, func(p string) (int, error) { return writeParquetFrom(p, mergeColumns, sliceRows(c.Graph.Merges)) }},
		{MergeLinksFile, func(p string) (int, error) {
			return writeParquetFrom(p, mergeLinkColumns, sliceRows(c.Graph.MergeLinks))
		}},
		{LinksFile, func(p string) (int, error) { return writeParquetFrom(p, linkColumns, sliceRows(c.Graph.Links)) }},
		{TablesFile, func(p string) (int, error) { return len(c.Tables), writeJSON(p, nonNilTables(c.Tables)) }},
		{PostingsFile, func(p string) (int, error) {
			posts, docs = pb.finish(c.Graph.Nodes) // after the chunks file: every chunk is indexed
			return writeParquetFrom(p, postingColumns, sliceRows(posts))
		}},
		{PostingDocsFile, func(p string) (int, error) { return writeParquetFrom(p, postingDocColumns, sliceRows(docs)) }},
	}
	written := []string{DataFile}
	m.Counts = map[string]int64{}
	for _, wr := range writes {
		n, early := w.early[wr.name] // written before Commit
		if !early {
			var err error
			if n, err = wr.fn(filepath.Join(w.tmp, wr.name)); err != nil {
				return nil, err
			}
		}
		written = append(written, wr.name)
		m.Counts[strings.TrimSuffix(strings.TrimSuffix(wr.name, ".parquet"), ".json")] = int64(n)
	}
	for _, t := range c.Tables {
		m.Counts["rows:"+t.Name] = t.Rows
	}
	for _, r := range []struct{ name, text string }{{MergeReportFile, c.MergeReport}, {LinkReportFile, c.LinkReport}} {
		if r.text == "" {
			continue
		}
		if err := createFile(filepath.Join(w.tmp, r.name), func(f io.Writer) error {
			_, err := io.WriteString(f, r.text)
			return err
		}); err != nil {
			return nil, err
		}
		written = append(written, r.name)
	}
	m.Vectors = map[string]VectorInfo{}
	for _, v := range c.Vectors {
		if err := writeVectors(filepath.Join(w.tmp, VectorsFile(v.Name)), v); err != nil {
			return nil, err
		}
		written = append(written, VectorsFile(v.Name))
		m.Counts["vectors:"+v.Name] = int64(len(v.IDs))
		m.Vectors[v.Name] = VectorInfo{Model: v.Model, Dim: v.Dim, Rows: int64(len(v.IDs))}
	}
	return written, nil
}

// chunks yields the contents' chunks, from EachChunk when set, indexing
// each one's text in pb on the way.
func (c Contents) chunks(pb *postingBuilder) func(yield func(*kg.Chunk) error) error {
	return func(yield func(*kg.Chunk) error) error {
		each := c.EachChunk
		if each == nil {
			each = func(fn func(kg.Chunk) error) error {
				for _, ch := range c.Chunks {
					if err := fn(ch); err != nil {
						return err
					}
				}
				return nil
			}
		}
		return each(func(ch kg.Chunk) error {
			pb.chunk(ch)
			// The writer holds a row group's chunks: copied, each holds its
			// own bytes, not the reader's record batch it came from.
			ch.ID, ch.SourceID, ch.Text, ch.Section = strings.Clone(ch.ID), strings.Clone(ch.SourceID), strings.Clone(ch.Text), strings.Clone(ch.Section)
			ch.TimeStart, ch.TimeEnd = strings.Clone(ch.TimeStart), strings.Clone(ch.TimeEnd)
			return yield(&ch)
		})
	}
}

// checksumFiles records the size and SHA-256 of each written file in m,
// after checking that the temporary directory holds nothing else: the
// manifest lists only what the writer wrote, so a file left by anything
// else (a data.duckdb.wal the checkpoint did not fold in) fails the build
// instead of becoming part of the bundle.
func (w *Writer) checksumFiles(written []string, m *Manifest) error {
	entries, err := os.ReadDir(w.tmp)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !slices.Contains(written, e.Name()) {
			return fmt.Errorf("%s (%s) in %s: the bundle writer did not write it", e.Name(), entryKind(e.Type()), w.tmp)
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s in %s is %s, not a regular file", e.Name(), w.tmp, entryKind(e.Type()))
		}
	}
	m.Files = map[string]FileInfo{}
	for _, name := range written {
		fi, err := checksum(filepath.Join(w.tmp, name))
		if err != nil {
			return err
		}
		m.Files[name] = fi
	}
	return nil
}

// publish renames the temporary directory into place and points the latest
// link at it.
func (w *Writer) publish() error {
	final := filepath.Join(w.outDir, w.buildID)
	if err := os.Rename(w.tmp, final); err != nil {
		return fmt.Errorf("commit bundle: publish %s: %w", final, err)
	}
	if w.Unlisted {
		return syncDir(w.outDir)
	}
	// Point latest at the new build: a new link under a temporary name,
	// renamed over the old one, so readers see one or the other.
	tmpLink := filepath.Join(w.outDir, ".tmp-latest-"+w.buildID)
	if err := os.Symlink(w.buildID, tmpLink); err != nil {
		return fmt.Errorf("commit bundle: link latest: %w", err)
	}
	if err := os.Rename(tmpLink, filepath.Join(w.outDir, LatestLink)); err != nil {
		return fmt.Errorf("commit bundle: link latest: %w", err)
	}
	return syncDir(w.outDir)
}

func nonNilTables(t []kg.Table) []kg.Table {
	if t == nil {
		return []kg.Table{}
	}
	return t
}

// Abort removes the temporary directory; it is safe to call after Commit.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	var errs []error
	if w.data != nil {
		errs = append(errs, w.data.Close())
	}
	if err := os.RemoveAll(w.tmp); err != nil {
		errs = append(errs, fmt.Errorf("abort bundle: %w", err))
	}
	errs = append(errs, w.lock.Close())
	return errors.Join(errs...)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return createFile(path, func(f io.Writer) error {
		_, err := f.Write(append(b, '\n'))
		return err
	})
}

// createFile creates path (it must not exist), writes it through write,
// fsyncs and closes it; an error names the path.
func createFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

func checksum(path string) (_ FileInfo, err error) {
	f, err := os.Open(path)
	if err != nil {
		return FileInfo{}, err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileInfo{}, fmt.Errorf("checksum %s: %w", path, err)
	}
	return FileInfo{Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Bundle is an opened, verified bundle.
type Bundle struct {
	Dir      string // the bundle's directory; for an archive, where it was extracted
	Archive  string // the .tar file it was opened from, or ""
	Manifest Manifest
	root     *os.Root
	tmp      string // the private directory an archive was extracted into
}

// Open opens the bundle at path and verifies its manifest, its file list and
// every checksum. path is a bundle directory, an output directory whose
// latest link points to one, or a .tar archive written by Pack, which is
// extracted into a private temporary directory that Close removes (the
// rules extraction enforces are listed at extract and in docs/bundle.md).
func Open(path string) (*Bundle, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		if !strings.HasSuffix(path, ArchiveExt) {
			return nil, fmt.Errorf("open bundle %s: %w: not a directory or a %s archive", path, ErrInvalid, ArchiveExt)
		}
		return openArchive(path)
	}
	return openDir(path)
}

func openDir(dir string) (*Bundle, error) {
	if _, err := os.Lstat(filepath.Join(dir, LatestLink)); err == nil {
		target, err := os.Readlink(filepath.Join(dir, LatestLink))
		if err != nil {
			return nil, fmt.Errorf("open bundle %s: %w", dir, err)
		}
		if filepath.IsAbs(target) || !filepath.IsLocal(target) {
			return nil, fmt.Errorf("open bundle %s: latest link %q: %w", dir, target, ErrEscape)
		}
		dir = filepath.Join(dir, target)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open bundle %s: %w", dir, err)
	}
	b := &Bundle{Dir: dir, root: root}
	if err := b.verify(); err != nil {
		return nil, errors.Join(fmt.Errorf("open bundle %s: %w", dir, err), root.Close())
	}
	return b, nil
}

// name is how errors name the bundle: its archive, else its directory.
func (b *Bundle) name() string { return cmp.Or(b.Archive, b.Dir) }

func (b *Bundle) verify() error {
	raw, err := b.root.ReadFile(ManifestFile)
	if err != nil {
		return fmt.Errorf("%w: read %s: %w", ErrInvalid, ManifestFile, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&b.Manifest); err != nil {
		return fmt.Errorf("%w: parse %s: %w", ErrInvalid, ManifestFile, err)
	}
	m := b.Manifest
	if m.Format != Format {
		return fmt.Errorf("%w: format %q, want %q", ErrInvalid, m.Format, Format)
	}
	if major, _, _ := strings.Cut(m.Version, "."); major != "1" {
		return fmt.Errorf("%w: %q (this kgforge reads 1.x; upgrade kgforge or rebuild the bundle)", ErrVersion, m.Version)
	}
	for _, required := range []string{NodesFile, EdgesFile, ChunksFile, SourcesFile, TripletsFile, MergesFile, TablesFile, DataFile} {
		if _, ok := m.Files[required]; !ok {
			return fmt.Errorf("%w: manifest lists no %s", ErrInvalid, required)
		}
	}
	if err := checkManifestVectors(m); err != nil {
		return err
	}
	if err := checkManifestDigests(m); err != nil {
		return err
	}
	if err := checkManifestLinks(m); err != nil {
		return err
	}
	if err := checkManifestPostings(m); err != nil {
		return err
	}
	if err := b.checkEntries(); err != nil {
		return err
	}
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !filepath.IsLocal(name) || strings.ContainsRune(name, '/') {
			return fmt.Errorf("%w: %q", ErrEscape, name)
		}
		want := m.Files[name]
		f, err := b.root.Open(name)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, name, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%w: read %s: %w", ErrInvalid, name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 || n != want.Bytes {
			return fmt.Errorf("%w: %s has sha256 %s (%d bytes), manifest says %s (%d bytes)", ErrChecksum, name, got, n, want.SHA256, want.Bytes)
		}
	}
	return nil
}

// checkEntries refuses any entry of the bundle directory but manifest.json
// and the files the manifest lists, and any of those that is not a regular
// file: an unlisted file could change what a reader sees although every
// listed checksum holds (a data.duckdb.wal beside data.duckdb is replayed
// by DuckDB), and a link could point anywhere.
func (b *Bundle) checkEntries() error {
	d, err := b.root.Open(".")
	if err != nil {
		return fmt.Errorf("%w: list the bundle directory: %w", ErrInvalid, err)
	}
	entries, err := d.ReadDir(-1)
	if err = errors.Join(err, d.Close()); err != nil {
		return fmt.Errorf("%w: list the bundle directory: %w", ErrInvalid, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		name := e.Name()
		if _, listed := b.Manifest.Files[name]; !listed && name != ManifestFile {
			return fmt.Errorf("%w: %s (%s) is %w; a bundle holds only %s and the files it lists: remove it, or rebuild the bundle",
				ErrInvalid, name, entryKind(e.Type()), ErrUnlisted, ManifestFile)
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%w: %s is %s, not a regular file", ErrInvalid, name, entryKind(e.Type()))
		}
	}
	return nil
}

// entryKind names the kind of a directory entry for an error message.
func entryKind(t fs.FileMode) string {
	switch {
	case t.IsRegular():
		return "a file"
	case t.IsDir():
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	}
	return "an entry of mode " + t.String()
}

// Close releases the bundle and removes the directory an archive was
// extracted into.
func (b *Bundle) Close() error {
	err := b.root.Close()
	if b.tmp != "" {
		err = errors.Join(err, os.RemoveAll(b.tmp))
		b.tmp = ""
	}
	return err
}

// Files returns the names of the bundle's files, sorted.
func (b *Bundle) Files() []string {
	names := []string{ManifestFile}
	for name := range b.Manifest.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ReadFile returns up to limit bytes of a file of the bundle; a name that
// would leave the bundle is refused with ErrEscape.
func (b *Bundle) ReadFile(name string, limit int64) (_ []byte, err error) {
	if !fs.ValidPath(name) || strings.ContainsRune(name, '/') {
		return nil, fmt.Errorf("read %q from bundle %s: %w", name, b.name(), ErrEscape)
	}
	f, err := b.root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %q from bundle %s: %w", name, b.name(), err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return io.ReadAll(io.LimitReader(f, limit))
}

func (b *Bundle) path(name string) string { return filepath.Join(b.Dir, name) }

// Nodes streams the graph's nodes.
func (b *Bundle) Nodes(ctx context.Context, fn func(kg.Node) error) error {
	return readParquet(ctx, b.path(NodesFile), nodeColumns, fn)
}

// Edges streams the graph's edges.
func (b *Bundle) Edges(ctx context.Context, fn func(kg.Edge) error) error {
	return readParquet(ctx, b.path(EdgesFile), edgeColumns, fn)
}

// Chunks streams the chunks.
func (b *Bundle) Chunks(ctx context.Context, fn func(kg.Chunk) error) error {
	return readParquet(ctx, b.path(ChunksFile), chunkColumns, fn)
}

// Triplets streams the grounded triplets.
func (b *Bundle) Triplets(ctx context.Context, fn func(kg.Triplet) error) error {
	return readParquet(ctx, b.path(TripletsFile), tripletColumns, fn)
}

// Merges streams the merge log: one row per member of every entity node.
func (b *Bundle) Merges(ctx context.Context, fn func(kg.MergeDecision) error) error {
	return readParquet(ctx, b.path(MergesFile), mergeColumns, fn)
}

// MergeLinks streams the scored pairs of the merge log; a bundle older than
// format 1.2 has none.
func (b *Bundle) MergeLinks(ctx context.Context, fn func(kg.MergeLink) error) error {
	if _, ok := b.Manifest.Files[MergeLinksFile]; !ok {
		return nil
	}
	return readParquet(ctx, b.path(MergeLinksFile), mergeLinkColumns, fn)
}

// Links streams the link log: every scored candidate link between the
// semantic layer and the data layer, linked, uncertain or not; a bundle
// older than format 1.4 has none.
func (b *Bundle) Links(ctx context.Context, fn func(kg.Link) error) error {
	if _, ok := b.Manifest.Files[LinksFile]; !ok {
		return nil
	}
	return readParquet(ctx, b.path(LinksFile), linkColumns, fn)
}

// linksVersion is the first minor version of format 1 whose bundles hold
// links.parquet.
const linksVersion = 4

// checkManifestLinks refuses a manifest of format 1.4 or later that lists
// no link log: such a bundle lost a file.
func checkManifestLinks(m Manifest) error {
	_, minor, _ := strings.Cut(m.Version, ".")
	if n, err := strconv.Atoi(minor); err == nil && n >= linksVersion {
		if _, ok := m.Files[LinksFile]; !ok {
			return fmt.Errorf("%w: manifest of format %s lists no %s", ErrInvalid, m.Version, LinksFile)
		}
	}
	return nil
}

// postingsVersion is the first minor version of format 1 whose bundles
// hold postings.parquet and postings_docs.parquet.
const postingsVersion = 5

// checkManifestPostings refuses a manifest of format 1.5 or later that
// lists no search index: such a bundle lost a file.
func checkManifestPostings(m Manifest) error {
	_, minor, _ := strings.Cut(m.Version, ".")
	if n, err := strconv.Atoi(minor); err == nil && n >= postingsVersion {
		for _, f := range []string{PostingsFile, PostingDocsFile} {
			if _, ok := m.Files[f]; !ok {
				return fmt.Errorf("%w: manifest of format %s lists no %s", ErrInvalid, m.Version, f)
			}
		}
	}
	return nil
}

// Postings streams the search index's postings; a bundle older than
// format 1.5 has none.
func (b *Bundle) Postings(ctx context.Context, fn func(Posting) error) error {
	if _, ok := b.Manifest.Files[PostingsFile]; !ok {
		return nil
	}
	return readParquet(ctx, b.path(PostingsFile), postingColumns, fn)
}

// PostingDocs streams the search index's documents; a bundle older than
// format 1.5 has none.
func (b *Bundle) PostingDocs(ctx context.Context, fn func(PostingDoc) error) error {
	if _, ok := b.Manifest.Files[PostingDocsFile]; !ok {
		return nil
	}
	return readParquet(ctx, b.path(PostingDocsFile), postingDocColumns, fn)
}

// Tables returns the profiles of the data layer's tables.
func (b *Bundle) Tables() ([]kg.Table, error) {
	raw, err := b.ReadFile(TablesFile, 64<<20)
	if err != nil {
		return nil, err
	}
	var t []kg.Table
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("read %s from bundle %s: %w", TablesFile, b.name(), err)
	}
	return t, nil
}

// Sandbox opens a read-only SQL view of the bundle with the default limits
// (see SandboxWithLimits).
func (b *Bundle) Sandbox(ctx context.Context) (*duck.Sandbox, error) {
	return b.SandboxWithLimits(ctx, duck.SandboxLimits{})
}

// SandboxWithLimits opens a read-only SQL view of the bundle: the data
// tables, and the tables nodes, edges, chunks, sources, triplets, merges,
// merge_links, links, postings and postings_docs (those the bundle has) loaded from its Parquet
// files. No statement run through it can read or write a file, of the
// bundle or any other; lim bounds every query.
func (b *Bundle) SandboxWithLimits(ctx context.Context, lim duck.SandboxLimits) (*duck.Sandbox, error) {
	tables := map[string]string{}
	for _, f := range []string{NodesFile, EdgesFile, ChunksFile, SourcesFile, TripletsFile, MergesFile, MergeLinksFile, LinksFile, PostingsFile, PostingDocsFile} {
		if _, ok := b.Manifest.Files[f]; !ok {
			continue // a file newer than the bundle
		}
		tables[strings.TrimSuffix(f, ".parquet")] = f
	}
	return duck.OpenSandbox(ctx, b.Dir, DataFile, tables, lim)
}
