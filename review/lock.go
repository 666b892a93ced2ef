package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Every writer of an overrides file (each kgforge review serving it, and a
// program that edits it by hand and wants its edit kept) holds an
// exclusive flock on a lock file beside it, .NAME.lock, from the moment
// it reads the file to the moment the new one is renamed into place. The
// overrides file itself cannot carry the lock: a save renames a new file
// over it. The lock file is never removed, so that two writers never lock
// two different files of one name; the kernel drops a lock when its
// holder ends, however it ends, so a lock is never stuck.

// lockWait is how long a decision waits for another writer to release the
// overrides file's lock before it is refused (503, nothing written).
var lockWait = 10 * time.Second

// lockPath is the lock file of the overrides file at path.
func lockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// lockBusyError is a lock that another writer held for all of lockWait.
type lockBusyError struct{ lock string }

func (e *lockBusyError) Error() string {
	return fmt.Sprintf("nothing was written: another program has held the overrides file's lock %s for %s; decide again when it is done", e.lock, lockWait)
}

// lockOverrides takes the exclusive lock of the overrides file at path,
// waiting up to lockWait, and returns the lock file, whose Close releases
// it. The lock file is opened without following a symbolic link, and must
// be a regular file.
func lockOverrides(ctx context.Context, path string) (*os.File, error) {
	name := lockPath(path)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("nothing was written: the overrides file's lock %s is a symbolic link; remove it and decide again", name)
	}
	if err != nil {
		return nil, fmt.Errorf("nothing was written: lock the overrides file: %w", err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.Join(fmt.Errorf("nothing was written: the overrides file's lock %s is not a regular file; remove it and decide again", name), f.Close())
	}
	wait, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.Join(fmt.Errorf("nothing was written: lock the overrides file with %s: %w", name, err), f.Close())
		}
		select {
		case <-wait.Done():
			if ctx.Err() != nil { // the client went away
				return nil, errors.Join(fmt.Errorf("nothing was written: %w", context.Cause(ctx)), f.Close())
			}
			return nil, errors.Join(&lockBusyError{lock: name}, f.Close())
		case <-tick.C:
		}
	}
}
