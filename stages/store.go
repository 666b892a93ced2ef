package stages

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SegmentStore holds the segments of a state directory, each under the
// content address of its unit: what a unit produced (its data files and its
// unit file), whole or absent. Any number of processes may use one store at
// once (shard runs do): Put of an address another process is putting, or
// has put, keeps one copy and fails neither, since the same address means
// the same content. docs/scale.md says what an object store needs to be one.
type SegmentStore interface {
	// Has reports whether a whole segment is stored at addr.
	Has(addr string) bool
	// Put stores the segment at addr: write fills an empty local directory
	// with the segment's files and returns what the unit file is to say of
	// the unit (JSON); Put adds the unit file, then the digests of every
	// file (sumsFile, verify.go). Nothing is visible at addr until all of
	// it is; a segment already at addr is kept, and Put returns nil.
	Put(addr string, write func(dir string) (meta any, err error)) error
	// Get returns a local directory holding the files of the segment at
	// addr, its unit file and digests among them (unitFile, sumsFile), to
	// be read, not written.
	Get(addr string) (dir string, err error)
	// List returns the address of every whole segment, in no order.
	List() ([]string, error)
	// Remove removes the segment at addr; a missing one is no error.
	Remove(addr string) error
}

// localStore is a SegmentStore in a local (or shared, mounted) directory:
// DIR/AB/ADDR, where AB is the address's first two hex digits. A segment is
// written into a temporary directory beside them and renamed into place.
type localStore struct {
	dir string
	// beforeRename, when set (by tests), runs between Put's check that
	// no segment is at the address and its rename: the window in which
	// another process can put it first.
	beforeRename func()
}

// openLocalStore opens (creating it if needed) the segment store in dir
// and, when clean, removes the temporary segments a killed build left:
// only a caller that knows no other process is writing may clean.
func openLocalStore(dir string, clean bool) (*localStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open segment store %s: %w", dir, err)
	}
	s := &localStore{dir: dir}
	if !clean {
		return s, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("open segment store %s: %w", dir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return nil, fmt.Errorf("open segment store %s: remove a killed build's segment: %w", dir, err)
			}
		}
	}
	return s, nil
}

func (s *localStore) path(addr string) string { return filepath.Join(s.dir, addr[:2], addr) }

func (s *localStore) Has(addr string) bool {
	_, err := os.Stat(filepath.Join(s.path(addr), unitFile))
	return err == nil
}

// Put syncs every file and the temporary directory before renaming it
// into place, so that a segment is whole or absent however the build stops.
func (s *localStore) Put(addr string, write func(dir string) (meta any, err error)) (err error) {
	tmp, err := os.MkdirTemp(s.dir, tmpPrefix+addr[:8]+"-")
	if err != nil {
		return fmt.Errorf("write segment %s: %w", addr, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.RemoveAll(tmp))
		}
	}()
	meta, err := write(tmp)
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(tmp, unitFile), meta); err != nil {
		return fmt.Errorf("write segment %s: %w", addr, err)
	}
	if err := writeSums(tmp); err != nil {
		return fmt.Errorf("write segment %s: %w", addr, err)
	}
	if err := syncPath(tmp); err != nil {
		return fmt.Errorf("write segment %s: %w", addr, err)
	}
	final := s.path(addr)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return fmt.Errorf("write segment %s: %w", addr, err)
	}
	if s.Has(addr) {
		return os.RemoveAll(tmp)
	}
	if s.beforeRename != nil {
		s.beforeRename()
	}
	// The rename itself is not synced: lost in a crash, it leaves the
	// segment absent, and its unit is run again. A rename that fails
	// because another process (a shard) put the same segment first lost a
	// race that has no loser: the content is the same.
	if err := os.Rename(tmp, final); err != nil {
		if s.Has(addr) {
			return os.RemoveAll(tmp)
		}
		return fmt.Errorf("write segment %s: %w", addr, err)
	}
	return nil
}

func (s *localStore) Get(addr string) (string, error) {
	if !s.Has(addr) {
		return "", fmt.Errorf("read segment %s: %w", addr, fs.ErrNotExist)
	}
	return s.path(addr), nil
}

func (s *localStore) List() ([]string, error) {
	shards, err := dirEntries(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list segments: %w", err)
	}
	var out []string
	for _, sh := range shards {
		if !sh.IsDir() || strings.HasPrefix(sh.Name(), tmpPrefix) {
			continue
		}
		segs, err := dirEntries(filepath.Join(s.dir, sh.Name()))
		if err != nil {
			return nil, fmt.Errorf("list segments: %w", err)
		}
		for _, seg := range segs {
			out = append(out, seg.Name())
		}
	}
	return out, nil
}

// Remove renames the segment out of sight first, so that a crash while
// removing leaves a temporary directory (the next clean open removes it),
// never a part of a segment under its address.
func (s *localStore) Remove(addr string) error {
	tmp, err := os.MkdirTemp(s.dir, tmpPrefix+"gone-")
	if err != nil {
		return fmt.Errorf("remove segment %s: %w", addr, err)
	}
	err = os.Rename(s.path(addr), filepath.Join(tmp, addr))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errors.Join(fmt.Errorf("remove segment %s: %w", addr, err), os.Remove(tmp))
	}
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("remove segment %s: %w", addr, err)
	}
	return nil
}
