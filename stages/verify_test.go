package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/pipelines"
)

// threeDocs writes a pipeline over three one-chunk documents and a CSV
// table, dated an hour ago (so that the file index vouches for them), and
// returns it.
func threeDocs(t *testing.T) *pipelines.Pipeline {
	t.Helper()
	dir := t.TempDir()
	for i := range 3 {
		writeAged(t, filepath.Join(dir, "docs", docName(i)), plantText(i, "assembles the Trail bike"))
	}
	writeAged(t, filepath.Join(dir, "data", "parts.csv"), "part_id,name\nP1,Frame\nP2,Wheel\n")
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: three\nsources:\n  - {name: docs, paths: [\"docs/*.md\"]}\n  - {name: tables, paths: [\"data/*.csv\"]}\n" +
		"llm: {chat_model: m}\nresolve: {embeddings: false}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// storedSegment is one segment of a state directory, as a test finds it.
type storedSegment struct {
	addr, dir string
	unit      map[string]any
}

// segmentsIn returns the segments stored in out's state directory.
func segmentsIn(t *testing.T, out string) []storedSegment {
	t.Helper()
	var segs []storedSegment
	units, err := filepath.Glob(filepath.Join(out, StateDir, segmentsDir, "*", "*", unitFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		raw, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		s := storedSegment{dir: filepath.Dir(u), addr: filepath.Base(filepath.Dir(u))}
		if err := json.Unmarshal(raw, &s.unit); err != nil {
			t.Fatal(err)
		}
		segs = append(segs, s)
	}
	return segs
}

// segmentOf returns the source segment of the document rel, or its one
// extract unit's segment.
func segmentOf(t *testing.T, out, rel, kind string) storedSegment {
	t.Helper()
	segs := segmentsIn(t, out)
	var chunks []any
	for _, s := range segs {
		if src, ok := s.unit["source"].(map[string]any); ok && src["uri"] == rel {
			if kind == "source" {
				return s
			}
			chunks = s.unit["batches"].([]any)[0].(map[string]any)["chunks"].([]any)
		}
	}
	for _, s := range segs {
		if got, ok := s.unit["chunks"].([]any); ok && kind == "extract" && slices.Equal(got, chunks) {
			return s
		}
	}
	t.Fatalf("no %s segment of %s in %s", kind, rel, out)
	return storedSegment{}
}

// writeUnit replaces a segment's unit file.
func writeUnit(t *testing.T, s storedSegment) {
	t.Helper()
	raw, err := json.Marshal(s.unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, unitFile), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// resum rewrites a segment's digests after a forgery, as whoever can write
// the state directory can: the digests then catch nothing, and what stops
// the forgery is the check of the segment's content.
func resum(t *testing.T, dir string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		if e.Name() == sumsFile {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
	}
	if err := os.WriteFile(filepath.Join(dir, sumsFile), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts a file to half its size, as a full disk or a killed copy does.
func truncate(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// forgeTriplet adds "Evil Forged Corp supplies Delta Parts." to an extract
// segment's triplets, on the chunk of its first triplet.
func forgeTriplet(t *testing.T, s storedSegment) {
	t.Helper()
	path := filepath.Join(s.dir, tripletsFile)
	var ts []kg.Triplet
	if err := bundle.ReadTriplets(context.Background(), path, func(tr kg.Triplet) error {
		ts = append(ts, tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f := ts[0]
	f.Subject.Surface, f.Object.Surface, f.Predicate, f.Evidence = "Evil Forged Corp", "Delta Parts", "supplies", "Evil Forged Corp supplies Delta Parts."
	f.Subject.ID, f.Object.ID = kg.ID("mention", f.ChunkID, "Evil Forged Corp", "Thing"), kg.ID("mention", f.ChunkID, "Delta Parts", "Thing")
	f.ID = kg.ID("triplet", f.ChunkID, "evil forged corp", "supplies", "delta parts")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := bundle.WriteTriplets(path, append(ts, f)); err != nil {
		t.Fatal(err)
	}
}

// forgeChunkText puts a forged sentence into a source segment's chunk,
// keeping the chunk's id.
func forgeChunkText(t *testing.T, s storedSegment) {
	t.Helper()
	path := filepath.Join(s.dir, chunksFile)
	var cs []kg.Chunk
	if err := bundle.ReadChunks(context.Background(), path, func(c kg.Chunk) error {
		cs = append(cs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cs[0].Text += " Evil Forged Corp supplies Delta Parts."
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := bundle.WriteChunks(path, cs); err != nil {
		t.Fatal(err)
	}
}

// TestRunner_ADamagedOrForgedSegmentIsDroppedAndRedone: a segment changed
// in the state directory after its unit wrote it (damaged, or forged by
// whoever can write there, digests rewritten or not) never reaches the
// bundle and never fails the build: the next build drops it with a warning
// naming it, redoes its unit (from the LLM cache: no model call) and makes
// the bundle the untouched state made; the build after that finds the
// redone segment sound.
func TestRunner_ADamagedOrForgedSegmentIsDroppedAndRedone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  string // the segment changed: docs/d0.md's "source" or "extract" unit, or data/parts.csv's ("table")
		forge func(*testing.T, storedSegment)
		resum bool // the forger rewrites the segment's digests too
	}{
		{"a fact added to an extract segment", "extract", forgeTriplet, false},
		{"a fact added to an extract segment, digests rewritten", "extract", forgeTriplet, true},
		{"an extract segment's triplets cut short", "extract", func(t *testing.T, s storedSegment) { truncate(t, filepath.Join(s.dir, tripletsFile)) }, false},
		{"a rejection added to an extract unit's file, digests rewritten", "extract", func(t *testing.T, s storedSegment) {
			chunk := s.unit["chunks"].([]any)[0]
			s.unit["rejected"] = []any{map[string]any{"stage": "extract", "item": chunk, "reason": "forged"}}
			writeUnit(t, s)
		}, true},
		{"a source unit's file naming another file, digests rewritten", "source", func(t *testing.T, s storedSegment) {
			src := s.unit["source"].(map[string]any)
			src["uri"], src["id"] = "../../etc/passwd", kg.ID("source", "../../etc/passwd")
			writeUnit(t, s)
		}, true},
		{"a chunk's text changed under its id, digests rewritten", "source", forgeChunkText, true},
		{"a source segment's chunks cut short", "source", func(t *testing.T, s storedSegment) { truncate(t, filepath.Join(s.dir, chunksFile)) }, false},
		{"a table segment's data file cut short", "table", func(t *testing.T, s storedSegment) { truncate(t, filepath.Join(s.dir, tablesFile)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := threeDocs(t)
			ctx := context.Background()
			c, chats := fakeOllama(t, false)
			rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir(), CodeVersion: "verify-test"}
			first, err := rn.Run(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			rel, kind := "docs/d0.md", tc.kind
			if kind == "table" {
				rel, kind = "data/parts.csv", "source"
			}
			seg := segmentOf(t, rn.OutDir, rel, kind)
			tc.forge(t, seg)
			if tc.resum {
				resum(t, seg.dir)
			}
			before := chats.Load()
			rep, err := rn.Run(ctx, p)
			if err != nil {
				t.Fatalf("the build after the segment changed: %v", err)
			}
			if rep.Status != StatusOK || len(rep.Rejected) != 0 {
				t.Errorf("status %s, rejected %+v; want ok, none", rep.Status, rep.Rejected)
			}
			if d := bundle.Compare(manifestOf(t, first.Bundle), manifestOf(t, rep.Bundle)); len(d) != 0 {
				t.Errorf("the bundle differs from the one the untouched state made: %+v", d)
			}
			named := slices.ContainsFunc(rep.Warnings, func(w Reject) bool { return strings.Contains(w.Item+" "+w.Reason, seg.addr) })
			if !named {
				t.Errorf("no warning names segment %s: %+v", seg.addr, rep.Warnings)
			}
			if n := chats.Load() - before; n != 0 {
				t.Errorf("%d model calls; want the unit redone from the cache", n)
			}
			pl := rep.Plan
			switch tc.kind {
			case "extract":
				if pl.Units["extract"].Run != 1 || pl.Units["extract"].Reused != 2 {
					t.Errorf("extract units %+v; want 1 run again, 2 reused", *pl.Units["extract"])
				}
			case "source", "table":
				if pl.SourcesRead != 1 || pl.Units["extract"].Reused != 3 {
					t.Errorf("%d sources read, extract units %+v; want 1 read again, every extract unit reused", pl.SourcesRead, *pl.Units["extract"])
				}
			}
			again, err := rn.Run(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Warnings) != 0 || again.Plan.SourcesRead != 0 || again.Plan.Units["extract"].Run != 0 {
				t.Errorf("the build after: warnings %+v, %d sources read, extract %+v; want everything reused", again.Warnings, again.Plan.SourcesRead, *again.Plan.Units["extract"])
			}
		})
	}
}

// fakeOllamaDigest is fakeOllama whose model m has the given digest.
func fakeOllamaDigest(t *testing.T, digest string) *llm.Client {
	t.Helper()
	var chats atomic.Int32
	h := fakeOllamaHandler(&chats, false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/tags" {
			_, _ = io.WriteString(w, `{"models":[{"name":"m","model":"m","digest":"`+digest+`"}]}`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Options{Host: srv.URL, BaseDelay: time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestRunner_ReduceSaysWhyUnitsHaveNoSegment: the reduce's missing units
// come with the reason: a segment that did not verify (and was dropped),
// segments of the same chunks made with another chat model, or none at all.
func TestRunner_ReduceSaysWhyUnitsHaveNoSegment(t *testing.T) {
	p := shardCorpus(t)
	ctx := context.Background()
	before, after := fakeOllamaDigest(t, "sha256:before"), fakeOllamaDigest(t, "sha256:after")
	out, cache := t.TempDir(), t.TempDir()
	for i := range 2 {
		if _, err := (&Runner{LLM: before, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Shard: Shard{I: i, N: 2}}).Run(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	damaged := segmentOf(t, out, "docs/d03.md", "extract")
	truncate(t, filepath.Join(damaged.dir, tripletsFile))

	_, err := (&Runner{LLM: before, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Reduce: true}).Run(ctx, p)
	var me *MissingError
	if !errors.As(err, &me) || len(me.Units) != 1 || !strings.Contains(err.Error(), "docs/d03.md") ||
		!strings.Contains(err.Error(), "did not verify") || !strings.Contains(err.Error(), damaged.addr) {
		t.Errorf("reduce with a damaged segment: %v; want its unit named, with its segment and why it did not verify", err)
	}

	_, err = (&Runner{LLM: after, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Reduce: true}).Run(ctx, p)
	msg := fmt.Sprint(err)
	if !errors.As(err, &me) || len(me.Units) != 14 ||
		!strings.Contains(msg, "13 with segments made by another chat model: m@sha256:before, this run's is m@sha256:after") ||
		!strings.Contains(msg, "1 with no segment of their chunks at all") {
		t.Errorf("reduce after the model changed: %v; want 13 units made by the model before, 1 with no segment", err)
	}
}
