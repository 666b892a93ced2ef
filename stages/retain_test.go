package stages

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kgforge/bundle"
)

// segmentsOnDisk lists the addresses of the segments stored under out.
func segmentsOnDisk(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	shards, _ := os.ReadDir(filepath.Join(out, StateDir, segmentsDir))
	for _, sh := range shards {
		segs, _ := os.ReadDir(filepath.Join(out, StateDir, segmentsDir, sh.Name()))
		for _, s := range segs {
			got = append(got, s.Name())
		}
	}
	slices.Sort(got)
	return got
}

// TestRunner_KeepsTheLastBundlesAndCollectsTheirSegments builds three
// times with Keep 2, changing a document each time: the oldest bundle is
// retired, latest points at the newest, and the segments left are exactly
// those the two kept bundles were made of.
func TestRunner_KeepsTheLastBundlesAndCollectsTheirSegments(t *testing.T) {
	c, _ := fakeOllama(t, false)
	p, dir := mixedDocs(t)
	out := t.TempDir()
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out, Keep: 2}
	var reps []*Report
	for i, what := range []string{"", "now paints the Gravel bike", "now tests the City bike"} {
		if what != "" {
			writeAged(t, filepath.Join(dir, "docs", docName(1)), plantText(1, what))
		}
		rep, err := rn.Run(context.Background(), p)
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		reps = append(reps, rep)
	}
	last := reps[2]
	if !slices.Equal(last.Plan.Retired, []string{reps[0].BuildID}) {
		t.Errorf("retired %v, want the first build %s", last.Plan.Retired, reps[0].BuildID)
	}
	ids, err := listBundles(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{reps[1].BuildID, reps[2].BuildID}) {
		t.Errorf("bundles %v", ids)
	}
	if l, _ := os.Readlink(filepath.Join(out, bundle.LatestLink)); l != last.BuildID {
		t.Errorf("latest -> %s, want %s", l, last.BuildID)
	}
	st := &state{dir: filepath.Join(out, StateDir)}
	var want []string
	for _, r := range reps[1:] {
		rec, ok, err := st.readRecord(r.BuildID)
		if err != nil || !ok {
			t.Fatalf("record of %s: %v %v", r.BuildID, ok, err)
		}
		want = append(want, rec.Segments...)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if got := segmentsOnDisk(t, out); !slices.Equal(got, want) {
		t.Errorf("segments on disk:\n%v\nwant those of the kept bundles:\n%v", got, want)
	}
	if _, ok, _ := st.readRecord(reps[0].BuildID); ok {
		t.Error("the retired bundle's record is still there")
	}
	if last.Plan.SegmentsRemoved != 2 { // the first version of d1: its source and extract units
		t.Errorf("%d segments removed, want 2", last.Plan.SegmentsRemoved)
	}
}
