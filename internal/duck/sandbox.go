package duck

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Defaults of SandboxLimits, for a laptop that also runs the chat model: a
// query over a bundle takes well under a second, so 30 s only stops runaway
// joins; 1 GiB holds the graph tables of a bundle of a few hundred thousand
// chunks with room for the query; 2 threads leave the other cores to Ollama.
const (
	DefaultQueryTimeout = 30 * time.Second
	DefaultMemoryLimit  = "1GiB"
	DefaultThreads      = 2
)

// SandboxLimits bound what the queries of one sandbox may use. A zero field
// takes its default.
type SandboxLimits struct {
	// Timeout stops one query after this long: DuckDB is interrupted and
	// Query returns an error that wraps ErrTimeLimit.
	Timeout time.Duration
	// MemoryLimit is DuckDB's memory_limit for the whole sandbox, the
	// bundle's graph tables included (e.g. "512MB", "2GiB"). A query that
	// needs more fails with an error that wraps ErrMemoryLimit; nothing
	// spills to disk.
	MemoryLimit string
	// Threads is the number of DuckDB worker threads.
	Threads int
}

// ErrBadLimits means SandboxLimits that DuckDB cannot take.
var ErrBadLimits = errors.New("bad sandbox limits")

func (l SandboxLimits) withDefaults() (SandboxLimits, error) {
	if l.Timeout < 0 || l.Threads < 0 {
		return l, fmt.Errorf("%w: timeout %s and threads %d must not be negative", ErrBadLimits, l.Timeout, l.Threads)
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultQueryTimeout
	}
	if l.MemoryLimit == "" {
		l.MemoryLimit = DefaultMemoryLimit
	}
	if l.Threads == 0 {
		l.Threads = DefaultThreads
	}
	return l, nil
}

// Sandbox is a read-only view of a bundle: its DuckDB data file attached
// read-only, its Parquet files loaded as tables, and no file system at all
// once it is open. It holds one connection; it is not safe for concurrent use.
type Sandbox struct {
	db  *sql.DB
	lim SandboxLimits
	tmp string // the private directory, until it is removed
}

// OpenSandbox opens an in-memory DuckDB that attaches dataFile (inside dir)
// read-only and loads one table per entry of tables (table name → Parquet
// file inside dir). Then it turns off DuckDB's local file system and locks
// the configuration, so that no statement, whatever the classifier in Query
// lets through, can read or write a file: the bundle cannot be altered
// through the sandbox, and nothing outside it can be read.
//
// The data file is attached through a hard link (or a copy) in a private
// directory, so that DuckDB never replays a write-ahead log placed beside
// the bundle's data file. Close releases everything.
func OpenSandbox(ctx context.Context, dir, dataFile string, tables map[string]string, lim SandboxLimits) (_ *Sandbox, err error) {
	lim, err = lim.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp("", "kgforge-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	s := &Sandbox{lim: lim, tmp: tmp}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	data, err := privateCopy(filepath.Join(absDir, dataFile), tmp)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", dir, err)
	}
	s.db = sql.OpenDB(connector)
	// One connection: the settings below are per database, but a single
	// connection also keeps USE and search_path stable.
	s.db.SetMaxOpenConns(1)
	for _, q := range limitSetup(lim) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("open sandbox %s: %w: %s: %w", dir, ErrBadLimits, q, err)
		}
	}
	for _, q := range sandboxSetup(absDir, data, tables) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("open sandbox %s: %s: %w", dir, q, err)
		}
	}
	// DuckDB holds the data file open: the private directory has done its
	// work. Where an open file cannot be removed (Windows), Close removes it.
	if os.RemoveAll(tmp) == nil {
		s.tmp = ""
	}
	return s, nil
}

// limitSetup returns the statements that set a sandbox's limits.
func limitSetup(lim SandboxLimits) []string {
	return []string{
		fmt.Sprintf("SET threads = %d", lim.Threads),
		"SET memory_limit = " + QuoteString(lim.MemoryLimit),
	}
}

// sandboxSetup returns the statements that open a sandbox after its limits,
// in order: the data, then the locks.
func sandboxSetup(dir, data string, tables map[string]string) []string {
	stmts := []string{
		// No spilling: a query has memory_limit and no disk. A temporary
		// directory would also be readable and writable by every query
		// (DuckDB adds it, by default <cwd>/.tmp/, to allowed_directories).
		"SET temp_directory = ''",
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		// TYPE DUCKDB: never let DuckDB pick (and load) another storage
		// extension from the file's content.
		fmt.Sprintf("ATTACH %s AS data (READ_ONLY, TYPE DUCKDB)", QuoteString(data)),
	}
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE memory.main.%s AS SELECT * FROM read_parquet(%s)",
			QuoteIdent(name), QuoteString(filepath.Join(dir, tables[name]))))
	}
	return append(stmts,
		"SET search_path = 'memory.main,data.main'",
		"SET enable_external_access = false",
		// allowed_paths and allowed_directories are not enough: a path
		// they allow can be written too (COPY ... (USE_TMP_FILE false)),
		// and ATTACH adds the data file and its .wal to allowed_paths.
		// Without the local file system no file can be opened at all; the
		// attached data file is read through the handle DuckDB already has.
		"SET disabled_filesystems = 'LocalFileSystem'",
		"SET lock_configuration = true",
	)
}

// privateCopy returns a path to the data file src inside dir, a directory
// of the sandbox's own, so that the write-ahead log DuckDB looks for
// (<path>.wal) is in a place nobody else can write: a hard link where the
// file system allows one, else a copy. A symbolic link would not do: DuckDB
// follows it and replays a WAL beside its target.
func privateCopy(src, dir string) (_ string, err error) {
	dst := filepath.Join(dir, filepath.Base(src))
	if fi, err := os.Lstat(src); err == nil && fi.Mode().IsRegular() {
		if os.Link(src, dst) == nil {
			return dst, nil
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("data file: %w", err)
	}
	defer func() { err = errors.Join(err, in.Close()) }()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("data file: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		return "", errors.Join(fmt.Errorf("copy data file %s: %w", src, err), out.Close())
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("copy data file %s: %w", src, err)
	}
	return dst, nil
}

// Close closes the sandbox and removes its private directory.
func (s *Sandbox) Close() error {
	var err error
	if s.db != nil {
		err = s.db.Close()
	}
	if s.tmp != "" {
		err = errors.Join(err, os.RemoveAll(s.tmp))
	}
	return err
}
