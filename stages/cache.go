package stages

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// DiskCache is a content-addressed cache of byte values in a directory,
// shared by runs. Writes go to a temporary file renamed into place, so a
// crash never leaves a torn entry. It is safe for concurrent use.
type DiskCache struct {
	dir string
}

var cacheKey = regexp.MustCompile(`^[0-9a-f]{8,128}$`)

// OpenDiskCache creates dir if needed.
func OpenDiskCache(dir string) (*DiskCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open cache %s: %w", dir, err)
	}
	return &DiskCache{dir: dir}, nil
}

func (c *DiskCache) path(key string) (string, error) {
	if !cacheKey.MatchString(key) {
		return "", fmt.Errorf("cache key %q: not a hex digest", key)
	}
	return filepath.Join(c.dir, key[:2], key), nil
}

// Get returns the value stored under key.
func (c *DiskCache) Get(key string) ([]byte, bool) {
	p, err := c.path(key)
	if err != nil {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

// Put stores val under key.
func (c *DiskCache) Put(key string, val []byte) error {
	p, err := c.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache put %s: %w", key, err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache put %s: %w", key, err)
	}
	_, err = f.Write(val)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("cache put %s: %w", key, err), os.Remove(f.Name()))
	}
	return nil
}

// DefaultCacheDir is kgforge's cache directory when a run names none:
// $KGFORGE_CACHE_DIR, or kgforge in the user's cache directory (the
// system's temporary directory when there is none).
func DefaultCacheDir() string {
	if d := os.Getenv("KGFORGE_CACHE_DIR"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "kgforge")
}
