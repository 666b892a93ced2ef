package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/agent/eval"
	"kgforge/bundle"
)

// exampleQuestions is the example's question set, from this package's
// directory.
const exampleQuestions = "../../examples/bikeco/questions.yaml"

// buildExampleWithoutModel builds the example pipeline into a temporary
// directory with extraction skipped, names not embedded and Neo4j left
// alone: the data tables, the chunks and the structural graph, which is
// all the example's gold SQL reads, without asking any model anything.
func buildExampleWithoutModel(t *testing.T) *bundle.Bundle {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(repo, "pipelines", "example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The example's paths are relative to pipelines/; the copy lives
	// elsewhere, so they become absolute.
	text := strings.ReplaceAll(string(raw), " ../", " "+repo+"/")
	text = strings.Replace(text, "\nresolve:\n", "\nresolve:\n  embeddings: false\n", 1)
	text = strings.Replace(text, "mode: auto", "mode: never", 1)
	text += "\nextract:\n  skip: true\n"
	dir := t.TempDir()
	pipeline := filepath.Join(dir, "example.yaml")
	if err := os.WriteFile(pipeline, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing answers there: any model call would fail the build
	out := filepath.Join(dir, "out")
	if code := run(context.Background(), []string{"build", "--pipeline", pipeline, "--out", out}); code != exitOK {
		t.Fatalf("build of the example without a model: exit code %d", code)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// TestExampleQuestionsGoldSQL runs every gold SQL of the example's
// question set on a freshly built example bundle and checks it still
// gives the question's gold answer, so that the set stays true as the
// example and kgforge change.
func TestExampleQuestionsGoldSQL(t *testing.T) {
	set, err := eval.LoadQuestions(exampleQuestions)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Questions); n < 20 {
		t.Errorf("the example has %d questions, want at least 20", n)
	}
	docAndTable := 0
	for _, q := range set.Questions {
		if strings.Contains(strings.Join(q.Needs, " "), "document") && strings.Contains(strings.Join(q.Needs, " "), "table") {
			docAndTable++
		}
	}
	checkGoldSQL(t, set)
	if docAndTable < 5 {
		t.Errorf("%d questions need a document and a table together, want at least 5", docAndTable)
	}
}

// devQuestions are kgforge's own development questions over the example
// (bench/bikecodev), not the example's test.
var devQuestions = []string{
	"../../bench/bikecodev/questions.yaml",
	"../../bench/bikecodev/fresh.yaml",
	"../../bench/bikecodev/fresh2.yaml",
	"../../bench/bikecodev/fresh3.yaml",
	"../../bench/bikecodev/fresh4.yaml",
}

// The development questions' gold answers are what their SQL gives on a
// fresh build, as the example's are.
func TestDevQuestionsGoldSQL(t *testing.T) {
	for _, file := range devQuestions {
		set, err := eval.LoadQuestions(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(set.Name, func(t *testing.T) { checkGoldSQL(t, set) })
	}
}

// checkGoldSQL runs each question's gold SQL over a build of the example
// without a model and checks that it gives the gold answer.
func checkGoldSQL(t *testing.T, set *eval.Set) {
	t.Helper()
	b := buildExampleWithoutModel(t)
	sb, err := b.Sandbox(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	for i := range set.Questions {
		q := &set.Questions[i]
		t.Run(q.ID, func(t *testing.T) {
			if q.SQL == "" {
				t.Fatal("no gold SQL")
			}
			_, rows, truncated, err := sb.Query(t.Context(), q.SQL, 10)
			if err != nil {
				t.Fatalf("gold SQL: %v", err)
			}
			if truncated {
				t.Fatal("the gold SQL returns more than ten rows")
			}
			if err := eval.CheckGold(q, rows); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestEvalAgent_UsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nquestions:\n  - id: a\n    question: How many?\n    kind: count\n    answer: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"no questions":      {"eval", "agent", "--bundle", "x"},
		"unknown agent":     {"eval", "agent", "--bundle", "x", "--questions", exampleQuestions, "--agents", "kgforge,oracle"},
		"budget 0":          {"eval", "agent", "--bundle", "x", "--questions", exampleQuestions, "--budget", "0"},
		"unknown format":    {"eval", "agent", "--bundle", "x", "--questions", exampleQuestions, "--format", "xml"},
		"bad question file": {"eval", "agent", "--bundle", "x", "--questions", bad},
		"negative sample":   {"eval", "agent", "--bundle", "x", "--questions", exampleQuestions, "--sample", "-1"},
		"an argument":       {"eval", "agent", "--questions", exampleQuestions, "extra"},
		"missing questions": {"eval", "agent", "--bundle", "x", "--questions", "nope.yaml"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			if code := run(context.Background(), args); code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
		})
	}
}
