package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"kgforge/kg"
)

// MaxSourceBytes is the default bound on one source's size.
const MaxSourceBytes = 64 << 20

// Document is a text-like source read into plain text with its sections.
type Document struct {
	Source   kg.Source
	Text     string
	Sections []Section // ordered, non-overlapping, covering Text
}

// Section is a part of a document under one heading path.
type Section struct {
	Path string // headings joined by " > "; empty before the first heading
	Span kg.Span
}

// Reader turns the bytes of one source into a Document. Implementations are
// stateless and safe for concurrent use; an error that wraps kg.ErrRejected
// means this source alone cannot be read.
type Reader interface {
	Read(ctx context.Context, src kg.Source, data []byte) (Document, error)
}

var (
	readersMu sync.RWMutex
	readers   = map[kg.SourceKind]Reader{}
)

// Register makes a reader available for a kind. It panics if r is nil or a
// reader is already registered for kind.
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

func readerFor(kind kg.SourceKind) (Reader, bool) {
	readersMu.RLock()
	defer readersMu.RUnlock()
	r, ok := readers[kind]
	return r, ok
}

// KindOf detects a source's kind from its file name; an empty result means
// the extension is unknown.
func KindOf(name string) kg.SourceKind {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".txt", ".text":
		return kg.KindText
	case ".md", ".markdown":
		return kg.KindMarkdown
	case ".csv", ".tsv":
		return kg.KindCSV
	}
	return ""
}

// Found is one source file discovered under a root.
type Found struct {
	Rel  string        // slash path relative to the root
	Kind kg.SourceKind // detected or forced kind
}

// Discover expands glob patterns (slash paths relative to root) into the
// sorted, de-duplicated list of regular files they match. A pattern that
// matches nothing is an error: a pipeline that names nothing is a mistake.
func Discover(root *os.Root, patterns []string, kind kg.SourceKind) ([]Found, error) {
	var out []Found
	seen := map[string]bool{}
	fsys := root.FS()
	for _, p := range patterns {
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("source pattern %q: must be a relative slash path inside the pipeline root (no \"..\")", p)
		}
		matches, err := fs.Glob(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("source pattern %q: %w", p, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("source pattern %q under %s: matches no file", p, root.Name())
		}
		for _, m := range matches {
			info, err := fs.Stat(fsys, m)
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", m, err)
			}
			if !info.Mode().IsRegular() || seen[m] {
				continue
			}
			seen[m] = true
			k := kind
			if k == "" {
				k = KindOf(m)
			}
			if k == "" {
				return nil, fmt.Errorf("source %s: unknown kind for extension %q (set kind in the pipeline file)", m, path.Ext(m))
			}
			out = append(out, Found{Rel: m, Kind: k})
		}
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.Rel, b.Rel) })
	return out, nil
}

// Open reads one source through root, bounded by maxBytes, and describes it.
func Open(root *os.Root, f Found, maxBytes int64) (_ kg.Source, _ []byte, err error) {
	file, err := root.Open(f.Rel)
	if err != nil {
		return kg.Source{}, nil, fmt.Errorf("source %s: %w: %w", f.Rel, kg.ErrRejected, err)
	}
	defer func() { err = errors.Join(err, file.Close()) }()
	info, err := file.Stat()
	if err != nil {
		return kg.Source{}, nil, fmt.Errorf("source %s: %w: %w", f.Rel, kg.ErrRejected, err)
	}
	if info.Size() > maxBytes {
		return kg.Source{}, nil, fmt.Errorf("source %s: %w: %d bytes is over the limit of %d", f.Rel, kg.ErrRejected, info.Size(), maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(file, maxBytes+1))
	if err != nil {
		return kg.Source{}, nil, fmt.Errorf("source %s: %w: %w", f.Rel, kg.ErrRejected, err)
	}
	if int64(len(data)) > maxBytes {
		return kg.Source{}, nil, fmt.Errorf("source %s: %w: grew over the limit of %d bytes while read", f.Rel, kg.ErrRejected, maxBytes)
	}
	sum := sha256.Sum256(data)
	src := kg.Source{
		ID:       kg.ID("source", f.Rel),
		URI:      f.Rel,
		Kind:     f.Kind,
		SHA256:   hex.EncodeToString(sum[:]),
		Bytes:    int64(len(data)),
		Modified: info.ModTime().UTC(),
	}
	return src, data, nil
}

// ReadDocument reads a text-like source with the reader registered for its kind.
func ReadDocument(ctx context.Context, src kg.Source, data []byte) (Document, error) {
	r, ok := readerFor(src.Kind)
	if !ok {
		return Document{}, fmt.Errorf("source %s: %w: no reader for kind %q", src.URI, kg.ErrRejected, src.Kind)
	}
	return r.Read(ctx, src, data)
}

// ErrNotText means a source said to be text is binary or not valid UTF-8.
var ErrNotText = errors.New("not UTF-8 text")

func checkText(src kg.Source, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("source %s: %w: empty file", src.URI, kg.ErrRejected)
	}
	if slices.Contains(data[:min(len(data), 8192)], 0) || !utf8.Valid(data) {
		return fmt.Errorf("source %s: %w: %w (binary or wrongly encoded file)", src.URI, kg.ErrRejected, ErrNotText)
	}
	return nil
}
