package stages

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
)

// StateDir is the name of the engine's state directory inside an output
// directory, beside the bundles. It holds the segments (what each unit of a
// build produced, under the content address of its inputs), the file index
// (size and time of each source file when its digest was taken) and one
// record per build (the segments and source digests its bundle was made
// from). A build writes it holding the output directory's lock (LockFile);
// shard runs write segments into it together, sharing the shard lock
// (shardlock.go), each segment whole or absent.
const StateDir = ".kgforge-state"

// Layout of the state directory.
const (
	segmentsDir = "segments"
	buildsDir   = "builds"
	filesIndex  = "files.json"
	unitFile    = "unit.json" // what a segment says of its unit, besides its data files
	tmpPrefix   = ".tmp-"
)

// state is a build's view of the state directory: its segments, behind
// a SegmentStore, and beside them the file index and the build records.
type state struct {
	dir  string
	segs SegmentStore

	mu       sync.Mutex
	verified map[string]bool // the segments whose digests this build checked (sound)
}

// openState opens (creating it if needed) the state directory of outDir
// and, when clean, removes the temporary segments a killed build left: the
// caller then holds the output lock exclusively, so no other build is
// writing one. A shard run, which shares the lock, leaves them.
func openState(outDir string, clean bool) (*state, error) {
	s := &state{dir: filepath.Join(outDir, StateDir)}
	if err := os.MkdirAll(filepath.Join(s.dir, buildsDir), 0o755); err != nil {
		return nil, fmt.Errorf("open state directory %s: %w", s.dir, err)
	}
	segs, err := openLocalStore(filepath.Join(s.dir, segmentsDir), clean)
	if err != nil {
		return nil, err
	}
	s.segs = segs
	return s, nil
}

// readState is the state directory of outDir, to be read only: nothing is
// created or cleaned (a missing directory holds no segment).
func readState(outDir string) *state {
	dir := filepath.Join(outDir, StateDir)
	return &state{dir: dir, segs: &localStore{dir: filepath.Join(dir, segmentsDir)}}
}

// address returns the content address of a unit: the SHA-256 of its kind
// and inputs, as JSON. Inputs must marshal the same way for the same
// meaning (structs and sorted maps do).
func address(kind string, inputs ...any) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	if err := enc.Encode(kind); err != nil {
		panic(err) // a string always encodes
	}
	for _, in := range inputs {
		if err := enc.Encode(in); err != nil {
			panic(fmt.Sprintf("stages: address input %T: %v", in, err)) // a programming error: inputs are plain data
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// segment returns a local directory holding the segment at addr.
func (s *state) segment(addr string) (string, error) { return s.segs.Get(addr) }

// has reports whether a whole segment is stored at addr.
func (s *state) has(addr string) bool { return s.segs.Has(addr) }

// put writes the segment at addr (SegmentStore.Put).
func (s *state) put(addr string, write func(dir string) (meta any, err error)) error {
	return s.segs.Put(addr, write)
}

// meta reads the unit file of the segment at addr into v.
func (s *state) meta(addr string, v any) error {
	dir, err := s.segment(addr)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, unitFile))
	if err != nil {
		return fmt.Errorf("read segment %s: %w", addr, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read segment %s: %s: %w", addr, unitFile, err)
	}
	return nil
}

// writeFileSync writes v as JSON to path through a temporary file renamed
// into place, synced.
func writeFileSync(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+"*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return errors.Join(err, os.Remove(f.Name()))
	}
	return nil
}

func syncPath(p string) error {
	d, err := os.Open(p)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// code is the running program's digest, taken once.
var code struct {
	once   sync.Once
	digest string
	err    error
}

// executableDigest returns the SHA-256 of the running program, the code
// part of every unit's address: a kgforge built from other code (a new
// reader, chunker, grounding rule) redoes every unit rather than trust
// segments it did not make. The LLM caches still spare it the model calls.
func executableDigest() (string, error) {
	code.once.Do(func() { code.digest, code.err = hashExecutable() })
	return code.digest, code.err
}

func hashExecutable() (_ string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("digest of the running program: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("digest of the running program: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("digest of the running program %s: %w", exe, err)
	}
	d := hex.EncodeToString(h.Sum(nil))
	if bi, ok := debug.ReadBuildInfo(); ok {
		d = bi.GoVersion + "-" + d
	}
	return d, nil
}

// dirEntries lists the names in dir; a missing dir is empty.
func dirEntries(dir string) ([]fs.DirEntry, error) {
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return es, err
}
