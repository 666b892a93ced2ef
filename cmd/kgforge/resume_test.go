package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/stages"
)

// callCounter is a pass-through proxy in front of the real Ollama that
// counts the model calls (chat, generate, embed) answered in full, by the
// digest of their request: a call the client abandoned (its process was
// killed) does not count.
type callCounter struct {
	mu   sync.Mutex
	done map[string]int
}

func newCallCounter(t *testing.T) (*callCounter, string) {
	t.Helper()
	target, err := url.Parse(llm.HostFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	cc := &callCounter{done: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
		model := r.URL.Path == "/api/chat" || r.URL.Path == "/api/generate" || r.URL.Path == "/api/embed"
		if model && r.Context().Err() == nil {
			sum := sha256.Sum256(append([]byte(r.URL.Path), body...))
			cc.mu.Lock()
			cc.done[string(sum[:])]++
			cc.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return cc, srv.URL
}

// calls returns the calls answered, and those answered more than once.
func (cc *callCounter) calls() (total, repeated int) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, n := range cc.done {
		total += n
		repeated += n - 1
	}
	return total, repeated
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
			n++
		}
		return nil
	})
	return n
}

// bundleBeingWritten reports whether a build is writing its bundle's files
// in out (its temporary directory holds the nodes file).
func bundleBeingWritten(out string) bool {
	m, _ := filepath.Glob(filepath.Join(out, ".tmp-*", bundle.NodesFile))
	return len(m) > 0
}

// TestBuildResumesAfterKillIntegration builds testdata/e2e with the real
// kgforge binary and the real model, killing the process (SIGKILL) at
// several points: after the first model reply is cached, after the third,
// once resolution has embedded entities, and while the bundle's files are
// written. Each run resumes the last: no model call answered before is made
// again, and the final bundle is identical (every file's checksum, every
// table's digest) to the bundle of an uninterrupted build from a fresh
// state directory with the same model replies.
func TestBuildResumesAfterKillIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	ctx := e2eContext(t)
	tmp := t.TempDir()
	exe := buildBinary(ctx, t, tmp)
	pipeline, _ := e2eCorpus(t)
	cc, host := newCallCounter(t)
	cache := filepath.Join(tmp, "cache")
	env := []string{"OLLAMA_HOST=" + host, "KGFORGE_CACHE_DIR=" + cache, "HOME=" + tmp, "PATH=" + os.Getenv("PATH")} // no NEO4J_URI: no load
	build := func(out string, killWhen func() bool) (killed bool, rep *stages.Report) {
		t.Helper()
		var stdout bytes.Buffer
		cmd := exec.CommandContext(ctx, exe, "build", "--pipeline", pipeline, "--out", out, "--json")
		cmd.Env, cmd.Stdout = env, &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		for {
			select {
			case err := <-exited:
				if code := cmd.ProcessState.ExitCode(); err != nil && code != exitPartial {
					t.Fatalf("build into %s: %v", out, err)
				}
				rep = &stages.Report{}
				if err := json.Unmarshal(stdout.Bytes(), rep); err != nil {
					t.Fatalf("report: %v\n%s", err, stdout.String())
				}
				return false, rep
			case <-time.After(2 * time.Millisecond):
				if killWhen != nil && killWhen() {
					err := cmd.Process.Signal(syscall.SIGKILL)
					if errors.Is(err, os.ErrProcessDone) {
						killWhen = nil // it ended first; the exit case reads its report
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					if err := <-exited; err == nil {
						t.Fatal("a killed build exited 0")
					}
					return true, nil
				}
			}
		}
	}

	out := filepath.Join(tmp, "out")
	extracted := func(n int) func() bool {
		return func() bool { return countFiles(t, filepath.Join(cache, "extract")) >= n }
	}
	points := []struct {
		name string
		when func() bool
	}{
		{"after the first model reply", extracted(1)},
		{"after the third model reply", extracted(3)},
		{"once resolution embedded entities", func() bool { return countFiles(t, filepath.Join(cache, "embed")) >= 1 }},
		{"while the bundle's files are written", func() bool { return bundleBeingWritten(out) }},
	}
	for _, pt := range points {
		killed, _ := build(out, pt.when)
		if !killed {
			t.Logf("the build ended before the kill point %q", pt.name)
			break
		}
		bundles, _ := filepath.Glob(filepath.Join(out, "2*"))
		t.Logf("killed %s: %d model calls answered so far, bundles %v", pt.name, must(cc.calls()), bundles)
		if len(bundles) != 0 {
			t.Errorf("killed %s: a bundle was published: %v", pt.name, bundles)
		}
	}
	_, resumed := build(out, nil)
	total, repeated := cc.calls()
	t.Logf("resumed build %s: %d chunks reused, %d model calls in the last run; %d calls in all", resumed.BuildID, resumed.Plan.ChunksReused, resumed.LLM.Calls, total)
	if repeated != 0 {
		t.Errorf("%d model calls were answered twice across the killed builds", repeated)
	}
	if left, _ := filepath.Glob(filepath.Join(out, stages.StateDir, "segments", ".tmp-*")); len(left) != 0 {
		t.Errorf("temporary segments left: %v", left)
	}

	_, fresh := build(filepath.Join(tmp, "fresh"), nil)
	if fresh.LLM.Calls != 0 || fresh.Plan.Units["source"].Reused != 0 {
		t.Errorf("the uninterrupted build: %d model calls, %d source units reused; want 0 and 0 (fresh state, cached replies)",
			fresh.LLM.Calls, fresh.Plan.Units["source"].Reused)
	}
	a, b := openManifest(t, resumed.Bundle), openManifest(t, fresh.Bundle)
	if d := bundle.Compare(a, b); len(d) != 0 {
		t.Errorf("the resumed bundle differs from the uninterrupted one: %+v", d)
	}
	if !maps.Equal(a.Counts, b.Counts) || a.Counts["nodes"] == 0 {
		t.Errorf("counts: %v and %v", a.Counts, b.Counts)
	}
}

func must(total, _ int) int { return total }

func openManifest(t *testing.T, dir string) bundle.Manifest {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }() // read only
	return b.Manifest
}

// buildBinary builds this kgforge into dir, for the tests that run and
// kill it as a process.
func buildBinary(ctx context.Context, t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "kgforge")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}
