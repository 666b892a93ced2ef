package stages

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/pipelines"
)

// StatusFailed is the status of a build that failed a quality gate: its
// bundle is written but is not latest, and Neo4j was not loaded.
const StatusFailed Status = "failed"

// ErrGateFailed is wrapped by the error of a build that failed a quality
// gate (a *GateError).
var ErrGateFailed = errors.New("quality gate failed")

// Gate is one quality gate checked against the previous build.
type Gate struct {
	Name   string `json:"name"`   // the pipeline's key: max_node_drop_percent, …
	Passed bool   `json:"passed"` // false: the build failed
	Detail string `json:"detail"` // what was compared
}

// GateError names the gates a build failed.
type GateError struct {
	BuildID string
	Bundle  string
	Failed  []Gate
}

func (e *GateError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, g := range e.Failed {
		parts[i] = "gates." + g.Name + ": " + g.Detail
	}
	return fmt.Sprintf("build %s failed its quality gates (%s); its bundle %s is not latest, the previous one stays current",
		e.BuildID, strings.Join(parts, "; "), e.Bundle)
}

func (e *GateError) Unwrap() error { return ErrGateFailed }

// gateErr returns the *GateError of the report's failed gates, or nil.
func (r *Report) gateErr() error {
	var failed []Gate
	for _, g := range r.Gates {
		if !g.Passed {
			failed = append(failed, g)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &GateError{BuildID: r.BuildID, Bundle: r.Bundle, Failed: failed}
}

// prevFacts is what the gates compare with: the report of the build latest
// pointed at.
type prevFacts struct {
	BuildID  string   `json:"build_id"`
	Nodes    int      `json:"nodes"`
	Edges    int      `json:"edges"`
	Merges   int      `json:"merges"`
	Rejected []Reject `json:"rejected"`
}

// gate checks the pipeline's gates against the previous build before the
// bundle is committed, so that a failure keeps it out of latest.
func (b *build) gate(c consolidated) {
	g := b.p.Gates
	if g.Count() == 0 {
		return
	}
	prev, ok, err := readPrevReport(b.outDir)
	switch {
	case err != nil:
		b.rep.warn("gates", b.outDir, "gates not checked: "+err.Error())
		return
	case !ok:
		return // a first build passes every gate
	}
	graph := c.out.Graph
	b.rep.Gates = checkGates(g, prev, len(graph.Nodes), len(graph.Edges), len(graph.Merges), b.rep.Rejected)
	if b.rep.gateErr() != nil {
		b.w.Unlisted = true
		b.log.Error("quality gate failed", "gates", b.rep.gateErr().Error())
	}
}

// readPrevReport reads the report of the build latest points at; ok is
// false when there is no latest.
func readPrevReport(outDir string) (prevFacts, bool, error) {
	id, err := os.Readlink(filepath.Join(outDir, bundle.LatestLink))
	if errors.Is(err, os.ErrNotExist) {
		return prevFacts{}, false, nil
	}
	if err != nil {
		return prevFacts{}, false, err
	}
	raw, err := os.ReadFile(filepath.Join(outDir, "reports", id+".json"))
	if err != nil {
		return prevFacts{}, false, fmt.Errorf("the previous build's report: %w", err)
	}
	var p prevFacts
	if err := json.Unmarshal(raw, &p); err != nil {
		return prevFacts{}, false, fmt.Errorf("the previous build's report %s: %w", id, err)
	}
	return p, true, nil
}

// checkGates compares this build's counts and rejected sources with the
// previous build's.
func checkGates(g pipelines.Gates, prev prevFacts, nodes, edges, merges int, rejected []Reject) []Gate {
	var out []Gate
	drop := func(name, what string, limit *float64, was, now int) {
		if limit == nil {
			return
		}
		pct := 0.0
		if was > 0 && now < was {
			pct = 100 * float64(was-now) / float64(was)
		}
		out = append(out, Gate{
			Name: name, Passed: pct <= *limit,
			Detail: fmt.Sprintf("%s %d, were %d in build %s: %.1f%% fewer, limit %v%%", what, now, was, prev.BuildID, pct, *limit),
		})
	}
	drop("max_node_drop_percent", "nodes", g.MaxNodeDrop, prev.Nodes, nodes)
	drop("max_edge_drop_percent", "edges", g.MaxEdgeDrop, prev.Edges, edges)
	if lim := g.MaxMergeGrowth; lim != nil {
		pct := 0.0
		switch {
		case merges <= prev.Merges:
		case prev.Merges == 0:
			pct = 100 * float64(merges) // from none, each merge counts as 100 %
		default:
			pct = 100 * float64(merges-prev.Merges) / float64(prev.Merges)
		}
		out = append(out, Gate{
			Name: "max_merge_growth_percent", Passed: pct <= *lim,
			Detail: fmt.Sprintf("merges %d, were %d in build %s: %.1f%% more, limit %v%%", merges, prev.Merges, prev.BuildID, pct, *lim),
		})
	}
	if g.NewSourceFailures == pipelines.GateFail {
		was := rejectedSources(prev.Rejected)
		var fresh []string
		for _, s := range rejectedSources(rejected) {
			if !slices.Contains(was, s) {
				fresh = append(fresh, s)
			}
		}
		d := fmt.Sprintf("no source rejected that build %s did not reject", prev.BuildID)
		if len(fresh) > 0 {
			d = fmt.Sprintf("%d sources rejected that build %s did not reject: %s", len(fresh), prev.BuildID, strings.Join(fresh, ", "))
		}
		out = append(out, Gate{Name: "new_source_failures", Passed: len(fresh) == 0, Detail: d})
	}
	return out
}

// rejectedSources lists the sources a report rejected (at ingest), sorted.
func rejectedSources(rs []Reject) []string {
	var out []string
	for _, r := range rs {
		if r.Stage == "ingest" && !slices.Contains(out, r.Item) {
			out = append(out, r.Item)
		}
	}
	slices.Sort(out)
	return out
}
