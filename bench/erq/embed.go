package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// vectorCache keeps embeddings on disk by content address — the model, its
// digest and the text — one small file per vector, so a rerun, a larger
// sample or another benchmark that embeds the same names asks the server
// for nothing it has already answered. Writes go to a temporary file renamed
// into place, so an interrupted run leaves no torn entry.
type vectorCache struct {
	dir string
}

func openVectorCache(dir string) (*vectorCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open embedding cache %s: %w", dir, err)
	}
	return &vectorCache{dir: dir}, nil
}

func vectorKey(model, digest, text string) string {
	h := sha256.New()
	for _, s := range []string{model, digest, text} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *vectorCache) path(key string) string { return filepath.Join(c.dir, key[:2], key) }

// get returns the cached vector, or false when there is none or it is
// unreadable (it is then fetched again and overwritten).
func (c *vectorCache) get(key string) ([]float32, bool) {
	b, err := os.ReadFile(c.path(key))
	if err != nil || len(b) == 0 || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, true
}

func (c *vectorCache) put(key string, v []float32) error {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache embedding: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache embedding: %w", err)
	}
	_, err = f.Write(b)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("cache embedding %s: %w", key, err), os.Remove(f.Name()))
	}
	return nil
}

// Embedder returns one vector per input, in order (llm.Client.Embed).
type Embedder func(ctx context.Context, model string, inputs []string, batch int) ([][]float32, error)

// embedStats say what filling the vectors cost.
type embedStats struct {
	Texts    int     `json:"texts"`    // distinct texts embedded
	Cached   int     `json:"cached"`   // of them, found in the cache
	Seconds  float64 `json:"seconds"`  // wall time, server calls included
	Dims     int     `json:"dims"`     // dimensions of the vectors
	Model    string  `json:"model"`    // the embedding model
	Digest   string  `json:"digest"`   // its digest on the server, or of the ONNX graph
	Embedder string  `json:"embedder"` // onnx or ollama
	Batch    int     `json:"batch"`    // inputs per server call
}

// fillVectors sets Vector on every record of every set, embedding each
// distinct EmbedText once, from the cache where it can. progress, when not
// nil, is told after each batch how many texts are done out of how many.
// batch is the number of texts per server call; 0 means 64.
func fillVectors(ctx context.Context, embed Embedder, cache *vectorCache, model, digest string, batch int,
	sets []Dataset, progress func(done, total int),
) (embedStats, error) {
	start := time.Now()
	if batch <= 0 {
		batch = 64
	}
	st := embedStats{Model: model, Digest: digest, Batch: batch}
	vecs := map[string][]float32{}
	var missing []string
	for _, d := range sets {
		for _, p := range d.Problems {
			for _, r := range p.Records {
				t := r.EmbedText()
				if _, ok := vecs[t]; ok {
					continue
				}
				st.Texts++
				if v, ok := cache.get(vectorKey(model, digest, t)); ok {
					vecs[t] = v
					st.Cached++
					continue
				}
				vecs[t] = nil
				missing = append(missing, t)
			}
		}
	}
	for i := 0; i < len(missing); i += batch {
		part := missing[i:min(i+batch, len(missing))]
		got, err := embed(ctx, model, part, batch)
		if err != nil {
			return st, err
		}
		if len(got) != len(part) {
			return st, fmt.Errorf("embed with %s: %d vectors for %d texts", model, len(got), len(part))
		}
		for k, t := range part {
			if len(got[k]) == 0 {
				return st, fmt.Errorf("embed %q with %s: empty vector", t, model)
			}
			vecs[t] = got[k]
			if err := cache.put(vectorKey(model, digest, t), got[k]); err != nil {
				return st, err
			}
		}
		if progress != nil {
			progress(i+len(part), len(missing))
		}
	}
	for si := range sets {
		for pi := range sets[si].Problems {
			recs := sets[si].Problems[pi].Records
			for ri := range recs {
				recs[ri].Vector = vecs[recs[ri].EmbedText()]
				st.Dims = len(recs[ri].Vector)
			}
		}
	}
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}
