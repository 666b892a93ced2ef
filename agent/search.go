package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"kgforge/bundle"
)

// Bounds of sems.
const (
	semsTop   = 10 // results returned
	semsDepth = 50 // results taken from each ranking before fusion
	rrfK      = 60 // the reciprocal rank fusion constant (Cormack et al. 2009)
)

// Embedder embeds texts with a named model and names the vectors it makes
// by the model's digest, as a build records it in the manifest (Ollama's
// digest, or "onnx-sha256:…" for ONNX Runtime's graph); *llm.Client is one.
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string, batch int) ([][]float32, error)
	ModelDigests(ctx context.Context, names ...string) (map[string]string, error)
}

// onnxDigest starts the embed digest of a bundle whose vectors ONNX
// Runtime made (onnxembed.Model.Digest).
const onnxDigest = "onnx-sha256:"

// SetEmbedder gives sems a way to embed its query with each vector set's
// model. Without one, sems ranks by BM25 alone and says so.
func (t *Toolbox) SetEmbedder(e Embedder) { t.emb = e }

// ranked is one ranking's entry: a node or chunk id and its score.
type ranked struct {
	ID    string
	Score float64
}

// semsHit is one fused result.
type semsHit struct {
	ID              string
	Score           float64
	BM25, DenseRank int // 1-based rank in each list; 0 when absent
}

func (t *Toolbox) runSems(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{ Query string }
	if err := decode(ToolSems, json.RawMessage(`{"query":"words or a question"}`), args, &a); err != nil {
		return "", err
	}
	q := strings.TrimSpace(a.Query)
	terms := bundle.Terms(q)
	if len(terms) == 0 {
		return "", &CallError{Tool: ToolSems, Kind: FailMalformed, Msg: fmt.Sprintf("query %q has no word to search for", q), Hint: `give words or a question: {"query":"..."}`}
	}
	var notes []string
	lexical, err := t.bm25(ctx, terms, semsDepth)
	if err != nil {
		return "", err
	}
	if lexical == nil {
		notes = append(notes, "the bundle has no search index (format before 1.5): vectors alone")
	}
	dense, note, err := t.dense(ctx, q, semsDepth)
	if err != nil {
		return "", err
	}
	if note != "" {
		notes = append(notes, note)
	}
	hits := fuse(lexical, dense, semsTop)
	return t.renderSems(ctx, q, terms, hits, notes)
}

// fuse merges two rankings by reciprocal rank: each id scores the sum of
// 1/(rrfK + rank) over the rankings it is in; ties go by id.
func fuse(lexical, dense []ranked, top int) []semsHit {
	byID := map[string]*semsHit{}
	add := func(list []ranked, rank func(*semsHit) *int) {
		for i, r := range list {
			h := byID[r.ID]
			if h == nil {
				h = &semsHit{ID: r.ID}
				byID[r.ID] = h
			}
			if *rank(h) == 0 {
				*rank(h) = i + 1
				h.Score += 1 / float64(rrfK+i+1)
			}
		}
	}
	add(lexical, func(h *semsHit) *int { return &h.BM25 })
	add(dense, func(h *semsHit) *int { return &h.DenseRank })
	hits := make([]semsHit, 0, len(byID))
	for _, k := range slices.Sorted(maps.Keys(byID)) {
		hits = append(hits, *byID[k])
	}
	slices.SortStableFunc(hits, func(a, b semsHit) int { return cmp.Compare(b.Score, a.Score) })
	return hits[:min(top, len(hits))]
}

// dense ranks the ids of every vector set of the bundle by cosine
// similarity to the query embedded with the set's model, by the runtime
// that made the set (sameVectors). When it cannot (no vectors, no
// embedder, another runtime's embedder, the embedding server unreachable)
// it returns no ranking and a note that says why, and sems goes on with
// BM25.
func (t *Toolbox) dense(ctx context.Context, q string, depth int) ([]ranked, string, error) {
	sets := slices.Sorted(maps.Keys(t.b.Manifest.Vectors))
	switch {
	case len(sets) == 0:
		return nil, "the bundle has no vectors: BM25 alone", nil
	case t.emb == nil:
		return nil, "no embedding model is set up for this session: BM25 alone", nil
	}
	var all []ranked
	for _, name := range sets {
		model := t.b.Manifest.Vectors[name].Model
		if note, err := t.sameVectors(ctx, model); note != "" || err != nil {
			return nil, note, err
		}
		vecs, err := t.emb.Embed(ctx, model, []string{q}, 1)
		if err != nil || len(vecs) != 1 {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			return nil, fmt.Sprintf("the embedding server could not embed the query with %s (%v): BM25 alone", model, err), nil
		}
		r, err := t.nearest(name, vecs[0], depth)
		if err != nil {
			return nil, "", err
		}
		all = append(all, r...)
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID)) })
	return all[:min(depth, len(all))], "", nil
}

// sameVectors says why the query cannot be compared with the bundle's
// vectors of model, or "" when it can: the embedder must make the vectors
// the build made, by the digest the manifest keeps (vectors of two
// runtimes, or of a model replaced under its name, are never compared). A
// bundle that kept no digest for model is taken as it is.
func (t *Toolbox) sameVectors(ctx context.Context, model string) (string, error) {
	want := t.b.Manifest.Models["embed"]
	if want.Name != model || want.Digest == "" {
		return "", nil
	}
	got, err := t.emb.ModelDigests(ctx, model)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return fmt.Sprintf("the embedding server could not embed the query with %s (%v): BM25 alone", model, err), nil
	}
	if got[model] == want.Digest {
		return "", nil
	}
	note := fmt.Sprintf("the bundle's vectors of %s were made by %s (%s) but this session embeds with %s (%s), and vectors of two runtimes are not compared: BM25 alone",
		model, runtimeOf(want.Digest), shortDigest(want.Digest), runtimeOf(got[model]), shortDigest(got[model]))
	if strings.HasPrefix(want.Digest, onnxDigest) {
		note += " (run scripts/onnx.sh up, the files the build embedded with, so the query is embedded in process too)"
	}
	return note, nil
}

func runtimeOf(digest string) string {
	if strings.HasPrefix(digest, onnxDigest) {
		return "ONNX Runtime"
	}
	return "Ollama"
}

// shortDigest is a digest's scheme and first 12 hex digits.
func shortDigest(d string) string {
	scheme, hex, ok := strings.Cut(d, ":")
	if !ok {
		scheme, hex = "", d
	}
	return scheme + ":" + hex[:min(12, len(hex))]
}

// nearest returns the depth ids of vector set name nearest to v by cosine.
func (t *Toolbox) nearest(name string, v []float32, depth int) (_ []ranked, err error) {
	vs, err := t.b.Vectors(name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := vs.Close(); err == nil {
			err = cerr
		}
	}()
	if vs.Dim() != len(v) {
		return nil, fmt.Errorf("vector set %s has %d dimensions, the query's embedding %d", name, vs.Dim(), len(v))
	}
	qn := norm(v)
	out := make([]ranked, 0, vs.Len())
	for i := range vs.Len() {
		x := vs.Vector(i)
		var dot float64
		for j := range x {
			dot += float64(x[j]) * float64(v[j])
		}
		if d := norm(x) * qn; d > 0 {
			out = append(out, ranked{ID: vs.ID(i), Score: dot / d})
		}
	}
	slices.SortStableFunc(out, func(a, b ranked) int { return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID)) })
	return out[:min(depth, len(out))], nil
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// renderSems writes the fused results: rank, kind, id, what it is, where
// it ranked in each list, and a snippet.
func (t *Toolbox) renderSems(ctx context.Context, q string, terms []string, hits []semsHit, notes []string) (string, error) {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString("note: " + n + "\n")
	}
	if len(hits) == 0 {
		fmt.Fprintf(&b, "nothing found for %q (try other words, or grep for a literal name)", q)
		return b.String(), nil
	}
	about, err := t.describe(ctx, hits, terms)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "top %d for %q (rank, kind, id, bm25 rank, vector rank: what):\n", len(hits), q)
	for i, h := range hits {
		d := about[h.ID]
		fmt.Fprintf(&b, "%d\t%s\t%s\tbm25 %s\tvector %s: %s\n", i+1, or(d.kind, "?"), h.ID, rankText(h.BM25), rankText(h.DenseRank), d.text)
	}
	b.WriteString("cat an id for the whole node or chunk")
	return b.String(), nil
}

func rankText(r int) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprint(r)
}

type hitAbout struct{ kind, text string }

// describe says what each hit is: a node's name and labels, or a chunk's
// source, span and a quoted snippet around the first query term.
func (t *Toolbox) describe(ctx context.Context, hits []semsHit, terms []string) (map[string]hitAbout, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = lit(h.ID)
	}
	in := strings.Join(ids, ", ")
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT 'chunk', c.id, coalesce(s.uri, c.source_id) || ' bytes ' || c.start || '-' || c."end", c.text
FROM memory.main.chunks c LEFT JOIN memory.main.sources s ON s.id = c.source_id WHERE c.id IN (%[1]s)
UNION ALL SELECT kind, id, name || ' (' || array_to_string(labels, ', ') || ')', description FROM memory.main.nodes WHERE id IN (%[1]s) AND kind <> 'chunk'`, in), 2*len(hits))
	if err != nil {
		return nil, err
	}
	out := map[string]hitAbout{}
	for _, r := range rows {
		text := short(r[2], nameInLine)
		if r[0] == "chunk" {
			text += " " + quoteInline(fmt.Sprintf("chunk=%q", r[1]), termSnippet(r[3], terms))
		} else if r[3] != "" {
			text += " " + quoteInline(fmt.Sprintf("node=%q", r[1]), short(r[3], snippetAfter))
		}
		out[r[1]] = hitAbout{kind: r[0], text: text}
	}
	return out, nil
}

// termSnippet is the part of text around the first query term it holds.
func termSnippet(text string, terms []string) string {
	for _, term := range terms {
		if foldIndex(text, term) >= 0 {
			return snippet(text, term)
		}
	}
	return short(text, snippetBefore+snippetAfter)
}
