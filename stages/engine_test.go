package stages

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/pipelines"
)

// mixedDocs writes a pipeline over four one-chunk documents and one CSV
// table, every file dated an hour ago (so the file index may vouch for
// them), and returns it with its root.
func mixedDocs(t *testing.T) (*pipelines.Pipeline, string) {
	t.Helper()
	dir := t.TempDir()
	for i := range 4 {
		writeAged(t, filepath.Join(dir, "docs", docName(i)), plantText(i, "assembles the Trail bike"))
	}
	writeAged(t, filepath.Join(dir, "data", "parts.csv"), "part_id,name\nP1,Frame\nP2,Wheel\n")
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: mixed\nsources:\n  - {name: docs, paths: [\"docs/*.md\"]}\n  - {name: tables, paths: [\"data/*.csv\"]}\nllm: {chat_model: m}\nresolve: {embeddings: false}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	return p, dir
}

func docName(i int) string { return "d" + string(rune('0'+i)) + ".md" }

func plantText(i int, what string) string {
	return "# Plant " + string(rune('0'+i)) + "\nThe plant number " + string(rune('0'+i)) + " " + what + " for Velora Cycles.\n"
}

// writeAged writes body to path and dates it an hour ago.
func writeAged(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

func manifestOf(t *testing.T, dir string) bundle.Manifest {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }() // read only
	return b.Manifest
}

// chunkField reads one field of every chunk of the bundle in dir.
func chunkField(t *testing.T, dir string, field func(kg.Chunk) string) []string {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }() // read only
	var out []string
	if err := b.Chunks(context.Background(), func(c kg.Chunk) error {
		out = append(out, field(c))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunner_UnchangedBuildReadsNoSourceAndAsksNothing runs a build twice
// over the same files: the second opens no source (documents nor table),
// runs no unit, sends no chunk to the model, and makes the same bundle.
func TestRunner_UnchangedBuildReadsNoSourceAndAsksNothing(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, _ := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	first, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Plan; got.SourcesRead != 5 || got.Units["source"].Run != 5 || got.Units["extract"].Run != 4 || len(got.Added) != 5 {
		t.Fatalf("first build plan: %+v", got)
	}
	calls := chats.Load()
	again, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	pl := again.Plan
	if pl.SourcesRead != 0 || pl.Units["source"].Run != 0 || pl.Units["source"].Reused != 5 || pl.Units["extract"].Run != 0 || pl.ChunksReused != 4 {
		t.Errorf("unchanged build: read %d sources, units %+v %+v, %d chunks reused; want 0 read, all 5+4 units reused",
			pl.SourcesRead, *pl.Units["source"], *pl.Units["extract"], pl.ChunksReused)
	}
	if n := chats.Load() - calls; n != 0 || again.Extract.Chunks != 0 {
		t.Errorf("unchanged build: %d model calls, %d chunks extracted; want none", n, again.Extract.Chunks)
	}
	if len(pl.Unchanged) != 5 || len(pl.Added)+len(pl.Changed)+len(pl.Removed) != 0 {
		t.Errorf("unchanged build: sources %+v", pl)
	}
	m1, m2 := manifestOf(t, first.Bundle), manifestOf(t, again.Bundle)
	if d := bundle.Compare(m1, m2); len(d) != 0 {
		t.Errorf("the unchanged build's bundle differs: %+v", d)
	}
	if !maps.Equal(m1.Prompts, m2.Prompts) || m1.Models["chat"] != m2.Models["chat"] {
		t.Errorf("manifest prompts %v and model %v, then %v and %v", m1.Prompts, m1.Models["chat"], m2.Prompts, m2.Models["chat"])
	}
	if again.Tables != 1 || manifestOf(t, again.Bundle).Counts["rows:parts"] != 2 {
		t.Errorf("the reused table: %d tables, counts %v", again.Tables, manifestOf(t, again.Bundle).Counts)
	}
}

// TestRunner_TrustsTheFileIndexForSizeAndTime shows what "not read" means:
// a file rewritten with its size and time restored is not read again (as
// make and git's index would not), so its old content stays in the bundle.
func TestRunner_TrustsTheFileIndexForSizeAndTime(t *testing.T) {
	c, _ := fakeOllama(t, false)
	p, dir := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	if _, err := rn.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "docs", docName(2))
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	writeAged(t, path, strings.Replace(plantText(2, "assembles the Trail bike"), "Trail", "Gravl", 1))
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Plan.SourcesRead != 0 {
		t.Errorf("read %d sources; the index vouched for all", rep.Plan.SourcesRead)
	}
}

// TestRunner_ChangedAddedAndRemovedSources changes one document, deletes
// one and adds one: only the changed and the new are read and asked about,
// the report names each, and the deleted one's chunks leave the bundle.
func TestRunner_ChangedAddedAndRemovedSources(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, dir := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	if _, err := rn.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	writeAged(t, filepath.Join(dir, "docs", docName(1)), plantText(1, "now paints the Gravel bike"))
	if err := os.Remove(filepath.Join(dir, "docs", docName(3))); err != nil {
		t.Fatal(err)
	}
	writeAged(t, filepath.Join(dir, "docs", docName(5)), plantText(5, "tests the City bike"))
	calls := chats.Load()
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	pl := rep.Plan
	if !slices.Equal(pl.Changed, []string{"docs/d1.md"}) || !slices.Equal(pl.Added, []string{"docs/d5.md"}) ||
		!slices.Equal(pl.Removed, []string{"docs/d3.md"}) || len(pl.Unchanged) != 3 {
		t.Errorf("sources: changed %v added %v removed %v unchanged %v", pl.Changed, pl.Added, pl.Removed, pl.Unchanged)
	}
	if n := chats.Load() - calls; n != 2 || pl.SourcesRead != 2 || pl.ChunksReused != 2 {
		t.Errorf("%d model calls, %d sources read, %d chunks reused; want 2, 2 and 2", n, pl.SourcesRead, pl.ChunksReused)
	}
	gone := kg.ID("source", "docs/d3.md")
	if slices.Contains(chunkField(t, rep.Bundle, func(c kg.Chunk) string { return c.SourceID }), gone) {
		t.Errorf("the deleted document's chunks are still in the bundle")
	}
}

// TestState_SegmentIsWholeOrAbsent fails a segment's writer half way: no
// segment is stored, and what a killed build left under a temporary name
// is removed when the state directory is next opened.
func TestState_SegmentIsWholeOrAbsent(t *testing.T) {
	out := t.TempDir()
	st, err := openState(out, true)
	if err != nil {
		t.Fatal(err)
	}
	addr := address("test", "inputs")
	err = st.put(addr, func(dir string) (any, error) {
		if err := os.WriteFile(filepath.Join(dir, "half"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return nil, os.ErrDeadlineExceeded
	})
	if err == nil || st.has(addr) {
		t.Fatalf("a failed writer: err %v, stored %v", err, st.has(addr))
	}
	if err := os.Mkdir(filepath.Join(out, StateDir, segmentsDir, tmpPrefix+"killed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := openState(out, true); err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(filepath.Join(out, StateDir, segmentsDir))
	for _, e := range es {
		t.Errorf("left in the segments directory: %s", e.Name())
	}
	if err := st.put(addr, func(string) (any, error) { return map[string]int{"n": 1}, nil }); err != nil || !st.has(addr) {
		t.Errorf("a whole segment: err %v, stored %v", err, st.has(addr))
	}
}

// TestAddress_DependsOnEveryInput: two units differing in any input have
// different addresses, and the same inputs the same address.
func TestAddress_DependsOnEveryInput(t *testing.T) {
	base := address("source", "docs/a.md", "sha1", map[string]int{"size": 512})
	for name, other := range map[string]string{
		"kind":    address("extract", "docs/a.md", "sha1", map[string]int{"size": 512}),
		"uri":     address("source", "docs/b.md", "sha1", map[string]int{"size": 512}),
		"digest":  address("source", "docs/a.md", "sha2", map[string]int{"size": 512}),
		"options": address("source", "docs/a.md", "sha1", map[string]int{"size": 256}),
		"split":   address("source", "docs/a.md", "sha1", map[string]int{"size": 512}, nil),
	} {
		if other == base {
			t.Errorf("%s: same address", name)
		}
	}
	if address("source", "docs/a.md", "sha1", map[string]int{"size": 512}) != base {
		t.Error("the same inputs gave another address")
	}
}

// TestRunner_TouchedFileKeepsItsNewTime touches a document (same content,
// a new time): the next build reads it and reuses its segment, the one
// after reads nothing, and both bundles are the bundle a build from
// nothing makes (whose sources say the file's new time).
func TestRunner_TouchedFileKeepsItsNewTime(t *testing.T) {
	c, _ := fakeOllama(t, false)
	p, dir := mixedDocs(t)
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}
	if _, err := rn.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "docs", docName(0))
	touched := time.Now().Add(-30 * time.Minute).Truncate(time.Second)
	if err := os.Chtimes(path, touched, touched); err != nil {
		t.Fatal(err)
	}
	var bundles []string
	for i, wantRead := range []int{1, 0} {
		rep, err := rn.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Plan.SourcesRead != wantRead || rep.Plan.Units["source"].Run != 0 {
			t.Errorf("build %d after the touch: %d sources read, %d units run; want %d and 0", i, rep.Plan.SourcesRead, rep.Plan.Units["source"].Run, wantRead)
		}
		bundles = append(bundles, rep.Bundle)
	}
	fresh, err := (&Runner{LLM: c, CacheDir: rn.CacheDir, OutDir: t.TempDir()}).Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range bundles {
		if d := bundle.Compare(manifestOf(t, fresh.Bundle), manifestOf(t, dir)); len(d) != 0 {
			t.Errorf("a build after the touch differs from a build from nothing: %+v", d)
		}
	}
	if d := bundle.Compare(manifestOf(t, bundles[0]), manifestOf(t, bundles[1])); len(d) != 0 {
		t.Errorf("the two builds after the touch differ: %+v", d)
	}
}

// TestRunner_FileIndexUsesTheWallClock runs with Runner.Now fixed in the
// past (a report clock, as tests and replays set it): the file index still
// dates its digests by the clock file times come from, and vouches for
// unchanged files on the next build.
func TestRunner_FileIndexUsesTheWallClock(t *testing.T) {
	c, _ := fakeOllama(t, false)
	p, _ := mixedDocs(t)
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir(), Now: func() time.Time {
		n++ // build ids differ by their second
		return past.Add(time.Duration(n) * time.Second)
	}}
	if _, err := rn.Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Plan.SourcesRead != 0 {
		t.Errorf("with a clock in the past: %d sources read again, want 0", rep.Plan.SourcesRead)
	}
}
