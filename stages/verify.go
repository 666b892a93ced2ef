package stages

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/extract"
	"kgforge/kg"
)

// A segment is checked before a build uses it, since whoever can write
// the state directory (a shard on a shared volume, a full disk, a killed
// copy) can change it after its unit wrote it:
//
//   - its digests: sumsFile lists the SHA-256 of every other file of the
//     segment, and a segment with a file unlisted, missing or different is
//     not sound. This catches damage, and changes made without rewriting
//     the digests; the digests lie beside the files, so a writer of the
//     state directory can rewrite them too;
//   - its unit file: a source unit's must name the source the pipeline
//     found, with the digest the unit's address holds, and chunks whose ids
//     hash their source and text and cut into its batches; an extract
//     unit's must name the unit's chunks;
//   - its facts: every triplet and entity of an extract unit is grounded
//     again in its chunk's text (extract.Verify), as the model's replies
//     are, so that a reused fact is held to what a fresh one is.
//
// A segment that fails any of these is removed, with a warning that names
// it, and its unit run again (from the LLM cache, so without model calls
// for the replies it holds); a reduce, which runs no unit, names it among
// its missing units. docs/security.md says what this does not stop.

// sumsFile lists the SHA-256 of every other file of a segment, a line
// "HEX  NAME" each by name, as sha256sum writes and checks them. It is
// written last, before the segment is renamed into place.
const sumsFile = "SHA256SUMS"

// writeSums writes dir's sumsFile, synced.
func writeSums(dir string) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range es {
		if e.Name() == sumsFile {
			continue
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", e.Name())
		}
		sum, err := fileSHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, e.Name())
	}
	f, err := os.Create(filepath.Join(dir, sumsFile))
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	return errors.Join(err, f.Sync(), f.Close())
}

// checkSums reports how the files of dir differ from its sumsFile: a file
// unlisted, listed but missing, not a regular file, or with another digest.
func checkSums(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, sumsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("it has no %s (written by an older kgforge, or not whole)", sumsFile)
	}
	if err != nil {
		return err
	}
	want := map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size ||
			name == "" || name == sumsFile || filepath.Base(name) != name || name == ".." || want[name] != "" {
			return fmt.Errorf("%s line %d: want a SHA-256 in hex, two spaces and the name of another file of the segment, once", sumsFile, i+1)
		}
		want[name] = sum
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		switch {
		case e.Name() == sumsFile:
		case want[e.Name()] == "":
			return fmt.Errorf("%s is not listed in %s", e.Name(), sumsFile)
		case !e.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file", e.Name())
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, err := fileSHA256(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s, listed in %s, is missing", name, sumsFile)
		}
		if err != nil {
			return err
		}
		if got != want[name] {
			return fmt.Errorf("%s has SHA-256 %s, %s says %s", name, got[:12], sumsFile, want[name][:12])
		}
	}
	return nil
}

func fileSHA256(path string) (_ string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sound checks the digests of the segment at addr, once per build: a
// segment that was sound stays so for the build (the other checks run
// again where its content is used).
func (s *state) sound(addr string) error {
	s.mu.Lock()
	ok := s.verified[addr]
	s.mu.Unlock()
	if ok {
		return nil
	}
	dir, err := s.segment(addr)
	if err != nil {
		return err
	}
	if err := checkSums(dir); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verified == nil {
		s.verified = map[string]bool{}
	}
	s.verified[addr] = true
	return nil
}

// usable reports whether a segment is stored at addr and its digests
// hold: what a plan, which removes nothing, takes for reused.
func (s *state) usable(addr string) bool { return s.has(addr) && s.sound(addr) == nil }

// drop removes the segment at addr, which did not verify, with a warning
// naming it and its unit.
func (b *build) drop(addr, unit string, why error) error {
	b.log.Warn("segment did not verify, removed", "segment", addr, "unit", unit, "err", why)
	b.rep.warn("state", unit, fmt.Sprintf("segment %s did not verify and was removed, its unit is run again: %v", addr, why))
	b.st.mu.Lock()
	delete(b.st.verified, addr)
	b.st.mu.Unlock()
	return b.st.segs.Remove(addr)
}

// reuseSource reads the stored segment of u (at u.addr, for a source
// whose content has digest sha) into u, checked: it returns false, having
// removed the segment, when it does not verify. A document's chunks are
// read, and kept in u for its extract units.
func (b *build) reuseSource(ctx context.Context, u *sourceUnit, sha string) (bool, error) {
	err := b.checkSource(ctx, u, sha)
	if err == nil {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	u.meta, u.chunks = sourceMeta{}, nil
	return false, b.drop(u.addr, "source "+u.found.Rel, err)
}

func (b *build) checkSource(ctx context.Context, u *sourceUnit, sha string) error {
	if err := b.st.sound(u.addr); err != nil {
		return err
	}
	if err := b.st.meta(u.addr, &u.meta); err != nil {
		return err
	}
	m, f := &u.meta, u.found
	src := m.Source
	switch {
	case src.ID != kg.ID("source", f.Rel) || src.URI != f.Rel || src.Kind != f.Kind:
		return fmt.Errorf("%s names source %q (%s, id %s), not %s", unitFile, src.URI, src.Kind, src.ID, f.Rel)
	case src.SHA256 != sha:
		return fmt.Errorf("%s gives the source's SHA-256 as %q, its address %q", unitFile, src.SHA256, sha)
	case m.Reject != "" && (len(m.Batches) > 0 || len(m.Tables) > 0 || len(m.Wants) > 0):
		return fmt.Errorf("%s rejects the source and still lists its chunks or tables", unitFile)
	case src.Kind.IsTable() && len(m.Batches) > 0, !src.Kind.IsTable() && (len(m.Tables) > 0 || len(m.Wants) > 0):
		return fmt.Errorf("%s lists chunks of a table source or tables of a document", unitFile)
	}
	for _, t := range m.Tables {
		if t.Name == "" || t.SourceID != src.ID || m.Wants[t.Name] == "" {
			return fmt.Errorf("%s: table %q is not one of the source's", unitFile, t.Name)
		}
	}
	if src.Kind.IsTable() || len(m.Batches) == 0 {
		return nil
	}
	dir, err := b.st.segment(u.addr)
	if err != nil {
		return err
	}
	var chunks []kg.Chunk
	if err := bundle.ReadChunks(ctx, filepath.Join(dir, chunksFile), func(c kg.Chunk) error {
		if err := checkChunk(c, src.ID); err != nil {
			return err
		}
		chunks = append(chunks, c)
		return nil
	}); err != nil {
		return err
	}
	if !slices.EqualFunc(batches(chunks), m.Batches, func(x, y batchMeta) bool { return x.Ask == y.Ask && slices.Equal(x.Chunks, y.Chunks) }) {
		return fmt.Errorf("%s: its extract units are not its chunks' (%s)", unitFile, chunksFile)
	}
	u.chunks = chunks
	return nil
}

// checkChunk reports a chunk whose id is not the hash of its source and
// text: its text was changed after it was cut.
func checkChunk(c kg.Chunk, sourceID string) error {
	if c.SourceID != sourceID || c.ID != kg.ChunkID(c.SourceID, c.Text) {
		return fmt.Errorf("chunk %s: its id is not that of its source and text", c.ID)
	}
	return nil
}

// reuseExtract checks the stored segment of u's k-th extract unit at
// addr: why is nil when it verifies, else why not, the segment removed.
// chunks returns the unit's chunks by id.
func (b *build) reuseExtract(ctx context.Context, u *sourceUnit, k int, addr string, chunks func() (map[string]kg.Chunk, error)) (why, err error) {
	why = b.checkExtract(ctx, u.meta.Batches[k], addr, chunks)
	if why == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return why, b.drop(addr, extractUnitName(u, k), why)
}

func extractUnitName(u *sourceUnit, k int) string {
	return fmt.Sprintf("%s extract unit %d of %d", u.found.Rel, k+1, len(u.meta.Batches))
}

func (b *build) checkExtract(ctx context.Context, bm batchMeta, addr string, chunks func() (map[string]kg.Chunk, error)) error {
	if err := b.st.sound(addr); err != nil {
		return err
	}
	byID, err := chunks()
	if err != nil {
		return err
	}
	ex, err := b.verifier(ctx, bm.Ask, bm.Chunks[0])
	if err != nil {
		return err
	}
	var bad error
	err = b.readExtract(ctx, addr, func(res extract.Result, m extractMeta) {
		if !slices.Equal(m.Chunks, bm.Chunks) {
			bad = fmt.Errorf("%s names other chunks than the unit's", unitFile)
			return
		}
		// A chunk is rejected alone (extractOne): once, with what
		// extraction said of it, and nothing found in it.
		rejected := map[string]bool{}
		for _, r := range m.Rejected {
			if r.Stage != "extract" || !slices.Contains(bm.Chunks, r.Item) || rejected[r.Item] || !strings.HasPrefix(r.Reason, "extract chunk "+r.Item+": ") {
				bad = fmt.Errorf("%s rejects %q (%s), not a chunk of the unit rejected once by extraction", unitFile, r.Item, r.Stage)
				return
			}
			rejected[r.Item] = true
		}
		for _, t := range res.Triplets {
			if rejected[t.ChunkID] {
				bad = fmt.Errorf("%s rejects chunk %s, which has triplet %s", unitFile, t.ChunkID, t.ID)
				return
			}
		}
		_, drops := verifyResult(ex, byID, bm.Chunks, res)
		if len(drops) > 0 {
			bad = fmt.Errorf("%s does not ground in its chunk (%s)", drops[0].what, drops[0].Reason)
		}
	})
	return cmp.Or(err, bad)
}

// verifier is the extractor that grounds the facts of an extract unit
// again: the one that extracts it (built already when the unit asks the
// model), or, for a unit whose chunks have no sentence, the one checked at
// start (Verify keeps no fact of such a chunk).
func (b *build) verifier(ctx context.Context, ask bool, first string) (*extract.Extractor, error) {
	if !ask {
		return b.checked, nil
	}
	return b.ex.extractor(ctx, kg.Chunk{ID: first})
}

// factDrop is a triplet or entity of a stored unit that Verify did not keep.
type factDrop struct {
	extract.Drop
	what string // "triplet ID of chunk C"
}

// verifyResult grounds again what an extract unit of the given chunks
// stored, chunk by chunk, and returns what holds.
func verifyResult(ex *extract.Extractor, byID map[string]kg.Chunk, unit []string, res extract.Result) (extract.Result, []factDrop) {
	per := map[string]*extract.Result{}
	of := func(chunk string) *extract.Result {
		r := per[chunk]
		if r == nil {
			r = &extract.Result{}
			per[chunk] = r
		}
		return r
	}
	var drops []factDrop
	for _, t := range res.Triplets {
		if !slices.Contains(unit, t.ChunkID) {
			drops = append(drops, factDrop{extract.Drop{ID: t.ID, Reason: extract.DropOtherChunk}, "triplet " + t.ID + " of chunk " + t.ChunkID})
			continue
		}
		r := of(t.ChunkID)
		r.Triplets = append(r.Triplets, t)
	}
	for _, e := range res.Entities {
		if !slices.Contains(unit, e.ChunkID) {
			drops = append(drops, factDrop{extract.Drop{ID: e.ID, Reason: extract.DropOtherChunk}, "entity " + e.ID + " of chunk " + e.ChunkID})
			continue
		}
		r := of(e.ChunkID)
		r.Entities = append(r.Entities, e)
	}
	var kept extract.Result
	for _, id := range unit {
		r := per[id]
		if r == nil {
			continue
		}
		k, ds := ex.Verify(byID[id], *r)
		kept.Triplets = append(kept.Triplets, k.Triplets...)
		kept.Entities = append(kept.Entities, k.Entities...)
		for _, d := range ds {
			drops = append(drops, factDrop{d, "triplet or entity " + d.ID + " of chunk " + id})
		}
	}
	return kept, drops
}
