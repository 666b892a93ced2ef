package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"kgforge/kg"
)

// Limits bound what one source may make a build read or hold. Zero fields
// take the defaults of DefaultLimits.
type Limits struct {
	MaxTextBytes  int64 // a text-like file; it is read whole, so this bounds memory
	MaxTableBytes int64 // a table-like file; it is streamed, so this bounds time and disk
	MaxUnzipped   int64 // the total uncompressed size of a zip container (DOCX, XLSX)
	MaxRatio      int64 // the largest uncompressed/compressed ratio of one zip entry
	MaxRecords    int   // records of one JSON, JSONL or log source

	// The budget of one text-like source, checked before any of its
	// chunks reaches a model (CheckBudget, ChunkWithin).
	MaxChunks    int // chunks of one source
	MaxTokens    int // estimated tokens of one source's text (EstimateTokens)
	MaxWordBytes int // the longest run of text without white space, which no chunk can cut
}

// DefaultLimits are the limits a pipeline gets unless it sets its own.
var DefaultLimits = Limits{
	MaxTextBytes:  64 << 20,
	MaxTableBytes: 8 << 30,
	MaxUnzipped:   1 << 30,
	MaxRatio:      200,
	MaxRecords:    1_000_000,
	MaxChunks:     20_000,    // as many model calls; about 5 million tokens at the default chunk size
	MaxTokens:     5_000_000, // about 20 MB of English text
	MaxWordBytes:  8 << 10,   // random letters or base64 this long is 4,400 to 5,900 tokens: one chunk within the default context
}

// MaxSourceBytes is the default bound on one text-like source's size.
const MaxSourceBytes = 64 << 20

// WithDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.MaxTextBytes > 0 {
		d.MaxTextBytes = l.MaxTextBytes
	}
	if l.MaxTableBytes > 0 {
		d.MaxTableBytes = l.MaxTableBytes
	}
	if l.MaxUnzipped > 0 {
		d.MaxUnzipped = l.MaxUnzipped
	}
	if l.MaxRatio > 0 {
		d.MaxRatio = l.MaxRatio
	}
	if l.MaxRecords > 0 {
		d.MaxRecords = l.MaxRecords
	}
	if l.MaxChunks > 0 {
		d.MaxChunks = l.MaxChunks
	}
	if l.MaxTokens > 0 {
		d.MaxTokens = l.MaxTokens
	}
	if l.MaxWordBytes > 0 {
		d.MaxWordBytes = l.MaxWordBytes
	}
	return d
}

// Options are the per-source settings of the pipeline file that readers and
// table loaders use. Each field applies to the kinds its comment names.
type Options struct {
	TextFields  []string // json, jsonl: dotted paths of the fields that hold text; empty: every string field
	RecordStart string   // log: regular expression a line must match to start a record; empty: one record per line
	TimeLayout  string   // log: Go time layout of the timestamp that starts a record; empty: detected
	Sheets      []string // xlsx: sheets to load; empty: every sheet
	Numbers     string   // csv, xlsx: NumbersText keeps numbers written as text ("$19,373") as text; empty: read them as numbers (numbers.go)
	Tables      []string // sqlite, duckdb, postgres: tables to load ("schema.table" allowed); empty: every user table
	Query       string   // postgres: a SELECT whose result is loaded as one table, instead of Tables
	DSN         string   // postgres: the connection string (read from the environment variable the pipeline names)
	Limits      Limits
}

// Document is a text-like source read into plain text with its sections.
type Document struct {
	Source   kg.Source
	Text     string
	Sections []Section // ordered, non-overlapping, within Text

	// Verbatim says Text is the file's own text (newlines normalised), so
	// line numbers of Text are line numbers of the file.
	Verbatim bool
	// Records, when set, are the units the chunker packs whole: log
	// records, JSON records. Ordered, non-overlapping, within Text; every
	// record lies inside one section.
	Records []Record
}

// Section is a part of a document under one heading path, or one page.
type Section struct {
	Path string // headings joined by " > "; empty before the first heading
	Page int    // 1-based page for paged formats (PDF); 0 otherwise
	Span kg.Span
}

// Record is one log or JSON record of a document.
type Record struct {
	Span kg.Span
	Time time.Time // the record's timestamp; zero when it has none
}

// Reader turns the bytes of one source into a Document. Implementations are
// stateless and safe for concurrent use; an error that wraps kg.ErrRejected
// means this source alone cannot be read, and names the source and why.
type Reader interface {
	Read(ctx context.Context, src kg.Source, data []byte, opt Options) (Document, error)
}

var (
	readersMu sync.RWMutex
	readers   = map[kg.SourceKind]Reader{}
	loaders   = map[kg.SourceKind]TableLoader{}
)

// Register makes a reader available for a text-like kind. It panics if r is
// nil or a reader is already registered for kind.
func Register(kind kg.SourceKind, r Reader) {
	readersMu.Lock()
	defer readersMu.Unlock()
	if r == nil {
		panic("ingest: Register reader is nil for kind " + string(kind))
	}
	if _, dup := readers[kind]; dup {
		panic("ingest: Register called twice for kind " + string(kind))
	}
	readers[kind] = r
}

// RegisterTable makes a table loader available for a table-like kind. It
// panics if l is nil or a loader is already registered for kind.
func RegisterTable(kind kg.SourceKind, l TableLoader) {
	readersMu.Lock()
	defer readersMu.Unlock()
	if l == nil {
		panic("ingest: RegisterTable loader is nil for kind " + string(kind))
	}
	if _, dup := loaders[kind]; dup {
		panic("ingest: RegisterTable called twice for kind " + string(kind))
	}
	loaders[kind] = l
}

func readerFor(kind kg.SourceKind) (Reader, bool) {
	readersMu.RLock()
	defer readersMu.RUnlock()
	r, ok := readers[kind]
	return r, ok
}

func loaderFor(kind kg.SourceKind) (TableLoader, bool) {
	readersMu.RLock()
	defer readersMu.RUnlock()
	l, ok := loaders[kind]
	return l, ok
}

var extKinds = map[string]kg.SourceKind{
	".txt": kg.KindText, ".text": kg.KindText,
	".md": kg.KindMarkdown, ".markdown": kg.KindMarkdown,
	".html": kg.KindHTML, ".htm": kg.KindHTML, ".xhtml": kg.KindHTML,
	".pdf":   kg.KindPDF,
	".docx":  kg.KindDOCX,
	".json":  kg.KindJSON,
	".jsonl": kg.KindJSONL, ".ndjson": kg.KindJSONL,
	".log": kg.KindLog,
	".csv": kg.KindCSV, ".tsv": kg.KindCSV, ".tab": kg.KindCSV,
	".xlsx":    kg.KindXLSX,
	".parquet": kg.KindParquet,
	".sqlite":  kg.KindSQLite, ".sqlite3": kg.KindSQLite, ".db": kg.KindSQLite,
	".duckdb": kg.KindDuckDB,
}

// KindOf detects a source's kind from its file name; an empty result means
// the extension is unknown.
func KindOf(name string) kg.SourceKind {
	return extKinds[strings.ToLower(filepath.Ext(name))]
}

// Sniff tells the kind of a file from its first bytes when they carry a
// signature (PDF, zip containers, SQLite, DuckDB, Parquet); zr, when not nil,
// lets it tell a DOCX from an XLSX. An empty result means no signature: the
// file may be text.
func Sniff(head []byte, zr *zip.Reader) kg.SourceKind {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return kg.KindPDF
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return kg.KindSQLite
	case bytes.HasPrefix(head, []byte("PAR1")):
		return kg.KindParquet
	case len(head) >= 12 && string(head[8:12]) == "DUCK":
		return kg.KindDuckDB
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		if zr != nil {
			for _, f := range zr.File {
				switch f.Name {
				case "word/document.xml":
					return kg.KindDOCX
				case "xl/workbook.xml":
					return kg.KindXLSX
				}
			}
		}
		return "zip"
	}
	return ""
}

// binaryKinds are the kinds whose files carry a signature Sniff knows.
var binaryKinds = map[kg.SourceKind]bool{
	kg.KindPDF: true, kg.KindDOCX: true, kg.KindXLSX: true,
	kg.KindSQLite: true, kg.KindParquet: true, kg.KindDuckDB: true,
}

// Found is one source discovered under a root, or a database connection.
type Found struct {
	Rel    string        // slash path relative to the root; "postgres:NAME" for a connection
	Kind   kg.SourceKind // detected or forced kind
	Forced bool          // the pipeline set the kind
	Source string        // the pipeline source it came from
}

// Discover expands glob patterns (slash paths relative to root, where "**"
// matches any number of directories) into the sorted, de-duplicated list of
// files they match. A pattern that matches nothing is an error: a pipeline
// that names nothing is a mistake.
//
// exclude names the directories the pipeline writes (its output, with its
// bundles, latest link, reports and temporary directories, and its cache):
// a match that is in one of them, or is a symlink that resolves into one, is
// left out, so that a build never reads back what a build wrote. A match
// that cannot be examined (a symlink leading outside root, a dangling one, a
// file deleted since it was listed) or whose kind is unknown is kept, for
// Open to reject alone.
func Discover(root *os.Root, patterns []string, kind kg.SourceKind, exclude ...string) ([]Found, error) {
	var out []Found
	seen := map[string]bool{}
	fsys := root.FS()
	skip, err := newExcluder(root.Name(), exclude)
	if err != nil {
		return nil, err
	}
	for _, p := range patterns {
		matches, err := glob(root, p)
		if err != nil {
			return nil, err
		}
		excluded := 0
		for _, m := range matches {
			if skip.excludes(m) {
				excluded++
				continue
			}
			info, err := fs.Stat(fsys, m)
			if err == nil && !info.Mode().IsRegular() || seen[m] {
				continue
			}
			seen[m] = true
			k := kind
			if k == "" {
				k = KindOf(m) // empty for an unknown extension, which Open rejects
			}
			out = append(out, Found{Rel: m, Kind: k, Forced: kind != ""})
		}
		if len(matches) == excluded {
			return nil, noMatch(root, p, excluded)
		}
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.Rel, b.Rel) })
	return out, nil
}

// glob returns the paths under root that pattern matches, files and
// symlinks to anything. "**" does not descend into symlinked directories,
// so a symlink loop cannot make it walk forever.
func glob(root *os.Root, pattern string) ([]string, error) {
	if !fs.ValidPath(pattern) {
		return nil, fmt.Errorf("source pattern %q: must be a relative slash path inside the pipeline root (no \"..\")", pattern)
	}
	matches, err := doublestar.Glob(root.FS(), pattern, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
	if err != nil {
		return nil, fmt.Errorf("source pattern %q: %w", pattern, err)
	}
	if len(matches) == 0 {
		// A file named exactly that Glob cannot stat (a symlink out of
		// root, a dangling one) is kept: Open rejects it with the reason.
		if _, err := root.Lstat(pattern); !errors.Is(err, fs.ErrNotExist) {
			matches = []string{pattern}
		}
	}
	return matches, nil
}

func noMatch(root *os.Root, pattern string, excluded int) error {
	if excluded > 0 {
		return fmt.Errorf("source pattern %q under %s: matches no file but %d in the pipeline's own output or cache, which are never read", pattern, root.Name(), excluded)
	}
	return fmt.Errorf("source pattern %q under %s: matches no file", pattern, root.Name())
}

// excluder tells whether a path under the root lies in one of the
// directories a build writes, comparing paths with every symlink resolved.
type excluder struct {
	rootDir string   // the root, resolved
	dirs    []string // the excluded directories, resolved
}

// newExcluder resolves the excluded directories. One that holds the root
// is dropped, as nothing written there lies under the root; the root itself
// cannot be excluded without excluding every source.
func newExcluder(rootDir string, dirs []string) (excluder, error) {
	e := excluder{rootDir: resolvePath(rootDir)}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		r := resolvePath(d)
		switch {
		case r == e.rootDir:
			return e, fmt.Errorf("the pipeline root %s is also a directory the build writes to (%s); give the output and the cache directories of their own, inside the root or not", rootDir, d)
		case !within(e.rootDir, r):
			e.dirs = append(e.dirs, r)
		}
	}
	return e, nil
}

// excludes reports whether rel, a slash path under the root, is in an
// excluded directory, as named or once its symlinks are resolved.
func (e excluder) excludes(rel string) bool {
	named := filepath.Join(e.rootDir, filepath.FromSlash(rel))
	resolved, err := filepath.EvalSymlinks(named)
	for _, d := range e.dirs {
		if within(named, d) || err == nil && within(resolved, d) {
			return true
		}
	}
	return false
}

// resolvePath returns p absolute with the symlinks of its longest existing
// prefix resolved: an output directory that does not exist yet still
// compares equal to the one a later build creates.
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(resolved, rest)
		}
		if filepath.Dir(dir) == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether path p is dir or lies under it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Opened is one source file opened and checked.
type Opened struct {
	Source kg.Source
	Data   []byte // the whole file, for text-like kinds only
	Path   string // absolute path of the file, checked to be the one under the root
}

// Open reads one source through root, bounded by the limits, checks that its
// content matches its kind, and describes it. Text-like sources are read
// whole (they are bounded by MaxTextBytes); table-like ones are only hashed,
// streaming, and their Path is handed to the table loader. rootDir is the
// directory root was opened on.
func Open(root *os.Root, rootDir string, f Found, lim Limits) (_ Opened, err error) {
	lim = lim.WithDefaults()
	reject := func(format string, a ...any) error { return Rejectf(f.Rel, format, a...) }
	file, err := root.Open(f.Rel)
	if err != nil {
		return Opened{}, reject("%s", unopenable(root, f.Rel, err))
	}
	defer func() { err = errors.Join(err, file.Close()) }()
	info, err := file.Stat()
	if err != nil {
		return Opened{}, reject("%v", err)
	}
	if !info.Mode().IsRegular() {
		return Opened{}, reject("not a regular file")
	}
	if f.Kind == "" {
		return Opened{}, reject("unknown kind for extension %q (set kind in the pipeline file)", path.Ext(f.Rel))
	}
	limit := lim.MaxTextBytes
	if f.Kind.IsTable() {
		limit = lim.MaxTableBytes
	}
	if info.Size() > limit {
		return Opened{}, reject("%d bytes is over the limit of %d", info.Size(), limit)
	}
	if info.Size() == 0 {
		return Opened{}, reject("empty file")
	}
	head := make([]byte, 16)
	n, err := io.ReadFull(file, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Opened{}, reject("%v", err)
	}
	head = head[:n]
	var zr *zip.Reader
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		if zr, err = zip.NewReader(file, info.Size()); err != nil {
			return Opened{}, reject("corrupt zip container: %v", err)
		}
	}
	if err := checkKind(f, Sniff(head, zr)); err != nil {
		return Opened{}, reject("%v", err)
	}
	if zr != nil {
		if err := CheckZip(zr, lim); err != nil {
			return Opened{}, reject("%v", err)
		}
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return Opened{}, reject("%v", err)
	}
	h := sha256.New()
	var data []byte
	if f.Kind.IsTable() {
		_, err = io.Copy(h, io.LimitReader(file, limit+1))
	} else {
		data, err = io.ReadAll(io.LimitReader(file, limit+1))
		h.Write(data)
	}
	if err != nil {
		return Opened{}, reject("%v", err)
	}
	if int64(len(data)) > limit {
		return Opened{}, reject("grew over the limit of %d bytes while read", limit)
	}
	abs := filepath.Join(rootDir, filepath.FromSlash(f.Rel))
	if err := sameFile(info, abs); err != nil {
		return Opened{}, reject("%v", err)
	}
	return Opened{Source: describe(f, h, info), Data: data, Path: abs}, nil
}

// unopenable says in words why the file at rel could not be opened through
// root: os.Root refuses a symlink that leads out of it with a bare "path
// escapes from parent".
func unopenable(root *os.Root, rel string, err error) string {
	li, lerr := root.Lstat(rel)
	link := lerr == nil && li.Mode()&fs.ModeSymlink != 0
	switch {
	case errors.Is(err, fs.ErrNotExist) && link:
		return "a symlink to nothing (dangling, or its target was deleted)"
	case errors.Is(err, fs.ErrNotExist):
		return "the file is gone (deleted or renamed after it was listed)"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.ELOOP):
		return "a loop of symlinks"
	case link || lerr != nil:
		return fmt.Sprintf("a symlink that leads outside the pipeline root %s; only files inside it are read (%v)", root.Name(), err)
	}
	return err.Error()
}

func describe(f Found, h hash.Hash, info fs.FileInfo) kg.Source {
	return kg.Source{
		ID:       kg.ID("source", f.Rel),
		URI:      f.Rel,
		Kind:     f.Kind,
		SHA256:   hex.EncodeToString(h.Sum(nil)),
		Bytes:    info.Size(),
		Modified: info.ModTime().UTC(),
	}
}

// sameFile checks that abs, the path loaders that need a file name get, is
// the file opened through the root (a symlink swapped in between would not be).
func sameFile(opened fs.FileInfo, abs string) error {
	st, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !os.SameFile(opened, st) {
		return errors.New("the file changed while it was opened")
	}
	return nil
}

// checkKind compares the kind a source was given with the kind its content
// shows.
func checkKind(f Found, sniffed kg.SourceKind) error {
	switch {
	case sniffed == f.Kind:
		return nil
	case sniffed == "zip":
		return fmt.Errorf("content is a zip archive that is neither DOCX nor XLSX, but the source is %s", f.Kind)
	case sniffed != "" && !f.Forced:
		return fmt.Errorf("content is %s but the file name says %s (rename it or set kind: %s)", sniffed, f.Kind, sniffed)
	case sniffed != "":
		return fmt.Errorf("content is %s but the pipeline sets kind %s", sniffed, f.Kind)
	case binaryKinds[f.Kind]:
		return fmt.Errorf("not a %s file: its content has no %s signature", f.Kind, f.Kind)
	}
	return nil
}

// CheckZip refuses a zip container whose entries would expand past the
// limits (a zip bomb): by declared sizes, the ratio of each entry, and the
// number of entries. Readers must still read entries through a LimitReader,
// since declared sizes can lie.
func CheckZip(zr *zip.Reader, lim Limits) error {
	lim = lim.WithDefaults()
	if len(zr.File) > 100_000 {
		return fmt.Errorf("zip container has %d entries, over the limit of 100000", len(zr.File))
	}
	var total uint64
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if total > uint64(lim.MaxUnzipped) {
			return fmt.Errorf("zip container expands to more than %d bytes (zip bomb?)", lim.MaxUnzipped)
		}
		if f.UncompressedSize64 > 1<<20 && f.UncompressedSize64 > uint64(lim.MaxRatio)*max(f.CompressedSize64, 1) {
			return fmt.Errorf("zip entry %s expands %d times (over the limit of %d; zip bomb?)", f.Name, f.UncompressedSize64/max(f.CompressedSize64, 1), lim.MaxRatio)
		}
	}
	return nil
}

// ReadZipEntry reads one entry of a zip container whole, refusing to read
// more than limit bytes whatever its header declares.
func ReadZipEntry(f *zip.File, limit int64) (_ []byte, err error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("zip entry %s: %d bytes is over the limit of %d", f.Name, f.UncompressedSize64, limit)
	}
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("zip entry %s: %w", f.Name, err)
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("zip entry %s: %w", f.Name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("zip entry %s: expands past the limit of %d bytes", f.Name, limit)
	}
	return data, nil
}

// ReadDocument reads a text-like source with the reader registered for its kind.
func ReadDocument(ctx context.Context, src kg.Source, data []byte, opt Options) (Document, error) {
	r, ok := readerFor(src.Kind)
	if !ok {
		return Document{}, fmt.Errorf("source %s: %w: no reader for kind %q", src.URI, kg.ErrRejected, src.Kind)
	}
	return r.Read(ctx, src, data, opt)
}

// Rejectf returns the error that refuses the source at uri alone, for the
// reason format and a say: "source URI: rejected: REASON", wrapping
// kg.ErrRejected.
func Rejectf(uri, format string, a ...any) error {
	return fmt.Errorf("source %s: %w: %s", uri, kg.ErrRejected, fmt.Sprintf(format, a...))
}

// ErrNotText means a source said to be text is binary or not valid UTF-8.
var ErrNotText = errors.New("not UTF-8 text")

// CheckText rejects data that is empty, binary or not UTF-8, naming the
// source and, for bad UTF-8, the offset of the first bad byte. Text readers
// call it first.
func CheckText(src kg.Source, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("source %s: %w: empty file", src.URI, kg.ErrRejected)
	}
	if slices.Contains(data[:min(len(data), 8192)], 0) {
		return fmt.Errorf("source %s: %w: %w: binary content (NUL bytes)", src.URI, kg.ErrRejected, ErrNotText)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("source %s: %w: %w: invalid UTF-8 at byte %d (wrongly encoded; convert it to UTF-8)", src.URI, kg.ErrRejected, ErrNotText, InvalidAt(data))
	}
	return nil
}

// InvalidAt returns the offset of the first byte of data that is not valid
// UTF-8, or -1.
func InvalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, w := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && w == 1 {
			return i
		}
		i += w
	}
	return -1
}
