package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/stages"
)

// temporalBinary is the temporal CLI scripts/temporal.sh builds.
func temporalBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("KGFORGE_TEMPORAL_BIN")
	if bin == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			base = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		bin = filepath.Join(base, "kgforge", "temporal", "bin", "temporal")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no temporal CLI at %s (run scripts/temporal.sh install, or set KGFORGE_TEMPORAL_BIN): %v", bin, err)
	}
	return bin
}

// startTemporal starts a real Temporal dev server of the test's own (in
// memory, on a free loopback port) and returns its address.
func startTemporal(ctx context.Context, t *testing.T) string {
	t.Helper()
	bin := temporalBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var logs bytes.Buffer
	srv := exec.Command(bin, "server", "start-dev", "--ip", "127.0.0.1", "--port", strconv.Itoa(port), "--headless", "--log-level", "warn")
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	})
	for start := time.Now(); ; time.Sleep(300 * time.Millisecond) {
		out, _ := exec.CommandContext(ctx, bin, "operator", "cluster", "health", "--address", addr).CombinedOutput()
		if bytes.Contains(out, []byte("SERVING")) {
			t.Logf("temporal dev server at %s ready in %s", addr, time.Since(start).Round(time.Millisecond))
			return addr
		}
		if time.Since(start) > time.Minute || ctx.Err() != nil {
			t.Fatalf("temporal dev server at %s not serving after %s: %s\n%s", addr, time.Since(start), out, logs.String())
		}
	}
}

// workerProc is a `kgforge worker` process and what its log said.
type workerProc struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  strings.Builder
	// inShard is the shard it runs now ("" when none), chunks its
	// extractions done and queued in it.
	inShard      string
	done, queued int
}

var (
	logShard = regexp.MustCompile(`msg="shard (started|done)".* shard=(\S+)`)
	logChunk = regexp.MustCompile(`msg="chunk extracted".* shard=(\S+).* done=(\d+) queued=(\d+)`)
)

func (w *workerProc) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		w.mu.Lock()
		w.log.WriteString(line + "\n")
		if m := logShard.FindStringSubmatch(line); m != nil {
			w.inShard, w.done, w.queued = m[2], 0, 0
			if m[1] == "done" {
				w.inShard = ""
			}
		}
		if m := logChunk.FindStringSubmatch(line); m != nil {
			w.done, _ = strconv.Atoi(m[2])
			w.queued, _ = strconv.Atoi(m[3])
		}
		w.mu.Unlock()
	}
}

// midExtract returns the shard the worker is extracting in, with chunks
// done and chunks still to do, or "".
func (w *workerProc) midExtract() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inShard != "" && w.done >= 1 && w.done < w.queued {
		return w.inShard
	}
	return ""
}

func (w *workerProc) logText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}

// TestTemporalBuildSurvivesKilledWorkerIntegration builds testdata/e2e on
// a real Temporal dev server with three `kgforge worker` processes and the
// real model behind a call-counting proxy. One worker is killed (SIGKILL)
// in the middle of an extract activity, after a chunk of its shard was
// extracted and before the last; the client following the workflow is
// killed too and started again, and attaches to the same run. The build
// completes, the killed shard runs again on another worker, no model call
// is answered twice, and the bundle equals (per-table digests, ids, rows)
// the one a single-process build makes from a fresh state directory.
func TestTemporalBuildSurvivesKilledWorkerIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	ctx := e2eContext(t)
	tmp := t.TempDir()
	exe := buildBinary(ctx, t, tmp)
	addr := startTemporal(ctx, t)
	pipeline, _ := e2eCorpus(t)
	shortReplies(t, pipeline)
	cc, host := newCallCounter(t)
	cache := filepath.Join(tmp, "cache")
	env := []string{
		"OLLAMA_HOST=" + host, "KGFORGE_CACHE_DIR=" + cache, "HOME=" + tmp, "PATH=" + os.Getenv("PATH"), // no NEO4J_URI: no load
		"TEMPORAL_ADDRESS=" + addr, "KGFORGE_TASK_QUEUE=kgforge-test",
	}
	workers := make([]*workerProc, 3)
	for i := range workers {
		w := &workerProc{name: fmt.Sprintf("worker-%d", i)}
		w.cmd = exec.CommandContext(ctx, exe, "worker", "-v")
		w.cmd.Env = env
		w.cmd.Cancel = func() error { return w.cmd.Process.Signal(syscall.SIGTERM) }
		stderr, err := w.cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go w.read(stderr)
		workers[i] = w
		t.Cleanup(func() {
			_ = w.cmd.Process.Signal(syscall.SIGTERM)
			_ = w.cmd.Wait()
			if t.Failed() {
				t.Logf("%s log:\n%s", w.name, w.logText())
			}
		})
	}

	out := filepath.Join(tmp, "out")
	client := func() (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, exe, "build", "--engine", "temporal", "--shards", "3", "--pipeline", pipeline, "--out", out, "--json")
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stdout, &stderr
	}
	first, _, firstLog := client()
	killed, shard := killMidExtract(ctx, t, workers)
	t.Logf("killed %s (pid %d) in the middle of shard %s; %d model calls answered so far", killed.name, killed.cmd.Process.Pid, shard, must(cc.calls()))
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	second, stdout, secondLog := client()
	if err := second.Wait(); err != nil && second.ProcessState.ExitCode() != exitPartial {
		t.Fatalf("the second client: %v\n%s", err, secondLog)
	}
	if a, b := runID(firstLog.String()), runID(secondLog.String()); a == "" || a != b {
		t.Errorf("the second client followed run %q, the first %q: want the same run", b, a)
	}
	rep := &stages.Report{}
	if err := json.Unmarshal(stdout.Bytes(), rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	retried := regexp.MustCompile(`msg="shard started" shard=` + regexp.QuoteMeta(shard) + ` .*attempt=([2-9])`)
	again := false
	for _, w := range workers {
		again = again || (w != killed && retried.MatchString(w.logText()))
	}
	if !again {
		t.Errorf("no other worker ran shard %s again after %s was killed", shard, killed.name)
	}
	total, repeated := cc.calls()
	t.Logf("temporal build %s: %d chunks, %d model calls in the report, %d answered in all", rep.BuildID, rep.Chunks, rep.LLM.Calls, total)
	if repeated != 0 {
		t.Errorf("%d model calls were answered twice", repeated)
	}

	var local bytes.Buffer
	cmd := exec.CommandContext(ctx, exe, "build", "--pipeline", pipeline, "--out", filepath.Join(tmp, "fresh"), "--json")
	cmd.Env, cmd.Stdout = env, &local
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != exitPartial {
		t.Fatalf("single-process build: %v", err)
	}
	fresh := &stages.Report{}
	if err := json.Unmarshal(local.Bytes(), fresh); err != nil {
		t.Fatalf("report: %v\n%s", err, local.String())
	}
	// A rejected chunk's reply is not cached (its rejection is kept in the
	// segment, in the state directory): a fresh state asks about it again.
	if fresh.LLM.Calls != 0 && len(rep.Rejected) == 0 {
		t.Errorf("the single-process build made %d model calls; want 0 (the replies are cached)", fresh.LLM.Calls)
	}
	a, b := openManifest(t, rep.Bundle), openManifest(t, fresh.Bundle)
	if d := bundle.Compare(a, b); len(d) != 0 {
		t.Errorf("the temporal bundle differs from the single-process one: %+v", d)
	}
	if !maps.Equal(a.Counts, b.Counts) || a.Counts["nodes"] == 0 {
		t.Errorf("row counts: temporal %v, single-process %v", a.Counts, b.Counts)
	}
}

// shortReplies bounds the model's replies at 64 tokens (llm.max_output):
// the base model continues text to its bound, and what the test checks
// (calls, segments, bundles) does not depend on the replies' length.
func shortReplies(t *testing.T, pipeline string) {
	t.Helper()
	raw, err := os.ReadFile(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	const line = "\n  concurrency: 1\n"
	if strings.Count(string(raw), line) != 1 {
		t.Fatalf("%s: no line %q to add llm.max_output after", pipeline, strings.TrimSpace(line))
	}
	raw = []byte(strings.Replace(string(raw), line, line+"  max_output: 64\n", 1))
	if err := os.WriteFile(pipeline, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// killMidExtract waits until a worker is in the middle of an extract
// activity and kills it with SIGKILL.
func killMidExtract(ctx context.Context, t *testing.T, workers []*workerProc) (*workerProc, string) {
	t.Helper()
	for ctx.Err() == nil {
		for _, w := range workers {
			if shard := w.midExtract(); shard != "" {
				if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				return w, shard
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no worker was seen in the middle of an extract activity")
	return nil, ""
}

var logRun = regexp.MustCompile(`msg="build workflow running".* run=(\S+)`)

// runID is the workflow run a client's log says it follows.
func runID(log string) string {
	if m := logRun.FindStringSubmatch(log); m != nil {
		return m[1]
	}
	return ""
}
