package stages

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/extract"
	"kgforge/llm"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

func sampleReport() *Report {
	start := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	return &Report{
		BuildID: "20261201T020000Z-abcdef", Pipeline: `night"ly\n`, Status: StatusPartial,
		Started: start, Finished: start.Add(90 * time.Second),
		Stages:  map[string]StageReport{"ingest": {Duration: time.Second, Items: 3}, "extract": {Duration: time.Minute, Items: 40}},
		Sources: 3, Chunks: 40, Triplets: 12, Nodes: 30, Edges: 50, Merges: 4,
		LLM:      llm.Usage{Calls: 38, PromptTokens: 9000, CompletionTokens: 2000},
		Extract:  extract.Stats{CacheHits: 2, Dropped: map[string]int{"evidence_not_found": 5}},
		Rejected: []Reject{{Stage: "ingest", Item: "bad.pdf", Reason: "unreadable"}},
		Plan:     &Plan{Units: map[string]*UnitCounts{"source": {Run: 1, Reused: 2}}, SourcesRead: 1},
		Gates:    []Gate{{Name: "max_node_drop_percent", Passed: true}},
	}
}

// parse decodes metrics text with the given format's parser from
// prometheus/common: OpenMetrics 1.0 (a grammar-checked parser) or the
// Prometheus text format node_exporter's textfile collector reads.
func parse(t *testing.T, text string, f expfmt.Format) map[string]*dto.MetricFamily {
	t.Helper()
	dec := expfmt.NewDecoder(strings.NewReader(text), f)
	out := map[string]*dto.MetricFamily{}
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("parse as %s: %v\n%s", f, err, text)
		}
		out[mf.GetName()] = &mf
	}
}

func TestReport_MetricsParseAsOpenMetricsAndPrometheusText(t *testing.T) {
	text := sampleReport().Metrics()
	if !strings.HasSuffix(text, "\n# EOF\n") {
		t.Fatalf("metrics do not end with # EOF:\n%s", text)
	}
	for _, f := range []expfmt.Format{expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtText} {
		fams := parse(t, text, f)
		for name, want := range map[string]float64{
			"kgforge_build_duration_seconds": 90,
			"kgforge_llm_completion_tokens":  2000,
			"kgforge_extract_cache_hits":     2,
			"kgforge_nodes":                  30,
			"kgforge_build_success":          1,
		} {
			mf, ok := fams[name]
			if !ok || mf.GetType() != dto.MetricType_GAUGE || mf.Metric[0].GetGauge().GetValue() != want {
				t.Errorf("%s: %s = %v, want a gauge of %v", f, name, mf, want)
			}
		}
		if mf := fams["kgforge_rejected_items"]; mf == nil || mf.Metric[0].Label[0].GetValue() != "ingest" {
			t.Errorf("%s: rejected_items = %v", f, mf)
		}
		if mf := fams["kgforge_build_status"]; mf == nil || mf.Metric[0].Label[1].GetValue() != "night\"ly\\n" {
			t.Errorf("%s: build_status labels = %v (the pipeline's name is escaped)", f, mf)
		}
		if len(fams["kgforge_stage_duration_seconds"].GetMetric()) != 2 {
			t.Errorf("%s: stage durations %v", f, fams["kgforge_stage_duration_seconds"])
		}
	}
	empty := (&Report{BuildID: "b"}).Metrics() // a run that failed before its report was filled
	parse(t, empty, expfmt.FmtOpenMetrics_1_0_0)
	if !strings.Contains(empty, `status="failed"`) || !strings.Contains(empty, "kgforge_build_success 0\n") {
		t.Errorf("metrics of a failed run:\n%s", empty)
	}
}

func TestReport_WriteMetricsFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kgforge.prom")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sampleReport().WriteMetricsFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != sampleReport().Metrics() {
		t.Errorf("metrics file: %v\n%s", err, got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left beside the file: %v", entries)
	}
	if err := sampleReport().WriteMetricsFile(filepath.Join(dir, "no", "such", "dir.prom")); err == nil || !strings.Contains(err.Error(), "write metrics") {
		t.Errorf("unwritable path: %v", err)
	}
}

// TestReport_WriteMetricsFileRefusesWhatItMustNotReplace names as the
// metrics file what the rename would wrongly replace: a FIFO (as a device
// such as /dev/full would be), a directory, a symbolic link, a bundle's
// manifest, a new file in a bundle, and one reached through the output's
// latest link. Each is refused with an error naming the path and left as
// it was; a new file beside the bundles is written.
func TestReport_WriteMetricsFileRefusesWhatItMustNotReplace(t *testing.T) {
	out, dir := t.TempDir(), t.TempDir()
	w, err := bundle.Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	bdir, err := w.Commit(bundle.Contents{}, bundle.Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(bdir, bundle.ManifestFile)
	fifo := filepath.Join(dir, "fifo.prom")
	mustDo(t, syscall.Mkfifo(fifo, 0o644))
	link := filepath.Join(dir, "link.prom")
	mustWrite(t, filepath.Join(dir, "target"), "target\n")
	mustDo(t, os.Symlink(filepath.Join(dir, "target"), link))
	for _, tc := range []struct{ name, path, want string }{
		{"fifo", fifo, "not a regular file"},
		{"directory", dir, "not a regular file"},
		{"symlink", link, "symbolic link"},
		{"bundle manifest", manifest, "inside bundle"},
		{"new file in a bundle", filepath.Join(bdir, "kgforge.prom"), "inside bundle"},
		{"through latest", filepath.Join(out, bundle.LatestLink, "kgforge.prom"), "inside bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.Lstat(tc.path)
			err := sampleReport().WriteMetricsFile(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WriteMetricsFile(%s): %v; want an error naming it and saying %q", tc.path, err, tc.want)
			}
			after, _ := os.Lstat(tc.path)
			if (before == nil) != (after == nil) || (before != nil && !os.SameFile(before, after)) {
				t.Errorf("%s was replaced", tc.path)
			}
		})
	}
	b, err := bundle.Open(bdir)
	if err != nil {
		t.Errorf("the bundle after the refused writes: %v", err)
	} else {
		_ = b.Close()
	}
	if err := sampleReport().WriteMetricsFile(filepath.Join(out, "kgforge.prom")); err != nil {
		t.Errorf("metrics beside the bundles: %v", err)
	}
}
