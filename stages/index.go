package stages

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The file index lets a build know a source file's digest without opening
// it, as git's index does: it keeps, per file, the size and modification
// time the file had when its digest was taken. A file whose size and time
// are unchanged is taken to be unchanged. A file modified within
// racyWindow before its digest was taken could have changed again within
// the same tick of the clock, so the index does not vouch for it and the
// next build reads it again.

const racyWindow = 2 * time.Second

// fileEntry is what the index knows of one source file.
type fileEntry struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	SHA256  string `json:"sha256"`
	Checked int64  `json:"checked_ns"` // when the digest was taken
}

// fileIndex is the file index of a state directory. It is safe for
// concurrent use.
type fileIndex struct {
	path  string
	mu    sync.Mutex
	files map[string]fileEntry // by the file's absolute path
}

// loadIndex reads the file index; a missing or unreadable one is empty
// (it only spares reads, it never decides what a build contains).
func (s *state) loadIndex() *fileIndex {
	ix := &fileIndex{path: filepath.Join(s.dir, filesIndex), files: map[string]fileEntry{}}
	if b, err := os.ReadFile(ix.path); err == nil {
		if json.Unmarshal(b, &ix.files) != nil {
			ix.files = map[string]fileEntry{}
		}
	}
	return ix
}

// lookup returns the digest of the file at path if the index vouches for it.
func (ix *fileIndex) lookup(path string, info fs.FileInfo) (string, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e, ok := ix.files[path]
	mt := info.ModTime().UnixNano()
	if !ok || e.Size != info.Size() || e.ModTime != mt || mt > e.Checked-int64(racyWindow) {
		return "", false
	}
	return e.SHA256, true
}

// record notes the digest of the file at path, taken at checked, with the
// size and time it had when it was opened.
func (ix *fileIndex) record(path string, size int64, modified, checked time.Time, sha string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.files[path] = fileEntry{Size: size, ModTime: modified.UnixNano(), SHA256: sha, Checked: checked.UnixNano()}
}

// save writes the index, keeping only the files in keep.
func (ix *fileIndex) save(keep map[string]bool) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for path := range ix.files {
		if !keep[path] {
			delete(ix.files, path)
		}
	}
	if err := writeFileSync(ix.path, ix.files); err != nil {
		return fmt.Errorf("write file index %s: %w", ix.path, err)
	}
	return nil
}

// buildRecord is what the state directory keeps of a build whose bundle
// was committed: the digest of each of its sources (by URI; empty for a
// source that could not be read) and the segments the bundle was made of.
type buildRecord struct {
	BuildID  string            `json:"build_id"`
	Sources  map[string]string `json:"sources"`
	Segments []string          `json:"segments"`
}

func (s *state) recordPath(buildID string) string {
	return filepath.Join(s.dir, buildsDir, buildID+".json")
}

// writeRecord stores r.
func (s *state) writeRecord(r buildRecord) error {
	if err := writeFileSync(s.recordPath(r.BuildID), r); err != nil {
		return fmt.Errorf("write build record %s: %w", r.BuildID, err)
	}
	return nil
}

// readRecord returns the record of buildID; ok is false when there is none
// (a bundle older than the engine's state directory).
func (s *state) readRecord(buildID string) (r buildRecord, ok bool, err error) {
	b, err := os.ReadFile(s.recordPath(buildID))
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read build record %s: %w", buildID, err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, false, fmt.Errorf("read build record %s: %w", buildID, err)
	}
	return r, true, nil
}
