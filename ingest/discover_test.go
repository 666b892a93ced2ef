package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
)

// writeTree writes files (slash paths relative to dir) and returns dir.
func writeTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o600))
	}
	return dir
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { _ = root.Close() })
	return root
}

func rels(found []Found) []string {
	var out []string
	for _, f := range found {
		out = append(out, f.Rel)
	}
	return out
}

func TestDiscover_DoubleStarIsRecursive(t *testing.T) {
	dir := writeTree(t, t.TempDir(), map[string]string{
		"docs/top.md":              "# top",
		"docs/a/one.md":            "# one",
		"docs/a/b/c/three.md":      "# three levels deep",
		"docs/a/b/c/skip.txt":      "not markdown",
		"other/outside-docs.md":    "# not under docs",
		"docs/a/b/c/d/e/deeper.md": "# deeper",
	})
	found, err := Discover(openRoot(t, dir), []string{"docs/**/*.md"}, "")
	must(t, err)
	want := []string{"docs/a/b/c/d/e/deeper.md", "docs/a/b/c/three.md", "docs/a/one.md", "docs/top.md"}
	if got := rels(found); !slices.Equal(got, want) {
		t.Errorf("docs/**/*.md found %q, want %q", got, want)
	}
}

// TestDiscover_LeavesOutWhatThePipelineWrites: with the output and the cache
// inside the root, no pattern reaches a bundle, the latest link, a run
// report, a temporary directory or a cache entry, not even through a symlink
// that points into them.
func TestDiscover_LeavesOutWhatThePipelineWrites(t *testing.T) {
	dir := writeTree(t, t.TempDir(), map[string]string{
		"docs/a.json":                            `{"note": "a source"}`,
		"out/20260101T000000Z-abc/manifest.json": `{"format": "kgforge-bundle"}`,
		"out/20260101T000000Z-abc/merges.json":   `[]`,
		"out/reports/20260101T000000Z-abc.json":  `{"status": "ok"}`,
		"out/.tmp-20260102T000000Z-def-1/x.json": `{}`,
		"cache/extract/ab/cd.json":               `{}`,
	})
	must(t, os.Symlink("20260101T000000Z-abc", filepath.Join(dir, "out", "latest")))
	must(t, os.Symlink(filepath.Join("..", "out", "latest", "manifest.json"), filepath.Join(dir, "docs", "manifest.json")))
	must(t, os.Symlink(filepath.Join("..", "out", "reports"), filepath.Join(dir, "docs", "reports")))
	root := openRoot(t, dir)
	exclude := []string{filepath.Join(dir, "out"), filepath.Join(dir, "cache")}
	for _, p := range []string{"**/*.json", "*/*.json", "docs/*", "{docs,out}/**"} {
		found, err := Discover(root, []string{p}, "", exclude...)
		must(t, err)
		if got := rels(found); !slices.Equal(got, []string{"docs/a.json"}) {
			t.Errorf("%s found %q, want only docs/a.json", p, got)
		}
	}
	for _, p := range []string{"*/*/*.json", "out/latest/*.json", "docs/reports/*.json", "out/**/*.json", "docs/manifest.json"} {
		_, err := Discover(root, []string{p}, "", exclude...)
		if err == nil || !strings.Contains(err.Error(), "in the pipeline's own output or cache") {
			t.Errorf("%s matches only what the pipeline wrote: err = %v, want one that says so", p, err)
		}
	}
	// Relative spellings of the output and the cache name the same
	// directories.
	t.Chdir(dir)
	found, err := Discover(root, []string{"**/*.json"}, "", "out", "./cache/")
	must(t, err)
	if got := rels(found); !slices.Equal(got, []string{"docs/a.json"}) {
		t.Errorf("relative exclusions: found %q", got)
	}
	// An output above the root writes nothing under it; an output that is
	// the root would leave no source.
	if found, err := Discover(root, []string{"docs/a.json"}, "", filepath.Dir(dir)); err != nil || len(found) != 1 {
		t.Errorf("output above the root: found %q, err %v; want docs/a.json", rels(found), err)
	}
	if _, err := Discover(root, []string{"docs/a.json"}, "", dir+"/."); err == nil || !strings.Contains(err.Error(), "also a directory the build writes to") {
		t.Errorf("output that is the root: err = %v", err)
	}
	// Without exclusions (the output elsewhere) the same files are sources.
	found, err = Discover(root, []string{"out/*/*.json"}, "")
	must(t, err)
	if len(found) != 4 {
		t.Errorf("no exclusions: found %q", rels(found))
	}
}

// TestOpen_BadPathsFailAlone: discovery lists a symlink out of the root, a
// dangling one, a loop, a file deleted after listing and a file of unknown
// kind, instead of failing the build; Open rejects each alone, naming it and
// the reason.
func TestOpen_BadPathsFailAlone(t *testing.T) {
	outside := writeTree(t, t.TempDir(), map[string]string{"secret.txt": "secret", "dir/s.md": "# s"})
	dir := writeTree(t, t.TempDir(), map[string]string{"docs/good.md": "# good\ntext", "docs/gone.md": "# soon gone", "docs/NOTES": "no extension"})
	for link, target := range map[string]string{
		"docs/escape.md":     filepath.Join(outside, "secret.txt"),
		"docs/escape-rel.md": filepath.Join("..", "..", filepath.Base(outside), "secret.txt"),
		"docs/dangling.md":   "nothing-here.md",
		"docs/loop.md":       "loop.md",
		"docs/outdir":        filepath.Join(outside, "dir"),
	} {
		must(t, os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))))
	}
	root := openRoot(t, dir)
	found, err := Discover(root, []string{"docs/*.md", "docs/outdir/s.md", "docs/NOTES"}, "")
	must(t, err)
	must(t, os.Remove(filepath.Join(dir, "docs", "gone.md"))) // deleted between listing and reading
	want := map[string]string{
		"docs/dangling.md":   "a symlink to nothing",
		"docs/escape.md":     "a symlink that leads outside the pipeline root",
		"docs/escape-rel.md": "a symlink that leads outside the pipeline root",
		"docs/gone.md":       "the file is gone",
		"docs/loop.md":       "a loop of symlinks",
		"docs/outdir/s.md":   "a symlink that leads outside the pipeline root",
		"docs/NOTES":         `unknown kind for extension "" (set kind in the pipeline file)`,
	}
	if got := rels(found); len(got) != len(want)+1 {
		t.Fatalf("found %q, want the good file and every bad path", got)
	}
	for _, f := range found {
		o, err := Open(root, dir, f, Limits{})
		if f.Rel == "docs/good.md" {
			if err != nil || string(o.Data) != "# good\ntext" {
				t.Errorf("good file: %v", err)
			}
			continue
		}
		if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "source "+f.Rel+": ") || !strings.Contains(err.Error(), want[f.Rel]) {
			t.Errorf("%s: err = %v, want a rejection naming it and saying %q", f.Rel, err, want[f.Rel])
		}
		if strings.Contains(string(o.Data), "secret") {
			t.Errorf("%s: read the file outside the root", f.Rel)
		}
	}
}
