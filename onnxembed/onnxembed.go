package onnxembed

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Files name what a Model is made of, as scripts/onnx.sh lays them out.
type Files struct {
	Library   string // libonnxruntime.so.VERSION (from the onnxruntime wheel)
	Graph     string // the ONNX graph (input_ids, attention_mask -> embeddings)
	Tokenizer string // the model's tokenizer.json
}

// DefaultFiles returns where scripts/onnx.sh puts the files under cacheDir
// (~/.cache/kgforge): KGFORGE_ONNXRUNTIME_LIB, when set, names the library,
// and KGFORGE_ONNX_DIR the folder of model.onnx and tokenizer.json.
func DefaultFiles(cacheDir string) Files {
	dir := cmp.Or(os.Getenv("KGFORGE_ONNX_DIR"), filepath.Join(cacheDir, "models", "all-MiniLM-L6-v2-onnx"))
	lib := cmp.Or(os.Getenv("KGFORGE_ONNXRUNTIME_LIB"), filepath.Join(cacheDir, "onnxruntime", "libonnxruntime.so."+LibraryVersion))
	return Files{Library: lib, Graph: filepath.Join(dir, "model.onnx"), Tokenizer: filepath.Join(dir, "tokenizer.json")}
}

// UserFiles are DefaultFiles under the user's cache directory
// (~/.cache/kgforge, the temporary directory when there is none), where
// scripts/onnx.sh puts them and a build looks for them.
func UserFiles() Files {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return DefaultFiles(filepath.Join(base, "kgforge"))
}

// DigestPrefix begins a Model's Digest, naming ONNX Runtime's vectors apart
// from Ollama's ("sha256:…").
const DigestPrefix = "onnx-sha256:"

// LibraryVersion is the onnxruntime release whose C API headers
// github.com/yalue/onnxruntime_go v1.27.0 carries.
const LibraryVersion = "1.24.1"

// Model is a loaded sentence encoder; Embed is safe for concurrent use
// (calls take turns: one session runs on all its threads).
type Model struct {
	tok     *Tokenizer
	session *ort.DynamicAdvancedSession
	digest  string
	mu      sync.Mutex
}

var (
	envOnce sync.Once
	errEnv  error
)

// Present reports whether every file exists.
func (f Files) Present() bool {
	for _, p := range []string{f.Library, f.Graph, f.Tokenizer} {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// ModelName is the pipeline's embed_model this package stands in for: the
// Ollama name of the one model it runs.
const ModelName = "all-minilm:l6-v2"

// Open loads the library (once per process), the tokenizer and the graph,
// with threads intra-op threads (0: 2) that sleep rather than spin while
// they wait, which keeps a shared machine responsive.
func Open(f Files, threads int) (*Model, error) {
	for _, p := range []string{f.Library, f.Graph, f.Tokenizer} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("open ONNX embedder: %w (run scripts/onnx.sh)", err)
		}
	}
	envOnce.Do(func() {
		ort.SetSharedLibraryPath(f.Library)
		errEnv = ort.InitializeEnvironment(ort.WithLogLevelError())
	})
	if errEnv != nil {
		return nil, fmt.Errorf("open ONNX embedder: load %s: %w", f.Library, errEnv)
	}
	tok, err := LoadTokenizer(f.Tokenizer, 256)
	if err != nil {
		return nil, err
	}
	digest, err := fileDigest(f.Graph)
	if err != nil {
		return nil, err
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("open ONNX embedder: %w", err)
	}
	defer func() { _ = so.Destroy() }()
	err = errors.Join(so.SetIntraOpNumThreads(cmp.Or(threads, 2)), so.SetInterOpNumThreads(1),
		so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"))
	if err != nil {
		return nil, fmt.Errorf("open ONNX embedder: session options: %w", err)
	}
	s, err := ort.NewDynamicAdvancedSession(f.Graph, []string{"input_ids", "attention_mask"}, []string{"embeddings"}, so)
	if err != nil {
		return nil, fmt.Errorf("open ONNX embedder: graph %s: %w", f.Graph, err)
	}
	return &Model{tok: tok, session: s, digest: DigestPrefix + digest}, nil
}

// Digest names the graph by its content ("onnx-sha256:HEX"): the key of the
// vectors it makes in an embedding cache, apart from Ollama's.
func (m *Model) Digest() string { return m.digest }

// Close releases the session.
func (m *Model) Close() error { return m.session.Destroy() }

// Embed returns one unit vector per text, in order, running batches of at
// most batch texts (0: 64) of similar length, so little of a batch is
// padding. model is ignored: it is there to match llm.Client.Embed.
func (m *Model) Embed(ctx context.Context, _ string, texts []string, batch int) ([][]float32, error) {
	batch = cmp.Or(batch, 64)
	ids := make([][]int64, len(texts))
	order := make([]int, len(texts))
	for i, t := range texts {
		ids[i], order[i] = m.tok.Encode(t), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(ids[a]), len(ids[b])) })
	out := make([][]float32, len(texts))
	for s := 0; s < len(order); s += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := order[s:min(s+batch, len(order))]
		vecs, err := m.run(part, ids)
		if err != nil {
			return nil, fmt.Errorf("embed %d texts with ONNX Runtime: %w", len(part), err)
		}
		for k, i := range part {
			out[i] = vecs[k]
		}
	}
	return out, nil
}

// run encodes the texts part names (indexes into ids), padded to the
// longest of them.
func (m *Model) run(part []int, ids [][]int64) ([][]float32, error) {
	width := 0
	for _, i := range part {
		width = max(width, len(ids[i]))
	}
	flat := make([]int64, len(part)*width)
	mask := make([]int64, len(part)*width)
	for k, i := range part {
		copy(flat[k*width:], ids[i])
		for j := range ids[i] {
			mask[k*width+j] = 1
		}
	}
	shape := ort.NewShape(int64(len(part)), int64(width))
	in, err := ort.NewTensor(shape, flat)
	if err != nil {
		return nil, err
	}
	defer func() { _ = in.Destroy() }()
	am, err := ort.NewTensor(shape, mask)
	if err != nil {
		return nil, err
	}
	defer func() { _ = am.Destroy() }()
	outs := []ort.Value{nil}
	m.mu.Lock()
	err = m.session.Run([]ort.Value{in, am}, outs)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	defer func() { _ = outs[0].Destroy() }()
	t, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("graph output is %T, want a float32 tensor", outs[0])
	}
	sh := t.GetShape()
	if len(sh) != 2 || sh[0] != int64(len(part)) {
		return nil, fmt.Errorf("graph output has shape %v for %d texts", sh, len(part))
	}
	data, dim := t.GetData(), int(sh[1])
	vecs := make([][]float32, len(part))
	for k := range vecs {
		vecs[k] = slices.Clone(data[k*dim : (k+1)*dim])
	}
	return vecs, nil
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open ONNX embedder: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("open ONNX embedder: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
