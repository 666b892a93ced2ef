package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/agent/eval"
	"kgforge/bench/internal/benchdata"
	"kgforge/llm"
)

// benchmarks is the shared benchmark data, beside the repository.
func benchmarks(t *testing.T) string {
	t.Helper()
	return benchdata.Require(t, "README.md")
}

func TestTATQuestion_KindsFromTheAnswerType(t *testing.T) {
	cases := []struct {
		name, typ, scale string
		answer           any
		kind             eval.Kind
		want             any
	}{
		{"arithmetic", "arithmetic", "million", 12.5, eval.KindNumber, 12.5},
		{"arithmetic percent", "arithmetic", "percent", 3.4, eval.KindPercent, 3.4},
		{"span number in parentheses", "span", "thousand", []any{"(1,234)"}, eval.KindNumber, -1234.0},
		{"span money", "span", "million", []any{"$1,496.5"}, eval.KindNumber, 1496.5},
		{"span text", "span", "", []any{"fixed-price type"}, eval.KindText, "fixed-price type"},
		{"multi-span", "multi-span", "", []any{"a", "b"}, eval.KindList, []any{"a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, reason := tatQuestion("x", "Q?", c.answer, c.typ, c.scale)
			if reason != "" {
				t.Fatal(reason)
			}
			if q.Kind != c.kind || fmt.Sprint(q.Answer) != fmt.Sprint(c.want) {
				t.Errorf("got %s %v, want %s %v", q.Kind, q.Answer, c.kind, c.want)
			}
			if err := q.Prepare(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSamples_GoldFromTheBundles builds a few bundles of each set without
// a model (extraction skipped) and checks every sampled question has a
// gold answer the harness can score, and Spider's gold SQL was rewritten
// to the bundle's table names.
func TestSamples_GoldFromTheBundles(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	client, err := llm.New(llm.Options{Host: "http://127.0.0.1:1", MaxRetries: -1}) // nothing answers: the builds ask no model
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	o := options{data: data, work: t.TempDir(), n: 4, perDoc: 2, model: "m", seed: 1}
	for _, name := range []string{"tatqa", "spider", "kaggle"} {
		t.Run(name, func(t *testing.T) {
			s, err := sample(context.Background(), o, client, name)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.items) != o.n {
				t.Fatalf("%d questions, want %d (left out: %v)", len(s.items), o.n, s.skipped)
			}
			for _, it := range s.items {
				q := it.q
				if err := q.Prepare(); err != nil {
					t.Error(err)
				}
				if name != "tatqa" && !strings.Contains(q.SQL, name+"_") && !strings.Contains(strings.ToLower(q.SQL), "_") {
					t.Errorf("%s: gold SQL %q names no bundle table", q.ID, q.SQL)
				}
				if _, err := os.Stat(filepath.Join(it.src, "out", "latest")); err != nil && name != "tatqa" {
					t.Errorf("%s: no bundle built in %s", q.ID, it.src)
				}
			}
		})
	}
}

// TestSamples_HeldOutDatabasesOnly: -heldout keeps the questions of the
// databases the split holds out, and names a split that holds none.
func TestSamples_HeldOutDatabasesOnly(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	client, err := llm.New(llm.Options{Host: "http://127.0.0.1:1", MaxRetries: -1}) // nothing answers: the builds ask no model
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	o := options{data: data, work: t.TempDir(), n: 6, model: "m", seed: 1, heldout: "../../training/agent_split.json"}
	s, err := sample(context.Background(), o, client, "spider")
	if err != nil {
		t.Fatal(err)
	}
	held := []string{"course_teach", "real_estate_properties", "museum_visit"}
	for _, it := range s.items {
		if db := filepath.Base(it.src); !slices.Contains(held, db) {
			t.Errorf("%s: database %s is not held out", it.q.ID, db)
		}
	}
	if len(s.items) != o.n {
		t.Errorf("%d questions, want %d", len(s.items), o.n)
	}
	bad := filepath.Join(t.TempDir(), "split.json")
	if err := os.WriteFile(bad, []byte(`{"heldout":{"kaggle":["GeoNuclearData"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o.heldout = bad
	if _, err := sample(context.Background(), o, client, "spider"); err == nil || !strings.Contains(err.Error(), "no held-out databases for set spider") {
		t.Errorf("a split without spider: %v", err)
	}
}

// -trained without -heldout would sample every database, the held-out
// ones among them: it is refused before anything is built.
func TestRun_TrainedNeedsAHeldOutSplit(t *testing.T) {
	err := run(context.Background(), options{trained: true, sets: "spider", work: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "-trained needs -heldout") {
		t.Errorf("run with -trained alone: %v, want the flag named", err)
	}
}
