package stages

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"kgforge/bundle"
)

// metric is one gauge family of the run's metrics: what the run that just
// ended did. Gauges, not counters, since each file describes one run (the
// Prometheus advice for batch jobs): node_exporter's textfile collector and
// a Pushgateway keep the last value.
type metric struct {
	name, unit, help string
	samples          []sample
}

type sample struct {
	labels [][2]string // name, value
	value  float64
}

// Metrics renders the report as OpenMetrics 1.0 text, ending in # EOF.
// Every family is a gauge; those in seconds carry the unit. The same text
// parses as Prometheus text format 0.0.4, whose parsers read # UNIT and
// # EOF as comments.
func (r *Report) Metrics() string {
	var w strings.Builder
	for _, m := range r.metrics() {
		if len(m.samples) == 0 {
			continue // a family without samples says nothing
		}
		name := "kgforge_" + m.name
		fmt.Fprintf(&w, "# TYPE %s gauge\n", name)
		if m.unit != "" {
			fmt.Fprintf(&w, "# UNIT %s %s\n", name, m.unit)
		}
		fmt.Fprintf(&w, "# HELP %s %s\n", name, m.help)
		for _, s := range m.samples {
			w.WriteString(name)
			if len(s.labels) > 0 {
				parts := make([]string, len(s.labels))
				for i, l := range s.labels {
					parts[i] = l[0] + `="` + escapeLabel(l[1]) + `"`
				}
				w.WriteString("{" + strings.Join(parts, ",") + "}")
			}
			w.WriteString(" " + strconv.FormatFloat(s.value, 'g', -1, 64) + "\n")
		}
	}
	w.WriteString("# EOF\n")
	return w.String()
}

// escapeLabel escapes a label value as OpenMetrics requires.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func one(v float64) []sample { return []sample{{value: v}} }

// byLabel is one sample per key of counts, sorted, labelled label=key.
func byLabel(label string, counts map[string]int) []sample {
	var out []sample
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, sample{labels: [][2]string{{label, k}}, value: float64(counts[k])})
	}
	return out
}

func (r *Report) metrics() []metric {
	status := Status("failed") // a run that returned before finishing
	if r.Status != "" {
		status = r.Status
	}
	ms := []metric{
		{name: "build_status", help: "The build this file describes, and how it ended (value 1).", samples: []sample{{
			labels: [][2]string{{"build_id", r.BuildID}, {"pipeline", r.Pipeline}, {"status", string(status)}}, value: 1,
		}}},
		{name: "build_success", help: "1 when the build ended ok or partial (its bundle is latest), 0 when it failed.", samples: one(boolValue(status == StatusOK || status == StatusPartial))},
		{name: "build_last_run_timestamp_seconds", unit: "seconds", help: "When the build ended, in Unix time.", samples: one(unixSeconds(r))},
		{name: "build_duration_seconds", unit: "seconds", help: "Wall time of the build.", samples: one(durationSeconds(r))},
	}
	var dur, items []sample
	for _, st := range slices.Sorted(maps.Keys(r.Stages)) {
		l := [][2]string{{"stage", st}}
		dur = append(dur, sample{labels: l, value: r.Stages[st].Duration.Seconds()})
		items = append(items, sample{labels: l, value: float64(r.Stages[st].Items)})
	}
	ms = append(ms,
		metric{name: "stage_duration_seconds", unit: "seconds", help: "Wall time of each stage.", samples: dur},
		metric{name: "stage_items", help: "Items each stage handled.", samples: items},
		metric{name: "sources", help: "Sources in the bundle.", samples: one(float64(r.Sources))},
		metric{name: "tables", help: "Data tables in the bundle.", samples: one(float64(r.Tables))},
		metric{name: "chunks", help: "Chunks in the bundle.", samples: one(float64(r.Chunks))},
		metric{name: "triplets", help: "Grounded triplets kept.", samples: one(float64(r.Triplets))},
		metric{name: "nodes", help: "Nodes of the graph.", samples: one(float64(r.Nodes))},
		metric{name: "edges", help: "Edges of the graph.", samples: one(float64(r.Edges))},
		metric{name: "merges", help: "Rows of the merge log.", samples: one(float64(r.Merges))},
		metric{name: "llm_calls", help: "Calls to the LLM server (chat and embeddings, retries included).", samples: one(float64(r.LLM.Calls))},
		metric{name: "llm_prompt_tokens", help: "Prompt tokens the server counted.", samples: one(float64(r.LLM.PromptTokens))},
		metric{name: "llm_completion_tokens", help: "Completion tokens the server counted.", samples: one(float64(r.LLM.CompletionTokens))},
		metric{name: "extract_cache_hits", help: "Chunks whose extraction came from the reply cache.", samples: one(float64(r.Extract.CacheHits))},
		metric{name: "triplets_dropped", help: "Triplets dropped, by reason.", samples: byLabel("reason", r.Extract.Dropped)},
	)
	rejected := map[string]int{}
	for _, rj := range r.Rejected {
		rejected[rj.Stage]++
	}
	ms = append(ms, metric{name: "rejected_items", help: "Items rejected alone (the build is partial), by stage.", samples: byLabel("stage", rejected)})
	if r.Plan != nil {
		var units []sample
		for _, kind := range slices.Sorted(maps.Keys(r.Plan.Units)) {
			u := r.Plan.Units[kind]
			units = append(units,
				sample{labels: [][2]string{{"kind", kind}, {"outcome", "run"}}, value: float64(u.Run)},
				sample{labels: [][2]string{{"kind", kind}, {"outcome", "reused"}}, value: float64(u.Reused)})
		}
		ms = append(ms,
			metric{name: "units", help: "Units of the plan, by kind, run or reused from the state directory.", samples: units},
			metric{name: "sources_read", help: "Sources opened (an unchanged source with a stored segment is not).", samples: one(float64(r.Plan.SourcesRead))})
	}
	var gates []sample
	for _, g := range r.Gates {
		gates = append(gates, sample{labels: [][2]string{{"gate", g.Name}}, value: boolValue(g.Passed)})
	}
	return append(ms, metric{name: "gate_passed", help: "Quality gates checked: 1 passed, 0 failed.", samples: gates})
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func unixSeconds(r *Report) float64 {
	if r.Finished.IsZero() {
		return 0
	}
	return float64(r.Finished.UnixNano()) / 1e9
}

func durationSeconds(r *Report) float64 {
	if r.Finished.IsZero() || r.Started.IsZero() {
		return 0
	}
	return r.Finished.Sub(r.Started).Seconds()
}

// WriteMetricsFile writes the report's metrics to path atomically: to a
// temporary file in the same directory, then renamed, so that a collector
// reading the directory never sees half a file. node_exporter's textfile
// collector reads only *.prom files, so the temporary name ends otherwise.
//
// It refuses a path CheckMetricsPath refuses.
func (r *Report) WriteMetricsFile(path string) (err error) {
	if err := CheckMetricsPath(path); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name()) // the error that matters is already returned
		}
	}()
	if _, err := io.WriteString(f, r.Metrics()); err != nil {
		_ = f.Close()
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	return nil
}

// CheckMetricsPath refuses a metrics file path that the rename of
// WriteMetricsFile must not replace: one that exists and is not a regular
// file (a device such as /dev/full, a directory, a symbolic link), or one
// that lies in a bundle, whose files are written once by the build that
// made it. A build checks the path before it starts.
func CheckMetricsPath(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("metrics file %s: %w", path, err)
	case !fi.Mode().IsRegular():
		what := "a symbolic link"
		if fi.Mode()&os.ModeSymlink == 0 {
			what = "not a regular file (" + fi.Mode().Type().String() + ")"
		}
		return fmt.Errorf("metrics file %s is %s; the metrics are written to a new file renamed over it: name a regular file or a new one", path, what)
	}
	dir, err := bundle.Containing(path)
	if err != nil {
		return fmt.Errorf("metrics file %s: %w", path, err)
	}
	if dir != "" {
		return fmt.Errorf("metrics file %s is inside bundle %s, which no one may change after its build: name a file outside the bundles", path, dir)
	}
	return nil
}
