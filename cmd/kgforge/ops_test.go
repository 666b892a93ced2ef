package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
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
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	p := newProgressLog(slog.New(slog.NewJSONHandler(&buf, nil)), time.Hour, clock)
	defer p.finish()
	for range 10 {
		p.Queued()
	}
	for range 4 {
		p.Done()
	}
	now = now.Add(8 * time.Second)
	p.report()
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"msg": "progress", "stage": "extract", "done": 4.0, "queued": 10.0, "elapsed_s": 8.0, "rate_per_s": 0.5, "eta_s": 12.0}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (line %s)", k, m[k], v, buf.String())
		}
	}
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
