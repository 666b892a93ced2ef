package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// queryBundle writes a bundle with one node and a data table of dates and
// timestamps, and returns its output directory.
func queryBundle(t *testing.T) string {
	t.Helper()
	return bundleWithNode(t, "Velora")
}

// bundleWithNode is queryBundle with the one node named name.
func bundleWithNode(t *testing.T, name string) string {
	t.Helper()
	out := t.TempDir()
	w, err := bundle.Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(context.Background(), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE shipments AS SELECT * FROM (VALUES
		('S1', DATE '2025-02-24', TIMESTAMP '2025-02-24 10:30:00', TIMESTAMPTZ '2025-02-24 10:30:00+00')) t(id, day, shipped_at, shipped_tz)`); err != nil {
		t.Fatal(err)
	}
	g := kg.Graph{Nodes: []kg.Node{{ID: "n1", Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity"}}}}
	tables := []kg.Table{{Name: "shipments", Columns: []kg.Column{{Name: "id"}, {Name: "day"}, {Name: "shipped_at"}, {Name: "shipped_tz"}}}}
	if _, err := w.Commit(bundle.Contents{Graph: g, Tables: tables}, bundle.Manifest{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// runCaptured runs kgforge with args, stdin as its standard input, and
// returns the exit code and what it wrote on stdout and stderr.
func runCaptured(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	files := make([]*os.File, 3)
	for i, name := range []string{"stdin", "stdout", "stderr"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		files[i] = f
	}
	if _, err := files[0].WriteString(stdin); err != nil {
		t.Fatal(err)
	}
	if _, err := files[0].Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	in, out, errOut := os.Stdin, os.Stdout, os.Stderr
	os.Stdin, os.Stdout, os.Stderr = files[0], files[1], files[2]
	code = run(context.Background(), args)
	os.Stdin, os.Stdout, os.Stderr = in, out, errOut
	o, err := os.ReadFile(files[1].Name())
	if err != nil {
		t.Fatal(err)
	}
	e, err := os.ReadFile(files[2].Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, string(o), string(e)
}

func TestQuery_SQLThatBeginsWithACommentIsNotAFlag(t *testing.T) {
	out := queryBundle(t)
	cases := map[string]struct {
		stdin string
		args  []string
	}{
		"comment first":         {"", []string{"query", "-b", out, "-- the count\nSELECT count(*) AS n FROM nodes"}},
		"flags after the SQL":   {"", []string{"query", "-- the count\nSELECT count(*) AS n FROM nodes", "--bundle", out}},
		"comment then a space":  {"", []string{"query", "--bundle=" + out, "--   the count\r\n\tSELECT count(*) AS n FROM nodes"}},
		"after the terminator":  {"", []string{"query", "-b", out, "--", "-- the count\nSELECT count(*) AS n FROM nodes"}},
		"on stdin":              {"-- the count\nSELECT count(*) AS n FROM nodes;\n", []string{"query", "-b", out, "-"}},
		"global flag after SQL": {"", []string{"query", "-b", out, "-- c\nSELECT count(*) AS n FROM nodes", "-v"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCaptured(t, c.stdin, c.args...)
			if code != exitOK || stdout != "n\n1\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0 and n, 1", code, stdout, stderr)
			}
		})
	}
	for name, args := range map[string][]string{
		"no SQL":        {"query", "-b", out},
		"two arguments": {"query", "-b", out, "SELECT 1", "SELECT 2"},
		"unknown flag":  {"query", "-b", out, "--nope", "SELECT 1"},
		"bad timeout":   {"query", "-b", out, "--timeout", "soon", "SELECT 1"},
		"bad memory":    {"query", "-b", out, "--memory-limit", "lots", "SELECT 1"},
		"bad threads":   {"query", "-b", out, "--threads", "-2", "SELECT 1"},
	} {
		t.Run(name, func(t *testing.T) {
			if code, _, stderr := runCaptured(t, "", args...); code != exitUsage {
				t.Errorf("exit %d (stderr %q), want %d", code, stderr, exitUsage)
			}
		})
	}
	if code, stdout, _ := runCaptured(t, "", "query", "--help"); code != exitOK || !strings.Contains(stdout, "--memory-limit") {
		t.Errorf("query --help: exit %d, stdout %q", code, stdout)
	}
}

func TestQuery_PrintsDatesAsDuckDBDoes(t *testing.T) {
	code, stdout, stderr := runCaptured(t, "", "query", "-b", queryBundle(t), "SELECT day, shipped_at, shipped_tz FROM shipments")
	want := "day\tshipped_at\tshipped_tz\n2025-02-24\t2025-02-24 10:30:00\t2025-02-24 10:30:00Z\n"
	if code != exitOK || stdout != want {
		t.Errorf("exit %d, stdout %q (stderr %q), want %q", code, stdout, stderr, want)
	}
}

func TestQuery_LimitsAreFlagsAndTheirErrorsSayWhichOne(t *testing.T) {
	out := queryBundle(t)
	cases := map[string]struct {
		args []string
		want []string
	}{
		"timeout": {
			[]string{"query", "-b", out, "--timeout", "200ms", "SELECT sum(a.range + b.range) FROM range(1000000000) a, range(100000) b"},
			[]string{"query stopped after 200ms", "LIMIT", "--timeout raises the limit"},
		},
		"memory": {
			[]string{"query", "-b", out, "--memory-limit", "64MiB", "--threads", "1", "SELECT count(DISTINCT 'key-' || range::VARCHAR) FROM range(50000000)"},
			[]string{"query stopped at 64MiB", "--memory-limit raises the limit"},
		},
		"refused statement": {
			[]string{"query", "-b", out, "EXPLAIN ANALYZE SELECT 1"},
			[]string{"EXPLAIN statement refused"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runCaptured(t, "", c.args...)
			if code != exitFailed {
				t.Errorf("exit %d, want %d", code, exitFailed)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}
