package stages

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
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

// MissingError lists the extract units a reduce found with no segment,
// and why. It wraps ErrUnitsMissing.
type MissingError struct {
	Units []string // "SOURCE extract unit K of M (first chunk ID)", in plan order per source
	// Why says, for each of Units, why it has no segment: its segment did
	// not verify, segments of its chunks were made with other inputs
	// (another model, prompt version, options or kgforge), or no segment
	// of its chunks is stored at all.
	Why []string
}

func (e *MissingError) Error() string {
	const show = 10
	list := e.Units[:min(len(e.Units), show)]
	more := ""
	if len(e.Units) > show {
		more = fmt.Sprintf("; and %d more", len(e.Units)-show)
	}
	var why []string
	count := map[string]int{}
	for _, w := range e.Why {
		if count[w]++; count[w] == 1 {
			why = append(why, w)
		}
	}
	for i, w := range why {
		why[i] = fmt.Sprintf("%d %s", count[w], w)
	}
	reasons := ""
	if len(why) > 0 {
		reasons = strings.Join(why, "; ") + ": "
	}
	return fmt.Sprintf("reduce: %d %v (run their shards first, or a plain build): %s%s%s",
		len(e.Units), ErrUnitsMissing, reasons, strings.Join(list, "; "), more)
}

func (e *MissingError) Unwrap() error { return ErrUnitsMissing }

// scaleOut is what a shard or a reduce run notes while its units run.
type scaleOut struct {
	mu      sync.Mutex
	missing []missingUnit // a reduce's extract units with no segment
}

// missingUnit is an extract unit a reduce found with no segment.
type missingUnit struct {
	name   string
	chunks []string
	made   *extractInputs // this run's inputs
	why    string         // when known where it was found missing
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
// the k-th of u's, that it extracts (mine): reuse a stored segment that
// verifies, run it, or, in a reduce, note it missing. chunks returns the
// unit's chunks by id.
func (b *build) runsExtract(ctx context.Context, u *sourceUnit, k int, addr string, made *extractInputs, chunks func() (map[string]kg.Chunk, error)) (bool, error) {
	bm := u.meta.Batches[k]
	var bad error
	if b.st.has(addr) {
		why, err := b.reuseExtract(ctx, u, k, addr, chunks)
		if err != nil {
			return false, err
		}
		if why == nil {
			b.count(func(p *Plan) { p.Units["extract"].Reused++; p.ChunksReused += len(bm.Chunks) })
			return false, nil
		}
		bad = fmt.Errorf("segment %s: %w", addr, why)
	}
	if b.rn.Reduce {
		mu := missingUnit{name: fmt.Sprintf("%s (first chunk %s)", extractUnitName(u, k), bm.Chunks[0]), chunks: bm.Chunks, made: made}
		if bad != nil {
			mu.why = "with a segment that did not verify and was removed"
			mu.name = fmt.Sprintf("%s (first chunk %s; %v)", extractUnitName(u, k), bm.Chunks[0], bad)
		}
		b.sc.mu.Lock()
		defer b.sc.mu.Unlock()
		b.sc.missing = append(b.sc.missing, mu)
		return false, nil
	}
	b.count(func(p *Plan) { p.Units["extract"].Run++ })
	return true, nil
}

// missingErr is the reduce's failure when extract units have no segment.
func (b *build) missingErr() error {
	b.sc.mu.Lock()
	defer b.sc.mu.Unlock()
	if len(b.sc.missing) == 0 {
		return nil
	}
	others := b.st.madeOf()
	e := &MissingError{}
	for _, m := range b.sc.missing {
		e.Units = append(e.Units, m.name)
		e.Why = append(e.Why, cmp.Or(m.why, whyMissing(m, others[strings.Join(m.chunks, " ")])))
	}
	return e
}

// madeOf reads what every stored extract segment was made with, by its
// chunks (their ids joined by spaces); a segment it cannot read is left
// out (it only explains what is missing).
func (s *state) madeOf() map[string][]*extractInputs {
	out := map[string][]*extractInputs{}
	all, err := s.segs.List()
	if err != nil {
		return out
	}
	for _, addr := range all {
		var m extractMeta
		if s.meta(addr, &m) != nil || len(m.Chunks) == 0 {
			continue
		}
		key := strings.Join(m.Chunks, " ")
		out[key] = append(out[key], m.Made)
	}
	return out
}

// whyMissing says why an extract unit has no segment, given what the
// stored segments of the same chunks were made with.
func whyMissing(m missingUnit, others []*extractInputs) string {
	if len(others) == 0 {
		return "with no segment of their chunks at all (their shard has not run, or failed before them)"
	}
	slices.SortFunc(others, func(x, y *extractInputs) int {
		if x == nil || y == nil {
			return cmp.Compare(boolInt(x != nil), boolInt(y != nil))
		}
		return cmp.Or(strings.Compare(x.Model, y.Model), strings.Compare(x.ModelDigest, y.ModelDigest), strings.Compare(x.PromptVersion, y.PromptVersion))
	})
	o, w := others[len(others)-1], m.made
	switch {
	case o == nil || w == nil:
		return "with segments of their chunks made by an older kgforge, which does not record its inputs"
	case o.Model != w.Model || o.ModelDigest != w.ModelDigest:
		return fmt.Sprintf("with segments made by another chat model: %s@%s, this run's is %s@%s", o.Model, o.ModelDigest, w.Model, w.ModelDigest)
	case o.PromptVersion != w.PromptVersion:
		return fmt.Sprintf("with segments made with another prompt version: %s, this run's is %s", o.PromptVersion, w.PromptVersion)
	case o.Options != w.Options:
		return "with segments made with other extraction options (the pipeline's llm or extract settings changed)"
	case o.Code != w.Code:
		return fmt.Sprintf("with segments made by another kgforge: %s, this run is %s", o.Code, w.Code)
	}
	return "with segments of their chunks made with the same inputs under another address"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
