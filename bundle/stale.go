package bundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A writer holds an exclusive flock on its temporary directory for as long
// as it lives; the kernel drops the lock when the process dies, however it
// dies. A temporary directory nobody holds is therefore the remains of a
// crashed or killed build, and the next Create in the same output
// directory removes it. A directory still locked belongs to a build running
// now and is left alone.

// staleAge is how old a leftover must be before it is removed: a live
// writer's directory is unlocked for the moment between its creation and
// its lock, and its ".tmp-latest-*" link (a link cannot be locked) lives
// for the moment between its creation and its rename over latest.
const staleAge = time.Minute

// lockDir opens dir and takes an exclusive lock on it without waiting. It
// returns the open directory (closing it releases the lock) or an error
// wrapping syscall.EWOULDBLOCK when another process holds it.
func lockDir(dir string) (*os.File, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, errors.Join(fmt.Errorf("lock %s: %w", dir, err), d.Close())
	}
	return d, nil
}

// removeStale removes what crashed builds left in outDir: unlocked
// ".tmp-*" directories and ".tmp-latest-*" links, older than staleAge.
// It returns the names it removed. An entry it cannot remove is an error
// for that entry only; the others are still tried.
func removeStale(outDir string, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".tmp-") {
			continue
		}
		path := filepath.Join(outDir, name)
		if fi, err := os.Lstat(path); err != nil || now.Sub(fi.ModTime()) < staleAge {
			continue // gone already, or possibly a live writer's
		}
		switch {
		case e.Type()&os.ModeSymlink != 0 && strings.HasPrefix(name, ".tmp-latest-"):
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove stale %s: %w", path, err))
				continue
			}
			removed = append(removed, name)
		case e.IsDir():
			d, err := lockDir(path)
			if err != nil {
				if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, fmt.Errorf("remove stale %s: %w", path, err))
				}
				continue // a build in progress, or gone already
			}
			err = os.RemoveAll(path)
			err = errors.Join(err, d.Close())
			if err != nil {
				errs = append(errs, fmt.Errorf("remove stale %s: %w", path, err))
				continue
			}
			removed = append(removed, name)
		}
	}
	return removed, errors.Join(errs...)
}
