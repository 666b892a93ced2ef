package stages

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// shardLockFile is the lock, in the state directory, that shard runs share
// and every other run takes exclusively, after the output lock: shards of
// one output run together, and nothing else runs with them (a build would
// remove their temporary segments, and its retention their segments). The
// file is never removed: the holders of a shared lock cannot tell which of
// them releases it last.
const shardLockFile = "shards.lock"

// shardLock is a held shard lock.
type shardLock struct{ f *os.File }

// lockOut takes the locks of the output directory: the shard lock shared
// for a shard run; else the output lock, then the shard lock exclusively.
func (b *build) lockOut() (err error) {
	if err := checkReportsDir(b.outDir); err != nil {
		return fmt.Errorf("build into %s: %w", b.outDir, err)
	}
	if b.rn.Shard.N > 0 {
		b.shards, err = lockShards(b.outDir, true)
		return err
	}
	if b.lock, err = lockOutput(b.outDir, newHolder(b.rep.BuildID, b.rep.Started)); err != nil {
		return err
	}
	if h := b.lock.Stale; h != nil {
		b.log.Warn("took over the lock of a build that stopped without releasing it", "out", b.outDir,
			"holder_build_id", h.BuildID, "holder_host", h.Host, "holder_pid", h.PID, "holder_started", h.Started)
		b.rep.warn("build", b.outDir, fmt.Sprintf("took over the lock left by %s, which stopped without releasing it", h))
	}
	b.shards, err = lockShards(b.outDir, false)
	return err
}

// lockShards takes the shard lock of outDir without waiting: shared, or
// exclusive. It returns a *BusyError when the other kind is held.
func lockShards(outDir string, shared bool) (*shardLock, error) {
	dir := filepath.Join(outDir, StateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock output %s for shards: %w", outDir, err)
	}
	f, err := openLockFile(filepath.Join(dir, shardLockFile))
	if err != nil {
		return nil, fmt.Errorf("lock output %s for shards: %w", outDir, err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.Join(fmt.Errorf("lock output %s for shards: %w", outDir, err), f.Close())
		}
		busy := &BusyError{Out: outDir, Shards: !shared}
		if shared {
			busy.Holder = outputHolder(outDir)
		}
		return nil, errors.Join(busy, f.Close())
	}
	return &shardLock{f: f}, nil
}

// outputHolder names the build holding the output lock of outDir, as far
// as its lock file says.
func outputHolder(outDir string) Holder {
	f, err := os.Open(filepath.Join(outDir, LockFile))
	if err != nil {
		return Holder{}
	}
	defer func() { _ = f.Close() }() // read only
	return awaitHolder(f)
}

// release drops the shard lock.
func (l *shardLock) release() error { return l.f.Close() }
