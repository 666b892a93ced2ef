package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
)

// outEntries lists what an output directory and its state directory hold,
// recursively, as slash paths.
func outEntries(t *testing.T, out string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(out, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestForecast_OneChangedDocumentShowsExactlyItsUnitsAndChunks builds a
// pipeline, changes one document and plans: the plan names that document
// alone as changed and read, its one extract unit as the unit to run and
// its chunk as the one cache miss, prices it at the rate the first build
// measured, asks the model nothing and writes nothing. The build that
// follows does exactly what the plan said.
func TestForecast_OneChangedDocumentShowsExactlyItsUnitsAndChunks(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, dir := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	if _, err := rn.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	writeAged(t, filepath.Join(dir, "docs", docName(1)), plantText(1, "now paints the Gravel bike"))
	before, calls := outEntries(t, rn.OutDir), chats.Load()
	f, err := rn.Forecast(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := chats.Load() - calls; n != 0 {
		t.Errorf("the plan made %d model calls", n)
	}
	if after := outEntries(t, rn.OutDir); !slices.Equal(before, after) {
		t.Errorf("the plan wrote under the output directory:\nbefore %v\nafter  %v", before, after)
	}
	if !slices.Equal(f.Changed, []string{"docs/d1.md"}) || len(f.Unchanged) != 4 || len(f.Added)+len(f.Removed) != 0 || f.SourcesToRead != 1 {
		t.Errorf("sources: changed %v unchanged %v added %v removed %v, %d to read", f.Changed, f.Unchanged, f.Added, f.Removed, f.SourcesToRead)
	}
	if s, e := *f.Units["source"], *f.Units["extract"]; s != (UnitCounts{Run: 1, Reused: 4}) || e != (UnitCounts{Run: 1, Reused: 3}) {
		t.Errorf("units: source %+v extract %+v; want 1 run of 5, 1 run of 4", s, e)
	}
	if f.Chunks != (ChunkForecast{Reused: 3, ToExtract: 1, Misses: 1}) || len(f.Documents) != 1 ||
		f.Documents[0].URI != "docs/d1.md" || f.Documents[0].ExtractUnits != 1 || len(f.Documents[0].Misses) != 1 {
		t.Fatalf("chunks %+v, documents %+v", f.Chunks, f.Documents)
	}
	// The first build sent 4 chunks at 5 completion tokens each.
	e := f.Estimate
	if e.Rate == nil || e.Rate.Chunks != 4 || e.CompletionTokens != 5 || e.PromptBytes == 0 || e.CompletionBound == 0 {
		t.Errorf("estimate %+v, rate %+v", e, e.Rate)
	}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := chats.Load() - calls; n != 1 || rep.Plan.Units["extract"].Run != 1 || rep.Plan.SourcesRead != 1 {
		t.Errorf("the build after the plan: %d calls, units %+v, %d read; the plan said 1, 1, 1", n, *rep.Plan.Units["extract"], rep.Plan.SourcesRead)
	}
	want := f.Documents[0].Misses[0]
	if !slices.Contains(chunkField(t, rep.Bundle, func(c kg.Chunk) string { return c.ID }), want) {
		t.Errorf("the plan's missing chunk %s is not in the bundle the build made", want)
	}
}

// TestForecast_NoRateMeasuredYet plans a first build: every chunk with a
// sentence misses the cache, no rate is measured, so the prompt tokens
// come from the prompts' size and no completion or time is guessed.
func TestForecast_NoRateMeasuredYet(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, _ := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	f, err := rn.Forecast(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if chats.Load() != 0 || f.Chunks.Misses != 4 || f.Units["extract"].Run != 4 || f.Units["source"].Run != 5 || len(f.Added) != 5 {
		t.Errorf("%d calls; chunks %+v, units %+v %+v, added %v", chats.Load(), f.Chunks, *f.Units["source"], *f.Units["extract"], f.Added)
	}
	e := f.Estimate
	if e.Rate != nil || e.PromptTokens != e.PromptBytes/bytesPerToken || e.PromptTokens == 0 || e.CompletionTokens != 0 || e.Seconds != 0 {
		t.Errorf("estimate without a rate: %+v", e)
	}
	if _, err := os.Stat(filepath.Join(rn.OutDir, StateDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plan made the state directory: %v", err)
	}
}

// TestRunner_BudgetStopsTheBuildBeforeExtraction: with a rate measured by
// a first build (5 tokens a chunk), three changed documents are
// estimated at 15 tokens, over a budget of 10: the build stops before
// any model call, names the budget and the figures, and publishes nothing.
func TestRunner_BudgetStopsTheBuildBeforeExtraction(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, dir := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	first, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		writeAged(t, filepath.Join(dir, "docs", docName(i)), plantText(i, "now paints the Gravel bike"))
	}
	calls := chats.Load()
	rn.MaxTokens = 10
	_, err = rn.Run(context.Background(), p)
	var be *BudgetError
	if !errors.As(err, &be) || !errors.Is(err, ErrBudget) || !be.Before || be.Estimate != 15 || be.Misses != 3 {
		t.Fatalf("err %v (%+v); want the plan's estimate 15 over the budget 10", err, be)
	}
	for _, part := range []string{"token budget", "15 tokens", "3 chunks", "budget of 10", "--max-tokens"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	if n := chats.Load() - calls; n != 0 {
		t.Errorf("%d model calls before the budget stopped the build", n)
	}
	if latest, _ := os.Readlink(filepath.Join(rn.OutDir, bundle.LatestLink)); latest != filepath.Base(first.Bundle) {
		t.Errorf("latest is %s, want the first build's %s", latest, filepath.Base(first.Bundle))
	}
	// The pipeline's own budget stops it the same way.
	rn.MaxTokens, p.Limits.MaxBuildTokens = 0, 10
	if _, err := rn.Run(context.Background(), p); !errors.Is(err, ErrBudget) {
		t.Errorf("limits.max_build_tokens 10: err %v, want ErrBudget", err)
	}
}

// TestRunner_BudgetStopsExtractionAndTheNextBuildResumes: the rate kept
// from earlier says 1 token a chunk (the model answered shorter then), so
// six new one-chunk documents are estimated at 6 tokens, under a budget of
// 12; the model now counts 5 a call, so the fourth chunk finds 15 counted
// and the build stops there: the three finished units stay in the state
// directory, no bundle is written, and the next build, without a budget,
// reuses them and asks only for the other three.
func TestRunner_BudgetStopsExtractionAndTheNextBuildResumes(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, _ := sixDocs(t)
	p.LLM.Concurrency = 1
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir(), MaxTokens: 12}
	rates := map[string]Rate{rateKey("m", c.Host()): {Model: "m", Host: c.Host(), Chunks: 10, CompletionTokens: 10}}
	if err := writeFileSync(filepath.Join(rn.CacheDir, RatesFile), rates); err != nil {
		t.Fatal(err)
	}
	_, err := rn.Run(context.Background(), p)
	var be *BudgetError
	if !errors.As(err, &be) || be.Before || be.Spent != 15 || be.Completion != 15 || be.Units != 3 {
		t.Fatalf("err %v (%+v); want 15 tokens counted, 3 units finished", err, be)
	}
	for _, part := range []string{"token budget", "15 tokens", "budget of 12", "3 extract units", "resumes"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	if got := outEntries(t, rn.OutDir); slices.ContainsFunc(got, func(n string) bool {
		return n == bundle.LatestLink || strings.HasPrefix(n, "20")
	}) {
		t.Errorf("a bundle is left after the budget stopped the build: %v", got)
	}
	calls := chats.Load()
	rn.MaxTokens = 0
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := chats.Load() - calls; n != 3 || *rep.Plan.Units["extract"] != (UnitCounts{Run: 3, Reused: 3}) {
		t.Errorf("the next build: %d calls, extract units %+v; want 3 calls, 3 run and 3 reused", n, *rep.Plan.Units["extract"])
	}
}
