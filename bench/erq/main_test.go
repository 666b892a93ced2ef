package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
