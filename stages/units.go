package stages

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"kgforge/bundle"
	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// Segment files of a source unit.
const (
	chunksFile = "chunks.parquet"
	tablesFile = "tables.duckdb"
)

// batchSize is the most chunks of one extract unit: small enough that a
// killed build loses little, large enough that a corpus is not a forest of
// tiny segments. (A chunk of an unfinished unit is still never sent to the
// model twice: its reply is in the LLM cache.)
const batchSize = 32

// sourceMeta is the unit file of a source unit's segment.
type sourceMeta struct {
	Source kg.Source `json:"source"`
	// Reject is why the source was rejected once its content was known;
	// kept so that an unchanged bad source is not read again to be
	// rejected again.
	Reject  string      `json:"reject,omitempty"`
	Batches []batchMeta `json:"batches,omitempty"` // a document's chunks, as extract units
	Tables  []kg.Table  `json:"tables,omitempty"`  // a table source's tables, in tables.duckdb
	// Wants is the name each table asked for (ingest.TableInput.Name), by
	// its name in the segment: the build gives it its final name, unique
	// among all the build's tables, as the readers would have.
	Wants map[string]string `json:"wants,omitempty"`
}

// batchMeta is one extract unit of a document: its chunks' ids, and
// whether any of them has a sentence to ask the model about.
type batchMeta struct {
	Chunks []string `json:"chunks"`
	Ask    bool     `json:"ask"`
}

// sourceUnit is one source of the plan, read now or reused.
type sourceUnit struct {
	found ingest.Found
	addr  string // empty when the source could not be opened
	meta  sourceMeta
	// reject is why the source could not be opened; not kept (the next
	// build tries again: permissions and files come back).
	reject  string
	reused  bool
	chunks  []kg.Chunk // the chunks, while the unit feeds its extract units
	extract []string   // the addresses of its extract units
	asks    []bool     // whether each of them asks the model (batchMeta.Ask)
}

// sourceAddress is the content address of a source unit: the source, its
// content, how it is read and cut, and the code that reads it.
func (b *build) sourceAddress(f ingest.Found, sha string) string {
	ps := b.bySource[f.Source]
	opt := sourceOptions(ps, b.limits)
	opt.DSN = "" // a secret, and not an input: the connection's digest stands for it
	chunking := b.p.Chunking
	if ps.Chunking != nil {
		chunking = *ps.Chunking
	}
	return address("source", f, sha, opt, chunking, batchSize, b.code)
}

// readSource runs or reuses the unit of one source. A source whose digest
// the file index vouches for, and whose segment is stored, is not opened.
func (b *build) readSource(ctx context.Context, f ingest.Found) (sourceUnit, error) {
	u := sourceUnit{found: f}
	if f.Kind == kg.KindPostgres {
		// A database has no digest short of reading it: its unit always
		// runs, under an address of this build alone.
		opt := sourceOptions(b.bySource[f.Source], b.limits)
		u.meta.Source = kg.Source{ID: kg.ID("source", f.Rel), URI: f.Rel, Kind: kg.KindPostgres, SHA256: ingest.ConnectionDigest(opt)}
		u.addr = b.sourceAddress(f, u.meta.Source.SHA256+"@"+b.rep.BuildID)
		b.count(func(p *Plan) { p.SourcesRead++ })
		return u, b.runTables(ctx, &u, "")
	}
	if info, err := b.root.Stat(f.Rel); err == nil {
		if sha, ok := b.index.lookup(b.indexKey(f), info); ok {
			if addr := b.sourceAddress(f, sha); b.st.has(addr) {
				u.addr = addr
				ok, err := b.reuseSource(ctx, &u, sha)
				if err != nil || ok {
					u.reused = ok
					// The segment may come from a read of the same content
					// at another time: the file's own time is the truth.
					u.meta.Source.Modified = info.ModTime().UTC()
					return u, err
				}
				u.addr = ""
			}
		}
	}
	b.count(func(p *Plan) { p.SourcesRead++ })
	o, err := ingest.Open(b.root, b.rootDir, f, b.limits)
	if err != nil {
		if !errors.Is(err, kg.ErrRejected) {
			return u, err
		}
		u.reject = err.Error()
		return u, nil
	}
	// The wall clock, the one file times come from (Runner.Now is the report's).
	b.index.record(b.indexKey(f), o.Source.Bytes, o.Source.Modified, time.Now(), o.Source.SHA256)
	u.addr = b.sourceAddress(f, o.Source.SHA256)
	if b.st.has(u.addr) {
		ok, err := b.reuseSource(ctx, &u, o.Source.SHA256)
		if err != nil || ok {
			u.reused = ok
			u.meta.Source = o.Source // the same content; its time may be newer
			return u, err
		}
	}
	u.meta.Source = o.Source
	if o.Source.Kind.IsTable() {
		return u, b.runTables(ctx, &u, o.Path)
	}
	return u, b.runDocument(ctx, &u, o.Data)
}

// indexKey is a source file's key in the file index: its absolute path,
// so that another root with the same relative paths is never vouched for.
func (b *build) indexKey(f ingest.Found) string {
	return filepath.Join(b.rootDir, filepath.FromSlash(f.Rel))
}

// runDocument reads and cuts one document and stores its segment.
func (b *build) runDocument(ctx context.Context, u *sourceUnit, data []byte) (err error) {
	if u.chunks, err = b.cutDocument(ctx, u, data); err != nil {
		if !errors.Is(err, kg.ErrRejected) {
			return err
		}
		u.meta.Reject, u.chunks = err.Error(), nil
	}
	u.meta.Batches = batches(u.chunks)
	return b.st.put(u.addr, func(dir string) (any, error) {
		if u.meta.Reject != "" {
			return u.meta, nil
		}
		return u.meta, bundle.WriteChunks(filepath.Join(dir, chunksFile), u.chunks)
	})
}

// cutDocument reads and cuts one document's content, as its source says.
func (b *build) cutDocument(ctx context.Context, u *sourceUnit, data []byte) ([]kg.Chunk, error) {
	ps := b.bySource[u.found.Source]
	opt := sourceOptions(ps, b.limits)
	chunking := b.p.Chunking
	if ps.Chunking != nil {
		chunking = *ps.Chunking
	}
	doc, err := ingest.ReadDocument(ctx, u.meta.Source, data, opt)
	if err != nil {
		return nil, err
	}
	// A source over its budget is rejected before any of its chunks
	// reaches the model.
	return ingest.ChunkWithin(doc, ingest.ChunkOptions{Size: chunking.Size, Overlap: chunking.Overlap}, opt.Limits)
}

// batches cuts a document's chunks into extract units.
func batches(chunks []kg.Chunk) []batchMeta {
	var out []batchMeta
	for lo := 0; lo < len(chunks); lo += batchSize {
		var bm batchMeta
		for _, c := range chunks[lo:min(lo+batchSize, len(chunks))] {
			bm.Chunks = append(bm.Chunks, c.ID)
			bm.Ask = bm.Ask || hasSentence(c)
		}
		out = append(out, bm)
	}
	return out
}

// runTables loads and profiles a table source into a DuckDB file of its
// own, its segment; path is the checked file (empty for a database).
func (b *build) runTables(ctx context.Context, u *sourceUnit, path string) error {
	return b.st.put(u.addr, func(dir string) (_ any, err error) {
		dbPath := filepath.Join(dir, tablesFile)
		db, err := duck.Open(ctx, dbPath, b.duckSettings())
		if err != nil {
			return nil, err
		}
		defer func() { err = errors.Join(err, db.Close()) }()
		taken := map[string]bool{}
		u.meta.Wants = map[string]string{}
		name := func(want string) string {
			local := ingest.UniqueName(taken, ingest.TableName(want))
			u.meta.Wants[local] = want
			return local
		}
		in := ingest.TableInput{Source: u.meta.Source, Path: path, Base: ingest.TableName(u.found.Rel), Options: sourceOptions(b.bySource[u.found.Source], b.limits), Name: name}
		if u.found.Kind == kg.KindPostgres {
			in.Base = u.found.Source
		}
		ts, err := ingest.LoadTables(ctx, db, in)
		if err != nil {
			if !errors.Is(err, kg.ErrRejected) {
				return nil, err
			}
			u.meta.Reject, u.meta.Tables, u.meta.Wants = err.Error(), nil, nil
			return u.meta, nil
		}
		u.meta.Tables = ts
		if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
			return nil, fmt.Errorf("source %s: checkpoint its tables: %w", u.found.Rel, err)
		}
		return u.meta, nil
	})
}

// chunksOf reads back the chunks of a stored document unit.
func (b *build) chunksOf(ctx context.Context, u *sourceUnit) ([]kg.Chunk, error) {
	if u.chunks != nil || u.meta.Reject != "" || len(u.meta.Batches) == 0 {
		return u.chunks, nil
	}
	var out []kg.Chunk
	seg, err := b.st.segment(u.addr)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", u.found.Rel, err)
	}
	err = bundle.ReadChunks(ctx, filepath.Join(seg, chunksFile), func(c kg.Chunk) error {
		if err := checkChunk(c, u.meta.Source.ID); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source %s: read its chunks: %w", u.found.Rel, err)
	}
	return out, nil
}
