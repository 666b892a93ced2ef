package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jsonLines checks that every line of out is one JSON object with slog's
// keys, and returns them.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line is not JSON: %q (%v)\nall of stderr:\n%s", line, err, out)
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %q lacks %q", line, k)
			}
		}
		lines = append(lines, m)
	}
	return lines
}

// TestBuild_NonTerminalStderrIsOnlyJSONLogLines builds with stderr on a
// file (no terminal: no bar) and --log-format json: every line of stderr
// is a JSON log record, the failure of a bad build included, and
// --metrics writes its file.
func TestBuild_NonTerminalStderrIsOnlyJSONLogLines(t *testing.T) {
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	metrics := filepath.Join(t.TempDir(), "kgforge.prom")
	code, stdout, stderr := runCaptured(t, "", "build", "--pipeline", tablesPipeline(t), "--out", t.TempDir(),
		"--log-format", "json", "--progress-interval", "1ms", "--metrics", metrics)
	if code != exitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	lines := jsonLines(t, stderr)
	if len(lines) < 2 || lines[0]["msg"] != "build started" || lines[len(lines)-1]["msg"] != "build finished" {
		t.Errorf("log lines %v: want build started … build finished", lines)
	}
	if !strings.Contains(stdout, "build ") || strings.Contains(stdout, `"level"`) {
		t.Errorf("stdout holds the summary, not logs:\n%s", stdout)
	}
	raw, err := os.ReadFile(metrics)
	if err != nil || !strings.Contains(string(raw), "kgforge_build_success 1\n") || !strings.HasSuffix(string(raw), "# EOF\n") {
		t.Errorf("metrics file: %v\n%s", err, raw)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCaptured(t, "", "build", "--pipeline", bad, "--log-format", "json")
	if code != exitUsage {
		t.Errorf("bad pipeline: exit %d, want %d", code, exitUsage)
	}
	lines = jsonLines(t, stderr)
	if last := lines[len(lines)-1]; last["level"] != "ERROR" || !strings.Contains(last["err"].(string), "sources") || last["exit_code"] != float64(exitUsage) {
		t.Errorf("failure line %v", last)
	}
}

func TestProgressLog_ReportsCountRateAndETA(t *testing.T) {
	wantProgressLine(t, progressCounts{queued: 10, done: 4},
		map[string]any{"msg": "progress", "stage": "extract", "done": 4.0, "queued": 10.0, "elapsed_s": 8.0, "rate_per_s": 0.5, "eta_s": 12.0})
}

// TestProgressLog_ETACountsTheSourcesNotYetRead: ingest waits on
// extraction, so after 10 of 1,000 one-chunk documents only 12 chunks are
// queued; the time left is for the ~1,200 chunks to come, not the 8 in
// the queue.
func TestProgressLog_ETACountsTheSourcesNotYetRead(t *testing.T) {
	// 12 chunks from 10 sources: 1,200 expected, 1,196 left at 0.5 a second.
	wantProgressLine(t, progressCounts{sources: 1000, sourcesDone: 10, queued: 12, done: 4},
		map[string]any{"sources_done": 10.0, "sources": 1000.0, "queued": 12.0, "eta_s": 2392.0})
}

// TestProgressLog_RateIsRecentNotSinceTheStart: a resumed build counts
// 300 reused chunks done in its first 30 seconds, then the model finishes
// 15 every 30 seconds. Ten minutes on, the rate is the model's (0.5 a
// second over the last five minutes, not the 0.95 since the start) and
// so is the time left; when nothing finishes for five minutes the rate is
// 0 and no time left is promised.
func TestProgressLog_RateIsRecentNotSinceTheStart(t *testing.T) {
	l := newClockedLog(t)
	l.feed(progressCounts{sources: 1, sourcesDone: 1, queued: 2000, done: 300})
	l.reportAfter(30 * time.Second)
	var line map[string]any
	for range 20 {
		l.feed(progressCounts{done: 15})
		line = l.reportAfter(30 * time.Second)
	}
	// 600 done at 630 s; 450 at 330 s: 0.5 a second; 1,400 left.
	if line["done"] != 600.0 || line["rate_per_s"] != 0.5 || line["eta_s"] != 2800.0 {
		t.Errorf("after ten minutes of model time: %v, want done 600, rate_per_s 0.5, eta_s 2800", line)
	}
	for range 10 {
		line = l.reportAfter(30 * time.Second)
	}
	if _, ok := line["eta_s"]; line["rate_per_s"] != 0.0 || ok {
		t.Errorf("five minutes without a chunk done: %v, want rate_per_s 0 and no eta_s", line)
	}
}

// progressCounts is what a progress log hears before it reports.
type progressCounts struct{ sources, sourcesDone, queued, done int }

// wantProgressLine feeds a progress log the counts, reports 8 seconds
// after it started, and checks the line's fields against want.
func wantProgressLine(t *testing.T, c progressCounts, want map[string]any) {
	t.Helper()
	l := newClockedLog(t)
	l.feed(c)
	m := l.reportAfter(8 * time.Second)
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, m[k], v, m)
		}
	}
}

// clockedLog is a progress log on a clock the test moves; its ticker is
// an hour, so only the test's reports are logged.
type clockedLog struct {
	t   *testing.T
	p   *progressLog
	buf bytes.Buffer
	now time.Time
}

func newClockedLog(t *testing.T) *clockedLog {
	l := &clockedLog{t: t, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l.p = newProgressLog(slog.New(slog.NewJSONHandler(&l.buf, nil)), time.Hour, func() time.Time { return l.now })
	t.Cleanup(l.p.finish)
	return l
}

// feed tells the log what c counts (Sources only when c has some).
func (l *clockedLog) feed(c progressCounts) {
	if c.sources > 0 {
		l.p.Sources(c.sources)
	}
	for range c.sourcesDone {
		l.p.SourceDone()
	}
	for range c.queued {
		l.p.Queued()
	}
	for range c.done {
		l.p.Done()
	}
}

// reportAfter moves the clock on by d, reports, and returns the line.
func (l *clockedLog) reportAfter(d time.Duration) map[string]any {
	l.t.Helper()
	l.now = l.now.Add(d)
	l.buf.Reset()
	l.p.report()
	return jsonLines(l.t, l.buf.String())[0]
}

func TestNewProgress_BarOnlyOnATerminal(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	if _, ok := newProgress(log, time.Second, true).(*progressBar); !ok {
		t.Error("a terminal gets the bar")
	}
	p := newProgress(log, time.Second, false)
	if _, ok := p.(*progressLog); !ok {
		t.Errorf("no terminal: %T, want log lines", p)
	}
	p.finish()
	if p := newProgress(log, 0, false); p != nil {
		t.Errorf("interval 0 without a terminal: %T, want none", p)
	}
}

// TestBuild_FailedGateExitsOneNamingIt: a build whose nodes shrank past
// the gate prints its summary with the gate FAILED, exits 1 naming the
// gate, and latest stays on the build before.
func TestBuild_FailedGateExitsOneNamingIt(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{"parts.csv": "part_id,name\nP1,Frame\nP2,Wheel\n", "suppliers.csv": "supplier_id,name\nS1,Acme\nS2,Bolt\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: gated\nsources:\n  - {name: tables, paths: [\"*.csv\"]}\nresolve: {embeddings: false}\nneo4j: {mode: never}\ngates: {max_node_drop_percent: 5}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	if code, _, stderr := runCaptured(t, "", "build", "-p", pf, "-o", out); code != exitOK {
		t.Fatalf("first build: exit %d\n%s", code, stderr)
	}
	first, err := os.Readlink(filepath.Join(out, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "suppliers.csv")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCaptured(t, "", "build", "-p", pf, "-o", out)
	if code != exitFailed || !strings.Contains(stderr, "gates.max_node_drop_percent") || !strings.Contains(stdout, "max_node_drop_percent FAILED") {
		t.Errorf("gated build: exit %d (want 1)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if now, _ := os.Readlink(filepath.Join(out, "latest")); now != first {
		t.Errorf("latest moved to %s after a failed gate; want %s", now, first)
	}
}

// TestExitCodesAreDocumented keeps docs/operations.md's table of exit
// codes in step with the constants.
func TestExitCodesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for code, word := range map[int]string{exitOK: "ok", exitFailed: "failed", exitUsage: "bad configuration", exitPartial: "partial", exitBusy: "output locked", exitBudget: "over budget"} {
		if row := "| " + strconv.Itoa(code) + " | " + word; !strings.Contains(string(doc), row) {
			t.Errorf("docs/operations.md lacks the row %q", row)
		}
	}
}

// TestBuild_MetricsRefusesABundleFileBeforeBuilding names a bundle's
// manifest as --metrics: the build refuses it as a usage error before it
// runs (no new bundle), and the manifest is unchanged.
func TestBuild_MetricsRefusesABundleFileBeforeBuilding(t *testing.T) {
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	manifest := filepath.Join(writeBundle(t, out, "b1"), "manifest.json")
	before, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCaptured(t, "", "build", "--pipeline", tablesPipeline(t), "--out", out, "--metrics", manifest)
	if code != exitUsage || !strings.Contains(stderr, manifest) || !strings.Contains(stderr, "inside bundle") {
		t.Errorf("build --metrics %s: exit %d, want %d with an error naming it\n%s", manifest, code, exitUsage, stderr)
	}
	if after, err := os.ReadFile(manifest); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the manifest changed: %v\n%s", err, after)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 2 { // b1 and latest
		t.Errorf("the refused build wrote into its output: %v", entries)
	}
}
