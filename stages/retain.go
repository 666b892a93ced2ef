package stages

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kgforge/bundle"
)

// retain keeps the newest Runner.Keep bundles of the output directory
// (all when Keep is 0), then removes every segment that no kept bundle was
// made of, and the records of bundles that are gone. It runs after the new
// bundle is committed and latest points at it, under the output lock; what
// it cannot remove is a warning of the run report, not a failed build (the
// next build tries again).
func (b *build) retain() {
	if err := b.retainErr(); err != nil {
		b.log.Warn("retention", "err", err)
		b.rep.warn("retain", b.outDir, err.Error())
	}
}

func (b *build) retainErr() error {
	bundles, err := listBundles(b.outDir)
	if err != nil {
		return err
	}
	latest, _ := os.Readlink(filepath.Join(b.outDir, bundle.LatestLink))
	if k := b.rn.Keep; k > 0 && len(bundles) > k {
		var kept []string
		for _, id := range bundles[:len(bundles)-k] {
			if id == latest {
				kept = append(kept, id) // never the one latest points at
				continue
			}
			if err := retire(b.outDir, id); err != nil {
				return err
			}
			b.rep.Plan.Retired = append(b.rep.Plan.Retired, id)
			b.log.Info("bundle retired", "build_id", id, "keep", k)
		}
		bundles = append(kept, bundles[len(bundles)-k:]...)
	}
	n, err := b.st.collect(bundles)
	b.rep.Plan.SegmentsRemoved = n
	return err
}

// listBundles returns the build ids of the bundles in outDir, oldest
// first, by the time their manifests say they were made (build ids sort by
// the second only).
func listBundles(outDir string) ([]string, error) {
	es, err := os.ReadDir(outDir)
	if err != nil {
		return nil, fmt.Errorf("list bundles in %s: %w", outDir, err)
	}
	type made struct {
		id      string
		created time.Time
	}
	var all []made
	for _, e := range es {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(outDir, e.Name(), bundle.ManifestFile))
		if err != nil {
			continue // not a bundle
		}
		var m bundle.Manifest
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("list bundles in %s: %s: %w", outDir, e.Name(), err)
		}
		all = append(all, made{e.Name(), m.Created})
	}
	slices.SortFunc(all, func(a, b made) int { return cmp.Or(a.created.Compare(b.created), strings.Compare(a.id, b.id)) })
	ids := make([]string, len(all))
	for i, m := range all {
		ids[i] = m.id
	}
	return ids, nil
}

// retire removes one bundle: renamed out of sight first, so that a crash
// while removing never leaves a part of a bundle under its name (what is
// left is a stale temporary directory, which the next build removes).
func retire(outDir, id string) error {
	tmp := filepath.Join(outDir, ".tmp-retired-"+id)
	if err := os.Rename(filepath.Join(outDir, id), tmp); err != nil {
		return fmt.Errorf("retire bundle %s: %w", id, err)
	}
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("retire bundle %s: %w", id, err)
	}
	return nil
}

// collect removes the segments no bundle in keep was made of, and the
// records of bundles not in keep; it returns how many segments it removed.
// A bundle without a record (made before the state directory) protects
// nothing.
func (s *state) collect(keep []string) (int, error) {
	live := map[string]bool{}
	recs, err := dirEntries(filepath.Join(s.dir, buildsDir))
	if err != nil {
		return 0, fmt.Errorf("collect segments: %w", err)
	}
	for _, e := range recs {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if !slices.Contains(keep, id) {
			if err := os.Remove(filepath.Join(s.dir, buildsDir, e.Name())); err != nil {
				return 0, fmt.Errorf("collect segments: %w", err)
			}
			continue
		}
		r, _, err := s.readRecord(id)
		if err != nil {
			return 0, fmt.Errorf("collect segments: %w", err)
		}
		for _, a := range r.Segments {
			live[a] = true
		}
	}
	all, err := s.segs.List()
	if err != nil {
		return 0, fmt.Errorf("collect segments: %w", err)
	}
	n := 0
	var errs []error
	for _, addr := range all {
		if live[addr] {
			continue
		}
		if err := s.segs.Remove(addr); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if len(errs) > 0 {
		return n, fmt.Errorf("collect segments: %w", errors.Join(errs...))
	}
	return n, nil
}
