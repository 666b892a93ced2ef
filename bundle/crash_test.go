package bundle

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kgforge/bench/synth"
)

// TestHelperWriteBundle is not a test: TestWriter_KilledAtAnyMoment runs the
// test binary with KGFORGE_BUNDLE_CRASH_OUT set, and this writes one bundle
// there until it is killed.
func TestHelperWriteBundle(t *testing.T) {
	out, id := os.Getenv("KGFORGE_BUNDLE_CRASH_OUT"), os.Getenv("KGFORGE_BUNDLE_CRASH_ID")
	if out == "" {
		t.Skip("helper process for TestWriter_KilledAtAnyMoment")
	}
	c := sample()
	c.Graph = synth.Graph(20_000, 60_000, 7)
	write(t, out, id, c)
}

// TestWriter_KilledAtAnyMoment kills a process writing a bundle at a
// spread of moments, from before it starts to after it ends, and checks
// each time that the output directory's latest bundle opens and verifies,
// and is the old build or the new one, whole; and that a new build
// directory, when there is one, is whole too.
func TestWriter_KilledAtAnyMoment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per kill")
	}
	out := t.TempDir()
	write(t, out, "old", sample())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// How long a whole write takes here, to spread the kills over it.
	start := time.Now()
	run := func(id string) *exec.Cmd {
		cmd := exec.Command(exe, "-test.run", "^TestHelperWriteBundle$")
		cmd.Env = append(os.Environ(), "KGFORGE_BUNDLE_CRASH_OUT="+out, "KGFORGE_BUNDLE_CRASH_ID="+id)
		return cmd
	}
	if b, err := run("timing").CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, b)
	}
	whole := time.Since(start)
	newer := map[string]bool{"old": true, "timing": true}
	committed := 0
	for i := range 12 {
		id := fmt.Sprintf("new-%02d", i)
		cmd := run(id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(whole * time.Duration(i) / 10)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		b, err := Open(out)
		if err != nil {
			t.Fatalf("kill %d after %s: latest does not open: %v", i, whole*time.Duration(i)/10, err)
		}
		got := b.Manifest.BuildID
		_ = b.Close()
		if got == id {
			committed++
			newer[id] = true
		}
		if !newer[got] {
			t.Fatalf("kill %d: latest is %s, want one of the builds written whole", i, got)
		}
		if _, err := os.Stat(filepath.Join(out, id)); err == nil {
			nb, err := Open(filepath.Join(out, id))
			if err != nil {
				t.Fatalf("kill %d: build directory %s exists but is not whole: %v", i, id, err)
			}
			_ = nb.Close()
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			if name := e.Name(); name != LatestLink && !strings.HasPrefix(name, ".tmp-") && !newer[name] && name != id {
				t.Errorf("kill %d: unexpected entry %s in the output directory", i, name)
			}
		}
	}
	t.Logf("%d of 12 killed writes had committed (a whole write took %s)", committed, whole)

	// What the killed writers left is removed by the next build (aged here
	// past staleAge), and latest still opens.
	removed, err := removeStale(out, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("left after cleanup: %s", e.Name())
		}
	}
	b, err := Open(out)
	if err != nil {
		t.Fatalf("latest does not open after cleanup: %v", err)
	}
	_ = b.Close()
	t.Logf("cleanup removed %d leftovers of killed writes", len(removed))
}
