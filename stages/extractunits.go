package stages

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"kgforge/bundle"
	"kgforge/extract"
	"kgforge/kg"
)

// Segment files of an extract unit.
const (
	tripletsFile = "triplets.parquet"
	entitiesFile = "entities.parquet"
)

// extractMeta is the unit file of an extract unit's segment.
type extractMeta struct {
	Chunks []string `json:"chunks"`
	// Rejected are the chunks rejected alone (unparsable replies, too
	// long), kept so that an unchanged chunk is not sent again.
	Rejected []Reject `json:"rejected"`
	// Made is what the unit was made with besides its chunks: what a
	// reduce names when a unit of the same chunks made with other inputs
	// is stored and the unit itself is not.
	Made *extractInputs `json:"made,omitempty"`
}

// extractInputs are the inputs of an extract unit's address other than
// its chunks, as a person can compare them.
type extractInputs struct {
	Model         string `json:"model"`
	ModelDigest   string `json:"model_digest,omitempty"` // empty for a unit that asks the model nothing
	PromptVersion string `json:"prompt_version"`
	Options       string `json:"options"` // a digest of the other extraction options
	Code          string `json:"code"`
}

func hasSentence(c kg.Chunk) bool { return len(extract.Sentences(c.Text)) > 0 }

// extractAddress is the content address of an extract unit: its chunks
// (whose ids hash their source and text), the extraction options, the
// chat model's digest and the version of the prompt its mode uses (both
// known once the extractor is built, which asks the server about the
// model only when a chunk of the unit has something to ask) and the code.
// Building the extractor here, even when every unit is reused, keeps the
// manifest's prompt version that of the mode the triplets were made in.
func (b *build) extractAddress(ctx context.Context, bm batchMeta) (string, error) {
	addr, _, err := b.extractInputs(ctx, bm)
	return addr, err
}

// extractInputs returns the address of the extract unit bm and its inputs
// besides its chunks.
func (b *build) extractInputs(ctx context.Context, bm batchMeta) (string, *extractInputs, error) {
	opts, version := b.exOpts, b.checked.PromptVersion()
	if bm.Ask {
		ex, err := b.ex.extractor(ctx, kg.Chunk{ID: bm.Chunks[0]})
		if err != nil {
			return "", nil, err
		}
		opts.ModelDigest, version = b.digests.known(opts.Model), ex.PromptVersion()
	}
	rest := opts
	rest.Model, rest.ModelDigest = "", ""
	made := &extractInputs{Model: opts.Model, ModelDigest: opts.ModelDigest, PromptVersion: version, Options: address("options", rest), Code: b.code}
	return address("extract", bm.Chunks, opts, version, b.code), made, nil
}

// batch is an extract unit running now: its chunks go to the extract
// workers one by one, and the worker that finishes the last one writes the
// unit's segment.
type batch struct {
	addr    string
	made    *extractInputs
	chunks  []kg.Chunk
	mu      sync.Mutex
	results []extract.Result
	rejects []*Reject
	left    int
}

// chunkJob is one chunk of a batch, for an extract worker.
type chunkJob struct {
	b *batch
	i int
}

// done records what extraction gave the job's chunk and, for the last
// chunk of its batch, stores the batch's segment.
func (b *build) done(j chunkJob, res extract.Result, rej *Reject) error {
	bt := j.b
	bt.mu.Lock()
	bt.results[j.i], bt.rejects[j.i] = res, rej
	bt.left--
	last := bt.left == 0
	bt.mu.Unlock()
	if !last {
		return nil
	}
	return b.st.put(bt.addr, func(dir string) (any, error) {
		m := extractMeta{Rejected: []Reject{}, Made: bt.made}
		var ts []kg.Triplet
		var es []kg.Mention
		for i, c := range bt.chunks {
			m.Chunks = append(m.Chunks, c.ID)
			if r := bt.rejects[i]; r != nil {
				m.Rejected = append(m.Rejected, *r)
			}
			ts = append(ts, bt.results[i].Triplets...)
			es = append(es, bt.results[i].Entities...)
		}
		if err := bundle.WriteTriplets(filepath.Join(dir, tripletsFile), ts); err != nil {
			return nil, err
		}
		return m, bundle.WriteMentions(filepath.Join(dir, entitiesFile), es)
	})
}

// newBatch makes the running unit of the chunks bm names.
func newBatch(addr string, bm batchMeta, byID map[string]kg.Chunk) (*batch, error) {
	bt := &batch{addr: addr, left: len(bm.Chunks)}
	for _, id := range bm.Chunks {
		c, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("extract unit %s: chunk %s is not in its source's segment", addr, id)
		}
		bt.chunks = append(bt.chunks, c)
	}
	bt.results = make([]extract.Result, len(bt.chunks))
	bt.rejects = make([]*Reject, len(bt.chunks))
	return bt, nil
}

// readExtract reads an extract unit's segment back.
func (b *build) readExtract(ctx context.Context, addr string, fn func(extract.Result, extractMeta)) error {
	var m extractMeta
	if err := b.st.meta(addr, &m); err != nil {
		return err
	}
	var res extract.Result
	dir, err := b.st.segment(addr)
	if err != nil {
		return err
	}
	if err := bundle.ReadTriplets(ctx, filepath.Join(dir, tripletsFile), func(t kg.Triplet) error {
		res.Triplets = append(res.Triplets, t)
		return nil
	}); err != nil {
		return fmt.Errorf("extract unit %s: %w", addr, err)
	}
	if err := bundle.ReadMentions(ctx, filepath.Join(dir, entitiesFile), func(e kg.Mention) error {
		res.Entities = append(res.Entities, e)
		return nil
	}); err != nil {
		return fmt.Errorf("extract unit %s: %w", addr, err)
	}
	fn(res, m)
	return nil
}
