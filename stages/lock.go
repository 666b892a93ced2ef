package stages

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// LockFile is the name of the lock a build holds in its output directory
// for as long as it runs, so that two builds never write one output at
// once (the last rename would win, and each would remove the other's
// leftovers).
//
// The lock is an exclusive flock on the file: the kernel drops it when the
// process ends, however it ends, so a lock is never stuck. The file's
// content names the holder; a build that finishes removes the file. A file
// that is still there but that nobody holds was left by a build that was
// killed or crashed: the next build takes it over and logs the takeover.
const LockFile = ".kgforge.lock"

// ErrOutputBusy means another build holds the output directory's lock.
var ErrOutputBusy = errors.New("output directory is being built by another build")

// Holder names the build that holds an output directory's lock.
type Holder struct {
	BuildID string    `json:"build_id"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

func (h Holder) String() string {
	if h.BuildID == "" {
		return "another build (it has not yet written its name)"
	}
	return fmt.Sprintf("build %s (host %s, pid %d, since %s)", h.BuildID, h.Host, h.PID, h.Started.Format(time.RFC3339))
}

// BusyError is returned by Run when another build holds the lock of the
// output directory. It wraps ErrOutputBusy.
type BusyError struct {
	Out    string
	Holder Holder
	// Shards is set when what holds the output is shard runs
	// (Runner.Shard), which name no single holder.
	Shards bool
}

func (e *BusyError) Error() string {
	if e.Shards {
		return fmt.Sprintf("%s is being built by shard runs (build --shard); wait for them to finish or stop them", e.Out)
	}
	return fmt.Sprintf("%s is being built by %s; wait for it to finish or stop it", e.Out, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrOutputBusy }

// outputLock is a held lock on an output directory.
type outputLock struct {
	f    *os.File
	path string
	// Stale names the holder of a lock that a killed or crashed build
	// left and this one took over; nil when there was none.
	Stale *Holder
}

// lockOutput takes the lock of outDir (creating outDir if needed) without
// waiting, and writes me into it. It returns a *BusyError when another
// process holds it.
func lockOutput(outDir string, me Holder) (*outputLock, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("lock output %s: %w", outDir, err)
	}
	path := filepath.Join(outDir, LockFile)
	// A holder that finishes removes the file; one that opened it just
	// before may then lock a file no longer there. Such a lock guards
	// nothing, so the same path is opened again; each retry means another
	// build finished meanwhile.
	for range 100 {
		f, err := openLockFile(path)
		if errors.Is(err, errLockGone) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lock output %s: %w", outDir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			return nil, busy(outDir, f, err)
		}
		held, err := f.Stat()
		if err != nil {
			return nil, errors.Join(fmt.Errorf("lock output %s: %w", outDir, err), f.Close())
		}
		if now, err := os.Lstat(path); err != nil || !os.SameFile(held, now) {
			if err := f.Close(); err != nil {
				return nil, fmt.Errorf("lock output %s: %w", outDir, err)
			}
			continue
		}
		l := &outputLock{f: f, path: path}
		if held.Size() > 0 {
			h, _ := readHolder(f) // unreadable: still a leftover, taken over
			l.Stale = &h
		}
		if err := l.write(me); err != nil {
			return nil, errors.Join(fmt.Errorf("lock output %s: %w", outDir, err), l.release())
		}
		return l, nil
	}
	return nil, fmt.Errorf("lock output %s: the lock file kept being replaced", outDir)
}

// errLockGone means the lock file was removed between its opening and
// its check: its holder finished, and the path is opened again.
var errLockGone = errors.New("lock file removed while opened")

// openLockFile opens (creating it if needed) the lock file at path for
// reading and writing, only when it is kgforge's own: never through a
// symbolic link (O_NOFOLLOW), and only a regular file with no other name
// (a hard link would let the lock overwrite a file elsewhere). Anything
// else is refused, naming the path and what it is, and left as it is.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link; kgforge writes its lock file only in place: remove the link", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	var problem error
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		problem = fmt.Errorf("%s is not a regular file (%s); kgforge writes its lock file only in place: remove it", path, fi.Mode().Type())
	case st != nil && st.Nlink == 0:
		problem = errLockGone
	case st != nil && st.Nlink > 1:
		problem = fmt.Errorf("%s is a hard link (%d names); kgforge writes its lock file only in place: remove it", path, st.Nlink)
	}
	if problem != nil {
		return nil, errors.Join(problem, f.Close())
	}
	return f, nil
}

// busy closes f, whose lock another process holds (lockErr), and returns
// the error that names that process.
func busy(outDir string, f *os.File, lockErr error) error {
	var err error
	if errors.Is(lockErr, syscall.EWOULDBLOCK) {
		err = &BusyError{Out: outDir, Holder: awaitHolder(f)}
	} else {
		err = fmt.Errorf("lock output %s: %w", outDir, lockErr)
	}
	if cerr := f.Close(); cerr != nil {
		return errors.Join(err, cerr)
	}
	return err
}

// holderWait is how long a build that finds the lock held waits for the
// holder to write its name: the holder locks the file first and writes it
// just after, so a contender can come between the two.
const holderWait = 2 * time.Second

// awaitHolder reads the holder a held lock file names, waiting up to
// holderWait for it to be written; an empty Holder when it never is (the
// message then says so).
func awaitHolder(f *os.File) Holder {
	deadline := time.Now().Add(holderWait)
	for {
		h, err := readHolder(f)
		if (err == nil && h.BuildID != "") || time.Now().After(deadline) {
			return h
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readHolder reads the holder a lock file names.
func readHolder(f *os.File) (Holder, error) {
	var h Holder
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err != nil {
		return h, err
	}
	return h, json.Unmarshal(b, &h)
}

// write replaces the lock file's content with me and syncs it, so that
// whoever finds the lock held can say who holds it.
func (l *outputLock) write(me Holder) error {
	b, err := json.Marshal(me)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return l.f.Sync()
}

// release removes the lock file, then drops the lock: the file is removed
// while still held, so no other build can have taken it meanwhile.
func (l *outputLock) release() error {
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return errors.Join(err, l.f.Close())
}

// newHolder describes this process running build id.
func newHolder(buildID string, started time.Time) Holder {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return Holder{BuildID: buildID, Host: host, PID: os.Getpid(), Started: started.UTC()}
}
