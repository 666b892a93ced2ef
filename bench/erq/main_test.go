package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kgforge/onnxembed"
)

// A run of the methods that need no server, on the synthetic set: the
// tables, the JSON, and exact matching's planted zero.
func TestRun_SyntheticWithoutServer(t *testing.T) {
	out := filepath.Join(t.TempDir(), "erq.json")
	o := options{
		sets: []string{"synthetic"}, methods: []string{"exact", "fuzzy"}, seed: 1, draws: 3, report: reportTable,
		fuzzy: 0.8, cosine: 0.8, out: out, data: t.TempDir(),
	}
	var b strings.Builder
	if err := run(context.Background(), o, &b, io.Discard); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| synthetic | generated, seed 1, 3 draws per template | 1 |",
		"| synthetic | exact | 1.000 |",
		"| synthetic | fuzzy-0.8 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Results []result `json:"results"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 2 || got.Results[0].Method != "exact" || got.Results[0].NearMissMerged != 0 || got.Results[1].NearMissMerged == 0 {
		t.Errorf("results %+v", got.Results)
	}
}

func TestRun_UnknownNames(t *testing.T) {
	for _, o := range []options{
		{sets: []string{"nope"}, methods: []string{"exact"}, report: reportTable},
		{sets: []string{"synthetic"}, methods: []string{"nope"}, report: reportTable},
		{sets: []string{"synthetic", "patstat"}, report: "nope"},
	} {
		if err := run(context.Background(), o, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("%v: err %v", o, err)
		}
	}
}

// The out-of-sample report end to end, on real vectors (ONNX Runtime, in
// process) and the shared dev data, small: every fold holds out one set and
// fits on the others, and the figures carry their labels.
func TestRun_OutOfSampleIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds a few hundred names")
	}
	data := filepath.Join("..", "..", "..", "shared", "benchmarks")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("benchmark data not here: %v", err)
	}
	if !onnxembed.UserFiles().Present() {
		t.Skip("no ONNX Runtime files (scripts/onnx.sh)")
	}
	out := filepath.Join(t.TempDir(), "oos.json")
	o := options{
		sets: []string{"patstat", "redocred", "synthetic"}, n: 500, docs: 5, seed: 1, draws: 3, report: reportOutOfSample,
		data: data, cache: t.TempDir(), out: out, model: onnxembed.ModelName, embedder: embedderONNX, batch: 64,
	}
	var b strings.Builder
	if err := run(context.Background(), o, &b, io.Discard); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| patstat | redocred, synthetic | ",
		"| synthetic | patstat, redocred | ",
		"| patstat | kgforge (default: rules by kind of name) | fixed |",
		"| patstat | kgforge rules: score, committed model | in-sample |",
		"| synthetic | kgforge rules: score, committed model | out-of-sample |",
		"| patstat | kgforge rules: score, refitted without the set | out-of-sample |",
		"| patstat | all | 71 | 120 |", // candidate recall over PATSTAT's 120 true pairs
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// kgforge against the simple rules: one row a set, the default beside the
	// rule picked on the other sets and the best fixed rule, with their Δs.
	for _, set := range o.sets {
		row := regexp.MustCompile(`\| ` + set + ` \| [0-9.]+ / [0-9.]+ \| [a-z0-9.-]+: [0-9.]+ / [0-9.]+ \| [+-][0-9.]+ \| [+-][0-9.]+ \| [a-z0-9.-]+ [0-9.]+ / [a-z0-9.-]+ [0-9.]+ \| [+-][0-9.]+ \| [+-][0-9.]+ \|`)
		if !row.MatchString(md) {
			t.Errorf("no comparison row for %s", set)
		}
	}
	// kgforge against the simple rules: one row a set, the default beside the
	// rule picked on the other sets and the best fixed rule, with their Δs.
	for _, set := range o.sets {
		row := regexp.MustCompile(`\| ` + set + ` \| [0-9.]+ / [0-9.]+ \| [a-z0-9.-]+: [0-9.]+ / [0-9.]+ \| [+-][0-9.]+ \| [+-][0-9.]+ \| [a-z0-9.-]+ [0-9.]+ / [a-z0-9.-]+ [0-9.]+ \| [+-][0-9.]+ \| [+-][0-9.]+ \|`)
		if !row.MatchString(md) {
			t.Errorf("no comparison row for %s", set)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep oosReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Picks {
		if slices.Contains(p.FittedOn, p.HeldOut) || len(p.FittedOn) != 2 {
			t.Errorf("fold %s fitted on %v", p.HeldOut, p.FittedOn)
		}
	}
	if c := rep.Reliability["loso"]; c.Pairs == 0 || len(c.Bins) != reliabilityBins {
		t.Errorf("out-of-sample reliability %+v", c)
	}
	for _, r := range rep.Results {
		if r.Set == "synthetic" && strings.HasPrefix(r.Config, "kgforge") && r.NearMissMerged != 0 {
			t.Errorf("%s merged %d planted near-misses", r.Config, r.NearMissMerged)
		}
	}
}

func TestRun_OutOfSampleNeedsTwoSets(t *testing.T) {
	err := run(context.Background(), options{sets: []string{"synthetic"}, report: reportOutOfSample}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "at least two") {
		t.Errorf("err %v, want one that asks for two sets", err)
	}
}
