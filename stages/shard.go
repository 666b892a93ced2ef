package stages

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"kgforge/ingest"
	"kgforge/kg"
)

// A scaled-out build (docs/scale.md) is N shard runs and one reduce over a
// shared output directory. A shard runs the source units it needs and the
// extract units whose chunks hash to it, writes their segments, and stops:
// no bundle, no load. The reduce extracts nothing: it finds every extract
// unit's segment stored, or fails naming those it does not, and runs the
// global steps. A plain build that finds every segment stored does what the
// reduce does.
//
// Which shard runs what depends on the chunks alone (their ids hash their
// source and text), never on the model, prompt or code, so any shard can be
// run again, by any process, and does the same units.

// ErrUnitsMissing means a reduce found extract units with no segment:
// some shard has not run, or failed, or ran other inputs.
var ErrUnitsMissing = errors.New("extract units have no segment")

// MissingError lists the extract units a reduce found with no segment. It
// wraps ErrUnitsMissing.
type MissingError struct {
	Units []string // "SOURCE extract unit K of M (first chunk ID)", in plan order per source
}

func (e *MissingError) Error() string {
	const show = 10
	list := e.Units[:min(len(e.Units), show)]
	more := ""
	if len(e.Units) > show {
		more = fmt.Sprintf("; and %d more", len(e.Units)-show)
	}
	return fmt.Sprintf("reduce: %d %v (run their shards first, or a plain build): %s%s",
		len(e.Units), ErrUnitsMissing, strings.Join(list, "; "), more)
}

func (e *MissingError) Unwrap() error { return ErrUnitsMissing }

// scaleOut is what a shard or a reduce run notes while its units run.
type scaleOut struct {
	mu      sync.Mutex
	missing []string // a reduce's extract units with no segment
}

// checkScale refuses a Shard or Reduce that makes no sense.
func (rn *Runner) checkScale() error {
	s := rn.Shard
	switch {
	case s.N < 0 || (s.N > 0 && (s.I < 0 || s.I >= s.N)):
		return fmt.Errorf("shard %s: want I/N with N at least 1 and 0 <= I < N", s)
	case s.N > 0 && rn.Reduce:
		return fmt.Errorf("shard %s and reduce: a run is one shard or the reduce, not both", s)
	}
	return nil
}

// hashShard maps a key to one of n shards.
func hashShard(n int, parts ...string) int {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return int(binary.BigEndian.Uint64(h.Sum(nil)) % uint64(n))
}

// mine reports whether this run extracts the unit bm: every run does, but
// a shard only those whose chunk ids hash to it.
func (b *build) mine(bm batchMeta) bool {
	if !b.owns(bm) {
		b.count(func(p *Plan) { p.OtherShards++ })
		return false
	}
	return true
}

// owns reports whether this run's shard owns the extract unit bm (every
// run that is not a shard owns every unit).
func (b *build) owns(bm batchMeta) bool {
	s := b.rn.Shard
	return s.N == 0 || hashShard(s.N, bm.Chunks...) == s.I
}

// runsSource reports whether this run runs (or reuses) the unit of f. A
// shard reads every document, since the extract units of one document are
// spread over all shards by their chunks, but only the table files that
// hash to it (no extract unit needs them), and no database: a database's
// unit has an address of one build alone, so only the reduce's counts.
func (b *build) runsSource(f ingest.Found) bool {
	s := b.rn.Shard
	switch {
	case s.N == 0 || !f.Kind.IsTable():
		return true
	case f.Kind == kg.KindPostgres:
		return false
	}
	return hashShard(s.N, f.Rel) == s.I
}

// firstSource is where this run starts in the plan's sources: shards start
// at different places, so that shards started together cut different
// documents first and find the others' segments stored when they get there.
func (b *build) firstSource() int {
	if s := b.rn.Shard; s.N > 0 {
		return s.I * len(b.found) / s.N
	}
	return 0
}

// runsExtract decides what this run does with the extract unit at addr,
// the k-th of u's, that it extracts (mine): reuse a stored segment, run
// it, or, in a reduce, note it missing.
func (b *build) runsExtract(u *sourceUnit, k int, addr string) bool {
	bm := u.meta.Batches[k]
	switch {
	case b.st.has(addr):
		b.count(func(p *Plan) { p.Units["extract"].Reused++; p.ChunksReused += len(bm.Chunks) })
		return false
	case b.rn.Reduce:
		b.sc.mu.Lock()
		defer b.sc.mu.Unlock()
		b.sc.missing = append(b.sc.missing, fmt.Sprintf("%s extract unit %d of %d (first chunk %s)", u.found.Rel, k+1, len(u.meta.Batches), bm.Chunks[0]))
		return false
	}
	b.count(func(p *Plan) { p.Units["extract"].Run++ })
	return true
}

// missingErr is the reduce's failure when extract units have no segment.
func (b *build) missingErr() error {
	b.sc.mu.Lock()
	defer b.sc.mu.Unlock()
	if len(b.sc.missing) == 0 {
		return nil
	}
	return &MissingError{Units: b.sc.missing}
}

// finishShard ends a shard run: its report counts the sources it ran or
// reused, the chunks of its extract units and the rejections they hold,
// and is written beside the bundles. No bundle is made.
func (b *build) finishShard(units []sourceUnit) (*Report, error) {
	rep := b.rep
	for i := range units {
		u := &units[i]
		if u.found.Rel == "" {
			continue // another shard's table source
		}
		if reason := cmp.Or(u.reject, u.meta.Reject); reason != "" {
			rep.reject("ingest", u.found.Rel, reason)
			continue
		}
		rep.Sources++
		rep.Tables += len(u.meta.Tables)
		for _, addr := range u.extract { // a shard's own units only
			var m extractMeta
			if err := b.st.meta(addr, &m); err != nil {
				return rep, err
			}
			rep.Chunks += len(m.Chunks)
			for _, r := range m.Rejected {
				rep.reject(r.Stage, r.Item, r.Reason)
			}
		}
	}
	b.usage()
	rep.Status = StatusOK
	if len(rep.Rejected) > 0 {
		rep.Status = StatusPartial
	}
	rep.Finished = b.now()
	pl := rep.Plan
	b.log.Info("shard finished", "shard", b.rn.Shard.String(), "build_id", rep.BuildID, "status", rep.Status,
		"extract_run", pl.Units["extract"].Run, "extract_reused", pl.Units["extract"].Reused, "extract_other_shards", pl.OtherShards)
	return rep, writeReport(b.outDir, rep)
}

// ShardIndexEnv is the variable that --shard auto/N reads its index from:
// the one a Kubernetes Indexed Job sets in each of its pods.
const ShardIndexEnv = "JOB_COMPLETION_INDEX"

// ParseShard reads a shard as --shard takes it: "I/N" with 0 <= I < N, or
// "auto/N", whose I is the value of ShardIndexEnv as getenv returns it.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want I/N (shard I of N, from 0) or auto/N (I from $%s)", s, ShardIndexEnv)
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("shard %q: N must be a whole number, at least 1", s)
	}
	if is == "auto" {
		if is = getenv(ShardIndexEnv); is == "" {
			return Shard{}, fmt.Errorf("shard %q: $%s is not set (it is in the pods of a Kubernetes Indexed Job)", s, ShardIndexEnv)
		}
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: index %q must be a whole number from 0 to %d", s, is, n-1)
	}
	return Shard{I: i, N: n}, nil
}
