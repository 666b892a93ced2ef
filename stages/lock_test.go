package stages

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kgforge/bundle"
)

// gateProgress holds the chunks of a build until the gate opens, so a build
// is still running when another one starts. A wait that lasts opens the
// gate, so that a runner without a lock (both builds held) fails the test
// instead of hanging it.
type gateProgress struct {
	open chan struct{}
	once sync.Once
}

func (g *gateProgress) Open() { g.once.Do(func() { close(g.open) }) }

func (g *gateProgress) Queued() {
	select {
	case <-g.open:
	case <-time.After(10 * time.Second):
		g.Open()
	}
}
func (g *gateProgress) Done()       {}
func (g *gateProgress) Sources(int) {}
func (g *gateProgress) SourceDone() {}

// TestRunner_TwoBuildsIntoOneOutputOneFailsAtOnce starts two builds into one
// output directory at the same time: whichever takes the lock first runs
// (held at its first chunk until the other has returned), the other fails
// at once with a BusyError naming the holder, and the output holds the
// winner's bundle and no lock file afterwards.
func TestRunner_TwoBuildsIntoOneOutputOneFailsAtOnce(t *testing.T) {
	c, _ := fakeOllama(t, false)
	p, _ := sixDocs(t)
	out := t.TempDir()
	gate := &gateProgress{open: make(chan struct{})}
	type result struct {
		rep *Report
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out, Progress: gate}).Run(context.Background(), p)
			if err != nil {
				gate.Open()
			}
			results <- result{rep, err}
		}()
	}
	var won *Report
	var busy *BusyError
	for range 2 {
		r := <-results
		switch {
		case r.err == nil:
			won = r.rep
		case errors.As(r.err, &busy):
		default:
			t.Errorf("a build failed with %v; want a BusyError", r.err)
		}
	}
	if won == nil || busy == nil {
		t.Fatalf("want one build done and one busy; got winner %v, busy %v", won != nil, busy)
	}
	if !errors.Is(busy, ErrOutputBusy) || busy.Holder.BuildID != won.BuildID || busy.Holder.PID != os.Getpid() {
		t.Errorf("busy error names %+v; want build %s, pid %d", busy.Holder, won.BuildID, os.Getpid())
	}
	host, _ := os.Hostname()
	for _, want := range []string{out + " is being built by build " + won.BuildID, "host " + host, fmt.Sprintf("pid %d", os.Getpid()), "wait for it to finish or stop it"} {
		if !strings.Contains(busy.Error(), want) {
			t.Errorf("busy error %q does not say %q", busy.Error(), want)
		}
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if b.Manifest.BuildID != won.BuildID {
		t.Errorf("latest is build %s; want the winner %s", b.Manifest.BuildID, won.BuildID)
	}
	if _, err := os.Stat(filepath.Join(out, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after the build: %v; want it removed", err)
	}
}

// lockHolderEnv names the output directory that TestLockHolderProcess
// locks; unset, that test does nothing.
const lockHolderEnv = "KGFORGE_TEST_LOCK_HOLDER_OUT"

// TestLockHolderProcess is not a test: run as a child process of
// TestRunner_LockOfAKilledBuildIsTakenOver, it takes an output's lock,
// says so on stdout and waits to be killed.
func TestLockHolderProcess(_ *testing.T) {
	out := os.Getenv(lockHolderEnv)
	if out == "" {
		return
	}
	if _, err := lockOutput(out, newHolder("20260101T000000Z-dead00", time.Now())); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Hour)
}

// TestRunner_LockOfAKilledBuildIsTakenOver has a child process take an
// output's lock: while it lives a build fails naming its pid; once it is
// killed with SIGKILL (no chance to clean up), the next build takes the
// lock it left over, says so in the log and the report, and succeeds.
func TestRunner_LockOfAKilledBuildIsTakenOver(t *testing.T) {
	out := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$", "-test.count=1")
	child.Env = append(os.Environ(), lockHolderEnv+"="+out)
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	}()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child: %q, %v", line, err)
	}

	c, _ := fakeOllama(t, false)
	p, _ := sixDocs(t)
	var logs bytes.Buffer
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	_, err = rn.Run(context.Background(), p)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Holder.PID != child.Process.Pid || busy.Holder.BuildID != "20260101T000000Z-dead00" {
		t.Fatalf("build beside a live holder: %v; want a BusyError naming pid %d", err, child.Process.Pid)
	}

	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed = true
	_ = child.Wait() // killed: the error says so
	if _, err := os.Stat(filepath.Join(out, LockFile)); err != nil {
		t.Fatalf("the killed build left no lock file to take over: %v", err)
	}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("build after the holder was killed: %v", err)
	}
	wantLog := fmt.Sprintf("holder_build_id=20260101T000000Z-dead00 holder_host=%s holder_pid=%d", busy.Holder.Host, child.Process.Pid)
	if !strings.Contains(logs.String(), "took over the lock") || !strings.Contains(logs.String(), wantLog) {
		t.Errorf("log does not tell the takeover of pid %d:\n%s", child.Process.Pid, logs.String())
	}
	found := false
	for _, w := range rep.Warnings {
		found = found || (w.Stage == "build" && strings.Contains(w.Reason, fmt.Sprintf("pid %d", child.Process.Pid)))
	}
	if !found {
		t.Errorf("report warnings %+v do not name the takeover", rep.Warnings)
	}
}

// TestLockOutput_BusyWaitsForTheHolderToWriteItsName takes the lock the way
// a build does but writes the holder's name only later, as a build that was
// just scheduled out between its flock and its write would: the contender
// must still name the holder, not "another build".
func TestLockOutput_BusyWaitsForTheHolderToWriteItsName(t *testing.T) {
	dir := t.TempDir()
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	holder := &outputLock{f: f, path: f.Name()}
	me := newHolder("20261201T000000Z-late", time.Now())
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = holder.write(me)
	}()
	_, err = lockOutput(dir, newHolder("second", time.Now()))
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("lockOutput beside a held lock: %v, want a *BusyError", err)
	}
	if busy.Holder.BuildID != me.BuildID || busy.Holder.PID != me.PID {
		t.Errorf("busy names %+v, want the holder %+v", busy.Holder, me)
	}
}

// TestLockOutput_RefusesALockFileThatIsNotItsOwn puts at OUT/.kgforge.lock
// what a build must not write through: a symbolic link to a file elsewhere,
// a link to a file not there yet, a hard link to another file, a FIFO. Each
// is refused with an error naming the path and the reason, and the file it
// leads to is neither changed nor created; the shard lock is held to the
// same rule.
func TestLockOutput_RefusesALockFileThatIsNotItsOwn(t *testing.T) {
	const precious = "precious\n"
	for _, tc := range []struct {
		name, want string
		plant      func(t *testing.T, lock, victim string)
	}{
		{"symlink", "symbolic link", func(t *testing.T, lock, victim string) {
			mustWrite(t, victim, precious)
			mustDo(t, os.Symlink(victim, lock))
		}},
		{"dangling symlink", "symbolic link", func(t *testing.T, lock, victim string) {
			mustDo(t, os.Symlink(victim, lock))
		}},
		{"hard link", "hard link", func(t *testing.T, lock, victim string) {
			mustWrite(t, victim, precious)
			mustDo(t, os.Link(victim, lock))
		}},
		{"fifo", "not a regular file", func(t *testing.T, lock, _ string) {
			mustDo(t, syscall.Mkfifo(lock, 0o644))
		}},
	} {
		for _, which := range []string{"output", "shards"} {
			t.Run(tc.name+"/"+which, func(t *testing.T) {
				out, elsewhere := t.TempDir(), t.TempDir()
				victim := filepath.Join(elsewhere, "victim")
				lock := filepath.Join(out, LockFile)
				take := func() error {
					l, err := lockOutput(out, newHolder("b1", time.Now()))
					if err == nil {
						_ = l.release()
					}
					return err
				}
				if which == "shards" {
					mustDo(t, os.MkdirAll(filepath.Join(out, StateDir), 0o755))
					lock = filepath.Join(out, StateDir, shardLockFile)
					take = func() error {
						l, err := lockShards(out, false)
						if err == nil {
							_ = l.release()
						}
						return err
					}
				}
				tc.plant(t, lock, victim)
				err := take()
				if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("lock beside a %s: %v; want an error naming %s and saying %q", tc.name, err, lock, tc.want)
				}
				got, rerr := os.ReadFile(victim)
				switch {
				case tc.name == "dangling symlink" && !errors.Is(rerr, os.ErrNotExist):
					t.Errorf("the lock created the link's target: %q, %v", got, rerr)
				case tc.name != "dangling symlink" && tc.name != "fifo" && string(got) != precious:
					t.Errorf("the file behind the lock now holds %q, %v; want it unchanged", got, rerr)
				}
			})
		}
	}
}

// TestWriteReport_RefusesAReportsDirThatIsALink checks that a run report is
// never written through OUT/reports when that is a symbolic link, and that
// a build refuses such an output before it does anything.
func TestWriteReport_RefusesAReportsDirThatIsALink(t *testing.T) {
	out, elsewhere := t.TempDir(), t.TempDir()
	reports := filepath.Join(out, "reports")
	mustDo(t, os.Symlink(elsewhere, reports))
	err := writeReport(out, &Report{BuildID: "b1"})
	if err == nil || !strings.Contains(err.Error(), reports) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("writeReport through a linked reports directory: %v; want an error naming %s", err, reports)
	}
	c, _ := fakeOllama(t, false)
	p, _ := sixDocs(t)
	if _, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), reports) {
		t.Errorf("build into an output whose reports directory is a link: %v; want an error naming %s", err, reports)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(out, bundle.LatestLink)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused build published a bundle: %v", err)
	}
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	mustDo(t, os.WriteFile(path, []byte(s), 0o644))
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
